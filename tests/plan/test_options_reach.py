"""Every option reaches a stage, and one that reaches the run is in the run's key.

An option declared in a stage's options record (plan/options.py's GROUPS) but read nowhere does
nothing the user can see; one that changes what a run task's action is handed without changing the
task's key would let a cached result stand for a run that was asked to differ (issue 39). The first
check reads the package; the second makes the tasks of a project twice, with the option at its
default and at a sample value, and compares each run task's request with its key.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Iterator
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

import pytest

from astest_tasks.actions import doors
from astest_tasks.actions.fuzz_actions import FuzzRunRequest
from astest_tasks.config import toolchain
from astest_tasks.core import project_lock
from astest_tasks.plan.options import (
    GROUPS,
    OPTIONS,
    TaskOptions,
    option_defaults,
    task_options,
)
from astest_tasks.run.run_request import RunRequest
from astest_tasks.tasks.checks import Always, InputsChanged
from astest_tasks.tasks.creator import create_tasks
from tests.conftest import ProjectBuilder

PACKAGE = Path(__file__).resolve().parents[2] / "astest_tasks"
GROUP_NAMES = frozenset(group for group, _ in GROUPS)
# The modules that declare the options: their records read their own fields (joint readings).
DECLARING_MODULES = frozenset(
    Path(inspect.getfile(record)).resolve() for _, record in (*GROUPS, ("", TaskOptions))
)
# The names the code gives a TaskOptions record, or one stage's record of it, when it reads an
# option from it; and the attributes that hold a stage's record (``options.selection.spec``).
HOLDERS = frozenset({"options", "requested", "selection", "report"})

# A value for every option, as doit's command line would give it; a new option must add its own
# (the first test says so). An option whose sample is its default ends the call before any task
# is made (--list, --version) or needs git or a file (--changed, --shard-durations,
# --coverage-fail-under): the reading test alone checks that it reaches a stage.
SAMPLES: dict[str, str | bool] = {
    "mode": "web",
    "timeout": "7",
    "memory_limit": "300",
    "output_limit": "3",
    "spec": "math",
    "suite": "one",
    "test_name_pattern": "adds",
    "changed": "",
    "last_failed": True,
    "update_snapshots": "create",
    "create_snapshots": True,
    "overwrite_snapshots": True,
    "no_snapshot": True,
    "show_coverage": "on",
    "browser": "chromium",
    "headful": True,
    "fuzz": True,
    "fuzz_seed": "42",  # against the pinned 7 of the fuzz calls (_options_with)
    "fuzz_runs": "500",
    "fuzzer": "one",
    "coverage": "on",
    "enable": "coverage",
    "disable": "coverage",
    "coverage_fail_under": "",
    "shard": "1/1",
    "shard_durations": "",
    "list": False,
    "list_modes": False,
    "verbose": True,
    "show_logs": True,
    "durations": "3",
    "version": False,
    "config": "as-test.config.json",
    "remote_cache": "http://127.0.0.1:9/cache",
    "remote_cache_mode": "read",
    "remote_cache_connect_timeout": "1",
    "remote_cache_request_timeout": "1",
}


def _option_reads(path: Path) -> Iterator[str]:
    """The attributes read from a name in ``HOLDERS`` (``options.timeout``), from a stage's
    record (``options.limits.timeout``, ``plan.report.verbose``), and in a declaring module
    those read from ``self`` (its joint readings)."""
    declaring = path.resolve() in DECLARING_MODULES
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Attribute) or not isinstance(node.ctx, ast.Load):
            continue
        holder = node.value
        if isinstance(holder, ast.Name) and (
            holder.id in HOLDERS or (declaring and holder.id == "self")
        ):
            yield node.attr
        elif isinstance(holder, ast.Attribute) and holder.attr in {"options", *GROUP_NAMES}:
            yield node.attr  # plan.options.x, options.limits.timeout


def options_read(package: Path) -> set[str]:
    return {name for path in package.rglob("*.py") for name in _option_reads(path)}


def test_every_option_has_a_sample() -> None:
    assert set(SAMPLES) == {option.name for option in OPTIONS}


def test_every_declared_option_is_read_by_a_stage() -> None:
    read = options_read(PACKAGE)
    unread = [option.name for option in OPTIONS if option.name not in read]
    assert unread == [], f"declared but read nowhere (use it, or remove it): {unread}"


def test_an_option_read_nowhere_is_found(tmp_path: Path) -> None:
    (tmp_path / "user.py").write_text("def f(options):\n    return options.timeout\n")
    assert options_read(tmp_path) == {"timeout"}


@pytest.fixture(autouse=True)
def fresh_process_state(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(toolchain, "_warned", set())
    monkeypatch.setattr(project_lock, "_held", {})


SPECS = {
    "assembly/__tests__/math.spec.ts": 'import { expect } from "as-test";\nexpect(1).toBe(1);\n',
    "assembly/__tests__/text.spec.ts": 'import { expect } from "as-test";\nexpect(2).toBe(2);\n',
    "assembly/__fuzz__/sound.fuzz.ts": 'import { fuzz } from "as-test";\n',
}


def _stand_in_browser(root: Path) -> Path:
    """An executable the web runtime takes as the browser to run (it is never started here)."""
    browser = root / "stand-in-chromium"
    browser.write_text("#!/bin/sh\nexit 0\n")
    browser.chmod(0o755)
    return browser


CONFIG = {
    "modes": {"web": {"buildOptions": {"target": "web"}}},
    "coverage": False,
}


def run_tasks(root: Path, options: TaskOptions) -> dict[str, tuple[object, Any]]:
    """Each run task's run (``what_runs``) and its key, by task name: the specs' and the fuzz
    campaigns'. A task that always runs (an ``Always`` that says so: a snapshot update asks every
    spec again, a random seed every campaign) has no key to keep."""
    found: dict[str, tuple[object, Any]] = {}
    for task in create_tasks(root, options):
        actions = task.get("actions") or []
        if not actions or actions[0][0] not in (doors.run_spec, doors.run_fuzz_file):
            continue
        name = f"{task['basename']}:{task['name']}"
        checks = task["uptodate"]
        if any(isinstance(check, Always) and not check.up_to_date for check in checks):
            found[name] = (what_runs(actions[0][1][0]), "always runs")
            continue
        keys = [check for check in checks if isinstance(check, InputsChanged)]
        found[name] = (what_runs(actions[0][1][0]), keys[0].config)
    return found


def what_runs(request: RunRequest | FuzzRunRequest) -> tuple[dict[str, object], str]:
    """The request as far as it decides the run: not where the spec stands in this call's count
    (the live line's), and of the runtime what it declares decides a result (its cache_key:
    which browser executable, not whether its window shows)."""
    deciding: dict[str, object] = {
        field.name: getattr(request, field.name)
        for field in fields(request)
        if field.name not in {"progress", "runtime"}
    }
    if isinstance(request, FuzzRunRequest):
        return deciding, ""
    deciding["progress"] = replace(request.progress, position=0, total=0)
    return deciding, request.runtime.cache_key


FUZZ_PARAMETERS = frozenset({"fuzz_seed", "fuzz_runs", "fuzzer"})


def _options_with(name: str, value: str | bool) -> TaskOptions:
    # The fuzz options change fuzz campaigns, which are made only with --fuzz: both calls ask,
    # with a pinned seed (a campaign with a random one always runs, and has no key to compare).
    fuzzing = {"fuzz": True, "fuzz_seed": "7"} if name in FUZZ_PARAMETERS else {}
    return TaskOptions.from_values({**option_defaults(task_options()), **fuzzing, name: value})


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_an_option_that_changes_a_run_changes_its_key(
    name: str, tmp_project: ProjectBuilder
) -> None:
    root = tmp_project(CONFIG, files=SPECS)
    sample = SAMPLES[name]
    if name == "browser":  # another executable than the default Chromium, which runs the same
        sample = str(_stand_in_browser(root))
    # A pinned seed to compare with (a random one always runs); else the option's default.
    plain_value = "7" if name == "fuzz_seed" else OPTIONS_DEFAULTS[name]
    plain = run_tasks(root, _options_with(name, plain_value))
    assert any(task.startswith("astest:run:web:") for task in plain), "a browser mode's runs"
    assert any(task.startswith("astest:fuzz:") for task in plain) == (name in FUZZ_PARAMETERS)
    try:
        varied = run_tasks(root, _options_with(name, sample))
    except SystemExit:
        return  # a call that only prints (--version): it makes no task to compare
    for task, (request, key) in varied.items():
        if task not in plain:
            continue  # a pair another selection made, whose run this option did not change
        plain_request, plain_key = plain[task]
        if request != plain_request and "always runs" not in (key, plain_key):
            assert key != plain_key, f"--{name} changes {task}'s run but not its key"


OPTIONS_DEFAULTS = {option.name: option.default for option in OPTIONS}
