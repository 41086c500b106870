"""The registry of runtimes: every runtime of run/ is in it, each claims its commands and checks
itself for the doctor, and exactly one claims each mode's command."""

from __future__ import annotations

import ast
import itertools
from dataclasses import dataclass
from pathlib import Path

import pytest

from astest_tasks.core.errors import UserError
from astest_tasks.run import runtime_registry
from astest_tasks.run.default_runtime import DefaultRuntime
from astest_tasks.run.runtime import Runtime
from astest_tasks.run.runtime_command import runtime_request
from astest_tasks.run.runtime_registry import RUNTIMES, claimed_runtime
from astest_tasks.run.runtime_request import RuntimeRequest

RUN_STAGE = Path(__file__).resolve().parents[2] / "astest_tasks" / "run"
FIELD = "as-test.config.json: runOptions.runtime.cmd"


def runtime_classes(folder: Path) -> set[str]:
    """Every class in ``folder`` that runs specs: it has ``run(self, spec, channel, limits)``."""
    found = set()
    for path in folder.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and node.name != "Runtime":
                methods = {
                    item.name: item for item in node.body if isinstance(item, ast.FunctionDef)
                }
                run = methods.get("run")
                if run is not None and [a.arg for a in run.args.args] == [
                    "self",
                    "spec",
                    "channel",
                    "limits",
                ]:
                    found.add(node.name)
    return found


def test_every_runtime_of_the_run_stage_is_registered() -> None:
    registered = {runtime.__name__ for runtime in RUNTIMES}
    assert runtime_classes(RUN_STAGE) == registered, "add the new runtime to RUNTIMES"


@pytest.mark.parametrize("runtime", RUNTIMES, ids=lambda runtime: runtime.__name__)
@pytest.mark.parametrize("member", ["claim", "doctor_checks"])
def test_every_registered_runtime_declares_its_own_claim_and_doctor_checks(
    runtime: type[object], member: str
) -> None:
    # Its own: a claim or checks inherited from a shared base would answer for another runtime.
    assert member in vars(runtime), f"{runtime.__name__} has no {member} of its own"


# What modes ask for: every kind of command the runtimes tell apart, for each target, in a project
# where as-test's stock Node runners exist and in one where they do not.
COMMANDS = (
    "",
    "python ./.as-test/runners/mine.py <file>",
    "./.as-test/runners/mine.py",
    "python ./.as-test/runners/default.wasi.py <file>",
    "python ./.as-test/runners/default.bindings.py <file>",
    "node ./.as-test/runners/default.wasi.js <file>",
    "node .as-test/runners/default.web.js --headless <file>",
    "node ./runner.mjs <file>",
    "wasmtime run <file>",
    "./tools/run.sh <file>",
    "python -m http.server",
)
TARGETS = ("wasi", "bindings", "web")


@pytest.fixture(params=["stock-runners", "bare"])
def project(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    if request.param == "stock-runners":
        for target in TARGETS:
            runner = tmp_path / f".as-test/runners/default.{target}.js"
            runner.parent.mkdir(parents=True, exist_ok=True)
            runner.write_text("// as-test's stock runner")
    return tmp_path


def requests(project: Path) -> list[RuntimeRequest]:
    return [
        runtime_request(command, target, project, FIELD, "", headful=False, locate=False)
        for command, target in itertools.product(COMMANDS, TARGETS)
    ]


def claims(request: RuntimeRequest) -> list[str]:
    """The runtimes that claim ``request``; "error" for one that claims it to refuse it."""
    claimed = []
    for runtime in RUNTIMES:
        try:
            if runtime.claim(request) is not None:
                claimed.append(runtime.__name__)
        except UserError:
            claimed.append("error")
    return claimed


def test_exactly_one_runtime_claims_each_command_of_each_target(project: Path) -> None:
    overlaps = {
        (request.command, request.target): found
        for request in requests(project)
        if len(found := claims(request)) != 1
    }
    assert overlaps == {}


def test_every_registered_runtime_claims_some_command(project: Path) -> None:
    claimed = {name for request in requests(project) for name in claims(request)}
    assert claimed == {runtime.__name__ for runtime in RUNTIMES} | {"error"}


@dataclass(frozen=True)
class Greedy(DefaultRuntime):
    """A runtime that claims every command: it overlaps every other."""

    @classmethod
    def claim(cls, request: RuntimeRequest) -> Greedy | None:
        return cls(request.target)


def test_two_claims_of_one_command_are_a_bug_named_not_a_silent_choice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry: tuple[type[Runtime], ...] = (*RUNTIMES, Greedy)
    monkeypatch.setattr(runtime_registry, "RUNTIMES", registry)
    request = runtime_request("wasmtime run <file>", "wasi", tmp_path, FIELD, "", False, False)
    with pytest.raises(AssertionError, match=r"2 runtimes claim .*: ExternalRuntime, Greedy$"):
        claimed_runtime(request)
