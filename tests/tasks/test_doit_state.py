"""doit's state file saved at the end of a run on a full disk: one error line naming the disk and
the fix, for each of doit's backends, with real doit backends on a real tmpfs."""

from __future__ import annotations

import errno
import os
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from doit.dependency import DbmDB, Dependency, JsonDB, SqliteDB
from doit.exceptions import InvalidTask

from astest_tasks.plan.state_file import state_file_problem
from astest_tasks.tasks.doit_state import close_saying_why, state_not_saved
from tests.tmpfs import fill, mounted_tmpfs

BACKENDS = {"sqlite3": SqliteDB, "dbm": DbmDB, "json": JsonDB}
DISK_BYTES = 256 * 1024
LEFT_FREE = 16 * 1024  # enough to open each backend's file, not to save 40 tasks' values
DOITS_TRACEBACK_TEXT = ("Traceback", "Exception ignored")


@pytest.fixture
def disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(tmp_path)  # the error names the folder relative to the project
    with mounted_tmpfs(tmp_path / "disk", DISK_BYTES) as folder:
        yield folder


def with_unsaved_tasks(state: Path, backend: str) -> Dependency:
    """doit's dependency manager after a run of 40 tasks, before it saves them."""
    manager = Dependency(BACKENDS[backend], str(state))
    for number in range(40):
        manager._set(f"astest:run:wasi:spec{number}", "result:", "x" * 2000)
    return manager


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_a_save_on_a_full_disk_is_one_line_naming_the_disk_and_the_fix(
    disk: Path, backend: str
) -> None:
    state = disk / "state"
    manager = with_unsaved_tasks(state, backend)
    close_saying_why(manager)
    fill(disk, leave_bytes=LEFT_FREE)
    with pytest.raises(InvalidTask) as raised:
        manager.close()
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith(
        f"the disk holding disk (the filesystem mounted at {disk.resolve()}) is full (no space "
        "left while doit saved which tasks are up to date, in state); the results and reports "
        "this run wrote are whole; fix: free space on it (or raise your quota)"
    ), message
    if backend == "json":  # doit's json backend writes in place, and left it cut short
        assert state_file_problem(state) is not None
        assert message.endswith(
            f", then delete {state}, which doit left empty or cut short (rm {state}), and run "
            "again: every spec is built and run once more"
        ), message
    else:
        assert state_file_problem(state) is None
        assert message.endswith(" and run again: the tasks this run ran run again"), message


def test_sqlite_keeps_the_state_it_had_before_the_save_that_failed(disk: Path) -> None:
    state = disk / "state"
    earlier = Dependency(SqliteDB, str(state))
    earlier._set("astest:run:wasi:kept", "result:", "earlier")
    earlier.close()
    manager = with_unsaved_tasks(state, "sqlite3")
    close_saying_why(manager)
    fill(disk, leave_bytes=LEFT_FREE)
    with pytest.raises(InvalidTask, match="the tasks this run ran run again"):
        manager.close()
    assert state_file_problem(state) is None
    assert Dependency(SqliteDB, str(state))._get("astest:run:wasi:kept", "result:") == "earlier"


def test_a_save_that_fails_for_another_reason_names_the_file_and_the_error(
    tmp_path: Path,
) -> None:
    state = tmp_path / "state.db"

    class Refusing:
        name = str(state)

        def close(self) -> None:
            raise PermissionError(errno.EACCES, "Permission denied", str(state))

    manager = Refusing()
    close_saying_why(manager)
    with pytest.raises(InvalidTask) as raised:
        manager.close()
    assert str(raised.value) == (
        f"doit could not save which tasks are up to date in {state} ([Errno 13] Permission "
        f"denied: '{state}'); the results and reports this run wrote are whole; fix: make that "
        "file and its folder writable (or name another with --db-file) and run again: the "
        "tasks this run ran run again"
    )
    no_space = OSError(errno.ENOSPC, "No space left on device")
    assert state_not_saved(state, no_space, False).startswith(f"the disk holding {state.parent}")


def test_a_quota_sqlite_reports_as_full_is_told_as_a_full_disk(tmp_path: Path) -> None:
    # Past a quota the disk still shows room, and sqlite says SQLITE_FULL, not an OSError.
    quota = sqlite3.OperationalError("database or disk is full")
    quota.sqlite_errorcode = sqlite3.SQLITE_FULL
    assert state_not_saved(tmp_path / "state", quota, False).startswith(
        f"the disk holding {tmp_path}"
    )
    assert state_not_saved(tmp_path / "state", OSError(errno.EDQUOT, "quota"), False).startswith(
        f"the disk holding {tmp_path}"
    )


def test_a_permission_refused_on_a_nearly_full_disk_is_told_as_refused(disk: Path) -> None:
    fill(disk, leave_bytes=LEFT_FREE)
    refused = PermissionError(errno.EACCES, "Permission denied")
    assert state_not_saved(disk / "state", refused, False).startswith(
        "doit could not save which tasks are up to date"
    )


def test_a_json_save_that_found_no_byte_free_asks_for_the_emptied_file_to_go(disk: Path) -> None:
    state = disk / "state"
    manager = with_unsaved_tasks(state, "json")
    close_saying_why(manager)
    fill(disk, leave_bytes=0)
    with pytest.raises(InvalidTask) as raised:
        manager.close()
    assert state.stat().st_size == 0, "doit's json backend opens the file for writing first"
    assert f"which doit left empty or cut short (rm {state})" in str(raised.value)


def test_a_manager_is_wrapped_once_and_a_save_that_works_is_left_alone(tmp_path: Path) -> None:
    state = tmp_path / "state"
    manager = with_unsaved_tasks(state, "sqlite3")
    close_saying_why(manager)
    wrapped = manager.close
    close_saying_why(manager)
    assert manager.close is wrapped
    manager.close()
    assert Dependency(SqliteDB, str(state))._get("astest:run:wasi:spec0", "result:") == "x" * 2000


def test_a_dbm_save_that_failed_prints_nothing_more_when_python_exits(disk: Path) -> None:
    # dbm's own finaliser tries the save again at exit, and used to print a second traceback.
    script = textwrap.dedent(
        f"""
        import os
        from doit.dependency import DbmDB, Dependency
        from doit.exceptions import InvalidTask
        from astest_tasks.tasks.doit_state import close_saying_why

        manager = Dependency(DbmDB, {str(disk / "state")!r})
        for number in range(40):
            manager._set(f"task{{number}}", "result:", "x" * 2000)
        close_saying_why(manager)
        stats = os.statvfs({str(disk)!r})
        with open({str(disk / "filler")!r}, "wb") as filler:
            filler.write(b"\\0" * (stats.f_bfree * stats.f_frsize - {LEFT_FREE}))
        try:
            manager.close()
        except InvalidTask as error:
            print("ERROR:", error)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ERROR: the disk holding"), done.stdout
    assert not any(text in done.stderr for text in DOITS_TRACEBACK_TEXT), done.stderr


def test_a_json_state_that_could_not_even_be_opened_names_the_real_error(disk: Path) -> None:
    # doit's json backend opens its file inside a try/finally that closes it: a failed open
    # surfaces as an UnboundLocalError, with the real error as its context.
    state = disk / "state.json"
    earlier = Dependency(JsonDB, str(state))
    earlier._set("astest:run:wasi:kept", "result:", "earlier")
    earlier.close()
    kept = state.read_bytes()
    manager = with_unsaved_tasks(state, "json")
    close_saying_why(manager)
    remount = ["mount", "-o", "remount,ro", str(disk)]
    subprocess.run(remount, check=True, stdin=subprocess.DEVNULL)
    try:
        with pytest.raises(InvalidTask) as raised:
            manager.close()
    finally:
        writable = ["mount", "-o", "remount,rw", str(disk)]
        subprocess.run(writable, check=True, stdin=subprocess.DEVNULL)
    assert str(raised.value) == (
        f"doit could not save which tasks are up to date in {state} ([Errno 30] Read-only file "
        f"system: '{state}'); the results and reports this run wrote are whole; fix: mend what "
        "stopped the write (or name another file with --db-file) and run again: the tasks "
        "this run ran run again"
    )
    assert state.read_bytes() == kept, "the file doit could not open is as it was"


def test_an_error_that_is_neither_space_nor_permission_asks_to_mend_what_stopped_it(
    tmp_path: Path,
) -> None:
    locked = sqlite3.OperationalError("database is locked")
    assert state_not_saved(tmp_path / "state", locked, False).endswith(
        "(database is locked); the results and reports this run wrote are whole; fix: mend what "
        "stopped the write (or name another file with --db-file) and run again: the tasks this "
        "run ran run again"
    )
