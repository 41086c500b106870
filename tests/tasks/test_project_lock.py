"""lock_project: one doit run per project; a second is told who holds it."""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path

import pytest

from astest_tasks.core.errors import UserError
from astest_tasks.tasks import project_lock
from astest_tasks.tasks.project_lock import lock_project


@pytest.fixture(autouse=True)
def no_locks_held(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(project_lock, "_held", {})


def _try_lock(path: str, results: multiprocessing.Queue[str]) -> None:
    project_lock._held.clear()  # a fresh process, as a second doit would be
    try:
        lock_project(Path(path), ["astest"])
    except UserError as exc:
        results.put(str(exc))
    else:
        results.put("locked")


def other_process_tries(path: Path) -> str:
    spawn = multiprocessing.get_context("spawn")  # a process that inherits no lock of ours
    results: multiprocessing.Queue[str] = spawn.Queue()
    worker = spawn.Process(target=_try_lock, args=(str(path), results))
    worker.start()
    outcome = results.get(timeout=60)
    worker.join(30)
    return outcome


def test_a_second_run_is_refused_naming_the_first(tmp_path: Path) -> None:
    lock = tmp_path / ".as-test/cache/project.lock"
    lock_project(lock, ["astest"])
    message = other_process_tries(lock)
    assert message.startswith("another doit (pid ")
    assert "is running in this project" in message and "fix: wait for it" in message


def test_the_lock_is_free_again_once_its_holder_is_gone(tmp_path: Path) -> None:
    lock = tmp_path / "project.lock"
    assert other_process_tries(lock) == "locked"  # that process has ended: its lock went with it
    assert other_process_tries(lock) == "locked"


def test_the_same_process_may_create_tasks_twice(tmp_path: Path) -> None:
    lock = tmp_path / "project.lock"
    lock_project(lock, ["astest"])
    lock_project(lock, ["astest"])  # two task creators in one dodo: no self-deadlock
    # ...and the second call kept the first one's lock rather than letting it go.
    assert other_process_tries(lock).startswith(f"another doit (pid {os.getpid()})")


@pytest.mark.parametrize(
    "argv", [["list"], ["info", "astest:summary"], ["list", "--db-file", "x"], ["help", "astest"]]
)
def test_commands_that_only_read_take_no_lock(tmp_path: Path, argv: list[str]) -> None:
    lock = tmp_path / "project.lock"
    lock_project(lock, argv)
    assert not lock.exists()
