"""lock_project: one doit run per project; a second is told who holds it."""

from __future__ import annotations

import fcntl
import multiprocessing
import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from astest_tasks.core import project_lock
from astest_tasks.core.errors import UserError
from astest_tasks.core.project_lock import lock_project, wait_for_refused_lock
from astest_tasks.plan.command_line import CommandLine


@pytest.fixture(autouse=True)
def no_locks_held(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(project_lock, "_held", {})
    monkeypatch.setattr(project_lock, "_refused", None)


def _try_lock(path: str, results: multiprocessing.Queue[str]) -> None:
    project_lock._held.clear()  # a fresh process, as a second doit would be
    try:
        lock_project(Path(path))
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
    lock_project(lock)
    message = other_process_tries(lock)
    assert message.startswith("another doit (pid ")
    assert "is running in this project" in message and "fix: wait for it" in message


def test_a_lock_file_that_is_a_symbolic_link_is_refused_and_its_target_left_alone(
    tmp_path: Path,
) -> None:
    target = tmp_path / "the users own file.txt"
    target.write_text("precious")
    lock = tmp_path / "my project/.as-test/cache/project.lock"
    lock.parent.mkdir(parents=True)
    lock.symlink_to(target)
    with pytest.raises(UserError) as error:
        lock_project(lock)
    assert str(error.value) == (
        f"{lock} is a symbolic link, where astest-tasks keeps the lock it writes its pid into; "
        f"fix: delete the link (rm '{lock}'): a run makes the file again"
    )
    assert target.read_text() == "precious"
    assert project_lock._held == {}


def test_the_lock_is_free_again_once_its_holder_is_gone(tmp_path: Path) -> None:
    lock = tmp_path / "project.lock"
    assert other_process_tries(lock) == "locked"  # that process has ended: its lock went with it
    assert other_process_tries(lock) == "locked"


def test_the_same_process_may_create_tasks_twice(tmp_path: Path) -> None:
    lock = tmp_path / "project.lock"
    lock_project(lock)
    lock_project(lock)  # two task creators in one dodo: no self-deadlock
    # ...and the second call kept the first one's lock rather than letting it go.
    assert other_process_tries(lock).startswith(f"another doit (pid {os.getpid()})")


@pytest.mark.parametrize(
    "argv", [["list"], ["info", "astest:summary"], ["list", "--db-file", "x"], ["help", "astest"]]
)
def test_commands_that_only_read_take_no_lock(tmp_path: Path, argv: list[str]) -> None:
    lock = tmp_path / "project.lock"
    lock_project(lock, read_only=CommandLine.of(["doit", *argv]).reads_only)
    assert not lock.exists()


def test_a_refused_process_waits_for_the_holder_and_then_keeps_the_lock(tmp_path: Path) -> None:
    lock = tmp_path / "project.lock"
    holder = os.open(lock, os.O_RDWR | os.O_CREAT)  # another open file: flock treats it as a
    fcntl.flock(holder, fcntl.LOCK_EX)  # second holder, as another doit's would be
    living = f"pid {os.getppid()}"  # a process that is there, as a running doit would be
    os.pwrite(holder, living.encode(), 0)
    with pytest.raises(UserError, match=rf"another doit \({living}\)"):
        lock_project(lock)

    announced: list[str] = []
    released_first: list[bool] = []

    def release(who: str) -> None:
        announced.append(who)

        def let_go() -> None:
            released_first.append(True)  # before the lock is free: the waiter cannot be earlier
            os.close(holder)

        threading.Thread(target=let_go).start()

    assert wait_for_refused_lock(release) is True
    assert announced == [living] and released_first == [True]
    lock_project(lock)  # held by this process now: the next task creation passes
    assert other_process_tries(lock).startswith(f"another doit (pid {os.getpid()})")
    assert wait_for_refused_lock(release) is False  # the refusal was waited for once


def test_nothing_is_waited_for_when_no_lock_was_refused(tmp_path: Path) -> None:
    lock_project(tmp_path / "project.lock")
    assert wait_for_refused_lock(lambda who: pytest.fail(f"announced {who}")) is False


def _lock_fork_and_vanish(path: str, results: multiprocessing.Queue[int]) -> None:
    """A doit that takes the lock, forks a worker that outlives it, and is gone."""
    project_lock._held.clear()
    lock_project(Path(path))
    child = os.fork()
    if child == 0:  # the orphan: alive, doing nothing, until the test ends it
        time.sleep(120)
        os._exit(0)
    results.put(child)
    results.close()
    results.join_thread()  # the pid is through the pipe, then:
    os._exit(0)  # no clean-up at all, as after SIGKILL


def test_a_forked_child_that_outlives_the_holder_does_not_keep_the_project_locked(
    tmp_path: Path,
) -> None:
    lock = tmp_path / "project.lock"
    spawn = multiprocessing.get_context("spawn")
    results: multiprocessing.Queue[int] = spawn.Queue()
    holder = spawn.Process(target=_lock_fork_and_vanish, args=(str(lock), results))
    holder.start()
    orphan = results.get(timeout=60)
    try:
        holder.join(30)
        assert holder.exitcode == 0
        os.kill(orphan, 0)  # still there, holding whatever it inherited
        assert other_process_tries(lock) == "locked"
    finally:
        os.kill(orphan, signal.SIGKILL)


def test_a_lock_held_after_its_doit_ended_says_a_process_it_started_holds_it(
    tmp_path: Path,
) -> None:
    lock = tmp_path / "project.lock"
    ended = subprocess.Popen(["true"])
    ended.wait()  # reaped here: its pid names no process (until the system reuses it)
    gone = f"pid {ended.pid}"
    holder = os.open(lock, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(holder, fcntl.LOCK_EX)
        os.pwrite(holder, gone.encode(), 0)
        with pytest.raises(UserError) as refused:
            lock_project(lock)
    finally:
        os.close(holder)
    message = str(refused.value)
    assert message.startswith(f"the doit ({gone}) that locked this project has ended")
    assert f"fuser -v {lock}" in message and "fix: end that process" in message
