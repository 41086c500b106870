"""When doit's main process starts the compile server its workers will share, and that a fork
waits for the start (build/shared_server.py has the server's own tests)."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from astest_tasks.build.build_prefetch import PlannedBuild
from astest_tasks.tasks import shared_compiler


class Starts:
    """Stands in for starting the server: records each request, blocked until ``release``."""

    def __init__(self) -> None:
        self.requests: list[Mapping[str, object]] = []
        self.release = threading.Event()
        self.done = threading.Event()

    def __call__(self, request: Mapping[str, object]) -> bool:
        self.requests.append(request)
        self.release.wait(30)
        self.done.set()
        return True


# The test's own hook runs before the module's (before-fork hooks run newest first): it lets the
# start go on only once a fork has begun, so the child can tell whether the fork waited for it.
_armed: list[Starts] = []


def _release_armed() -> None:
    for starts in _armed:
        starts.release.set()


os.register_at_fork(before=_release_armed)


@pytest.fixture
def starts(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Starts]:
    recorder = Starts()
    build = PlannedBuild("astest", {"project_root": str(tmp_path), "spec_id": "a"}, ())
    monkeypatch.setattr(shared_compiler, "share_compile_server", recorder)
    monkeypatch.setattr(shared_compiler, "planned_builds", lambda: [build])
    monkeypatch.setattr(shared_compiler, "first_bound_build", lambda planned: planned[0])
    monkeypatch.setattr(shared_compiler, "usable_cpus", lambda: 2)
    monkeypatch.setattr(shared_compiler, "_starting", None)
    yield recorder
    recorder.release.set()
    starting = shared_compiler._starting
    if starting is not None:
        starting.join(30)


def test_a_run_with_workers_on_two_cores_starts_one_server_for_them(starts: Starts) -> None:
    assert shared_compiler.share_compiler_with_workers(["-n", "2"])
    assert shared_compiler.share_compiler_with_workers(["-n", "2"])  # a second pipeline
    starts.release.set()
    assert starts.done.wait(30)
    assert [request["spec_id"] for request in starts.requests] == ["a"]
    starting = shared_compiler._starting
    assert starting is not None
    starting.join(30)
    # Watch mode's next cycle asks again; the pool keeps the server if it is still alive.
    assert shared_compiler.share_compiler_with_workers(["-n", "2"])
    assert len(starts.requests) == 2


@pytest.mark.parametrize(
    "arguments", [[], ["-n", "2", "-P", "thread"], ["list", "-n", "2"], ["-n", "0"]]
)
def test_no_server_is_started_when_doit_forks_no_workers(
    starts: Starts, arguments: list[str]
) -> None:
    assert not shared_compiler.share_compiler_with_workers(arguments)
    assert starts.requests == [] and shared_compiler._starting is None


def test_four_cores_leave_each_worker_a_server_of_its_own(
    starts: Starts, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shared_compiler, "usable_cpus", lambda: 4)
    assert not shared_compiler.share_compiler_with_workers(["-n", "2"])
    assert starts.requests == []


def test_nothing_to_build_starts_no_server(starts: Starts, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shared_compiler, "first_bound_build", lambda planned: None)
    assert not shared_compiler.share_compiler_with_workers(["-n", "2"])
    assert starts.requests == []


def test_a_fork_waits_until_the_server_has_started(starts: Starts) -> None:
    assert shared_compiler.share_compiler_with_workers(["-n", "2"])
    _armed.append(starts)
    try:
        child = os.fork()
        if child == 0:  # pragma: no cover - reports through its exit status
            os._exit(0 if starts.done.is_set() else 1)
    finally:
        _armed.remove(starts)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0, "the worker was forked mid-start"
