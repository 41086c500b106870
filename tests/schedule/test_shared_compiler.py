"""When doit's main process starts the compile server its workers will share
(schedule/shared_server.py has the server's own tests)."""

from __future__ import annotations

import multiprocessing
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from astest_tasks.build.build_request import BuildRequest
from astest_tasks.core.errors import UserError
from astest_tasks.plan.doit_argv import forks_worker_processes
from astest_tasks.schedule import shared_compiler
from astest_tasks.schedule.build_prefetch import PlannedBuild
from astest_tasks.schedule.scheduler import Scheduler
from tests.conftest import make_build_request


class Starts:
    """Stands in for starting the server: records each request."""

    def __init__(self) -> None:
        self.requests: list[BuildRequest] = []
        self.result: bool | Exception = True

    def __call__(self, request: BuildRequest) -> bool:
        self.requests.append(request)
        if isinstance(self.result, Exception):
            raise self.result
        return self.result


PLANNER = Scheduler()  # made once: a scheduler starts nothing until it is asked to


@pytest.fixture
def starts(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Starts]:
    recorder = Starts()
    build = PlannedBuild("astest", make_build_request(tmp_path, "a"), ())
    monkeypatch.setattr(PLANNER, "share_compile_server", recorder)
    monkeypatch.setattr(PLANNER, "planned_builds", lambda: [build])
    monkeypatch.setattr(shared_compiler, "first_bound_build", lambda planned: planned[0])
    monkeypatch.setattr(shared_compiler, "usable_cpus", lambda: 2)
    yield recorder


def share(arguments: list[str]) -> bool:
    """What the task creator does once the tasks are made, for a doit call of ``arguments``."""
    return PLANNER.share_compiler_with_workers(forks_worker_processes(arguments))


def test_a_run_with_workers_on_two_cores_starts_the_server_before_it_returns(
    starts: Starts,
) -> None:
    assert share(["-n", "2"])
    assert [request.spec.spec_id for request in starts.requests] == ["a"]


@pytest.mark.parametrize(
    "arguments", [[], ["-n", "2", "-P", "thread"], ["list", "-n", "2"], ["-n", "0"]]
)
def test_no_server_is_started_when_doit_forks_no_workers(
    starts: Starts, arguments: list[str]
) -> None:
    assert not share(arguments)
    assert starts.requests == []


def test_four_cores_leave_each_worker_a_server_of_its_own(
    starts: Starts, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shared_compiler, "usable_cpus", lambda: 4)
    assert not share(["-n", "2"])
    assert starts.requests == []


def test_workers_that_are_not_forked_share_nothing(
    starts: Starts, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(multiprocessing, "get_start_method", lambda **_: "spawn")
    assert not share(["-n", "2"])
    assert starts.requests == []


def test_nothing_to_build_starts_no_server(starts: Starts, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shared_compiler, "first_bound_build", lambda planned: None)
    assert not share(["-n", "2"])
    assert starts.requests == []


@pytest.mark.parametrize("outcome", [False, UserError("node is too old"), OSError("no node")])
def test_a_server_that_cannot_start_leaves_the_builds_to_say_why(
    starts: Starts, outcome: bool | Exception
) -> None:
    starts.result = outcome
    assert not share(["-n", "2"])
    assert len(starts.requests) == 1


def test_what_the_workers_run_is_imported_while_the_server_starts(
    starts: Starts, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The forked workers inherit it (wasmtime), instead of each importing it while the server
    needs both cores."""
    server_started = threading.Event()
    imported_on: list[str] = []

    def start(request: BuildRequest) -> bool:
        server_started.set()
        return True

    def import_them() -> None:
        # Only a thread of its own can wait for the server's start to begin.
        assert server_started.wait(30), "the imports kept the server from starting"
        imported_on.append(threading.current_thread().name)

    monkeypatch.setattr(PLANNER, "share_compile_server", start)
    monkeypatch.setattr(shared_compiler, "_import_what_workers_run", import_them)
    assert share(["-n", "2"])
    assert imported_on == ["astest-imports"], "done before it returns, beside the server's start"


def test_the_imports_for_the_workers_bring_in_wasmtime_and_the_runners() -> None:
    probe = (
        "import sys\n"
        "from astest_tasks.schedule import shared_compiler\n"
        "assert 'wasmtime' not in sys.modules\n"
        "shared_compiler._import_what_workers_run()\n"
        "print(sorted(m for m in sys.modules if m in shared_compiler._WHAT_WORKERS_RUN"
        " or m == 'wasmtime'))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == str(
        ["astest_tasks.run.runner_script", "astest_tasks.run.wasm_host", "wasmtime"]
    )
