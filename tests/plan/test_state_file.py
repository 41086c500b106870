"""The doit state file check: which files a doit backend can open, told from hand-made bytes;
and a state file doit would have to create on a full disk (a real tmpfs)."""

from __future__ import annotations

import dbm.dumb
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from astest_tasks.core.disk_space import is_full
from astest_tasks.core.errors import UserError
from astest_tasks.plan.state_file import (
    backend_from_argv,
    check_state_file,
    state_file_from_argv,
    state_file_named,
    state_file_problem,
)
from tests.fifo_guard import fifo_symlink, without_waiting
from tests.tmpfs import fill, mounted_tmpfs


def _sqlite_db(path: Path) -> Path:
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE doit (task_id TEXT PRIMARY KEY, task_data TEXT)")
        connection.executemany(
            "INSERT INTO doit VALUES (?, ?)", [(f"t{i}", "x" * 500) for i in range(200)]
        )
    connection.close()
    return path


def test_readable_states_pass(tmp_path: Path) -> None:
    assert state_file_problem(tmp_path / "missing.db") is None
    assert state_file_problem(_sqlite_db(tmp_path / "real.db")) is None
    (tmp_path / "empty.db").write_bytes(b"")
    assert state_file_problem(tmp_path / "empty.db") is None
    (tmp_path / "state.json").write_text('{"astest:run:wasi:a": {}}')
    assert state_file_problem(tmp_path / "state.json") is None


def test_a_dbm_state_is_left_to_doit(tmp_path: Path) -> None:
    with dbm.dumb.open(str(tmp_path / "state"), "c") as db:
        db[b"k"] = b"v"
    assert state_file_problem(tmp_path / "state") is None


def test_garbage_is_not_a_database(tmp_path: Path) -> None:
    path = tmp_path / ".doit.db"
    path.write_bytes(b"<<<<<<< HEAD\n" + bytes(range(256)))
    assert state_file_problem(path) == "file is not a database"


def test_a_truncated_sqlite_file_is_corrupt(tmp_path: Path) -> None:
    path = _sqlite_db(tmp_path / ".doit.db")
    whole = path.read_bytes()
    path.write_bytes(whole[: len(whole) // 3])
    problem = state_file_problem(path)
    assert problem is not None and "malformed" in problem
    assert path.read_bytes() == whole[: len(whole) // 3], "the check must not repair or write"


def test_a_sqlite_header_over_garbage_is_corrupt(tmp_path: Path) -> None:
    path = tmp_path / ".doit.db"
    path.write_bytes(b"SQLite format 3\x00" + b"\xff" * 200)
    assert state_file_problem(path)


def test_broken_json_is_named(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    path.write_text('{"astest:run:wasi:a": ')
    problem = state_file_problem(path)
    assert problem is not None and problem.startswith("not valid JSON")


def test_the_error_names_the_file_and_the_fix(tmp_path: Path) -> None:
    path = tmp_path / ".doit.db"
    path.write_bytes(b"garbage")
    with pytest.raises(UserError) as raised:
        check_state_file(path)
    message = str(raised.value)
    assert str(path) in message and f"rm {path}" in message and "fix:" in message


@pytest.fixture
def full_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A tmpfs of 256 KiB for a test to fill, the working folder beside it."""
    monkeypatch.chdir(tmp_path)
    with mounted_tmpfs(tmp_path / "disk", 256 * 1024) as folder:
        yield folder


def test_a_state_file_doit_would_create_on_a_full_disk_is_named_with_the_fix(
    full_disk: Path,
) -> None:
    for name, empty in [("missing.db", False), ("empty.db", True)]:
        if empty:
            (full_disk / name).write_bytes(b"")
        filler = fill(full_disk, leave_bytes=16 * 1024)
        check_state_file(full_disk / name)  # a guessed name: the real file may be elsewhere
        with pytest.raises(UserError) as raised:
            check_state_file(full_disk / name, certain=True)
        assert str(raised.value) == (
            f"the disk holding disk (the filesystem mounted at {full_disk.resolve()}) is full, "
            "and doit cannot create its record of which tasks are up to date "
            f"({full_disk / name}) there; fix: free space on it (or raise your quota) and run "
            "again"
        )
        filler.unlink()
        check_state_file(full_disk / name, certain=True)  # with room, doit creates it itself


def test_a_state_file_that_exists_is_not_stopped_by_a_full_disk(full_disk: Path) -> None:
    sqlite_state = _sqlite_db(full_disk / "sqlite.db")
    with dbm.dumb.open(str(full_disk / "dbm.db"), "c") as database:
        database[b"astest:run:wasi:a"] = b"{}"
    fill(full_disk, leave_bytes=16 * 1024)
    assert is_full(full_disk), "the check must meet a full disk"
    check_state_file(sqlite_state, certain=True)
    check_state_file(full_disk / "dbm.db", certain=True)  # kept as dbm.db.dat and dbm.db.dir


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        ([], ".doit.db"),
        (["list", "--all"], ".doit.db"),
        (["--db-file", "x.db", "list"], "x.db"),
        (["--db-file=y.db"], "y.db"),
        (["run", "--db-file"], ".doit.db"),
        # doit's parse keeps the last, and so opens b.db
        (["--db-file", "a.db", "--db-file", "b.db"], "b.db"),
        (["--db-file=a.db", "--db-file", "b.db"], "b.db"),
    ],
)
def test_the_state_file_comes_from_doits_option(argv: list[str], expected: str) -> None:
    assert state_file_from_argv(argv) == expected


def test_an_empty_file_is_corrupt_only_to_doits_json_backend(tmp_path: Path) -> None:
    path = tmp_path / ".doit.db"
    path.write_bytes(b"")
    assert state_file_problem(path) is None
    assert state_file_problem(path, "sqlite3") is None
    assert state_file_problem(path, "json") == (
        "empty, where doit's json backend needs a JSON object"
    )
    with pytest.raises(UserError, match=r"is corrupt: empty, where doit's json backend"):
        check_state_file(path, "json")


def test_sqlites_in_memory_state_is_never_stopped_by_a_full_disk(
    full_disk: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(full_disk)
    fill(full_disk, leave_bytes=16 * 1024)
    with pytest.raises(UserError, match=r"is full, and doit cannot create"):
        check_state_file(Path(".doit.db"), "sqlite3", certain=True)
    check_state_file(Path(":memory:"), "sqlite3", certain=True)


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        ([], "dbm"),
        (["--backend", "json"], "json"),
        (["run", "--backend=sqlite3", "astest"], "sqlite3"),
        (["--backend", "json", "--backend=sqlite3"], "sqlite3"),
    ],
)
def test_the_backend_comes_from_doits_option(argv: list[str], expected: str) -> None:
    assert backend_from_argv(argv) == expected


@pytest.mark.parametrize(
    ("argv", "named"),
    [([], False), (["--db-file", "x.db"], True), (["list", "--db-file=x.db"], True)],
)
def test_the_state_file_is_certain_only_when_doits_command_line_names_it(
    argv: list[str], named: bool
) -> None:
    assert state_file_named(argv) is named


def test_a_state_file_that_is_a_fifo_is_named_instead_of_waited_on(tmp_path: Path) -> None:
    # A link committed in its place, to a FIFO (or to /proc/self/fd/1 with stdout piped, as in
    # CI), on which doit's backends would wait for ever.
    state = tmp_path / ".doit.db"
    fifo = fifo_symlink(state)

    def check() -> str:
        with pytest.raises(UserError) as error:
            check_state_file(state, "sqlite3")
        return str(error.value)

    message = without_waiting(check, fifo)
    assert "is corrupt: it is not a regular file (a FIFO or a device, or a link to one)" in message
    assert f"fix: delete it (rm {state})" in message


def test_a_state_file_reached_through_a_link_is_read_as_doit_reads_it(tmp_path: Path) -> None:
    (tmp_path / "kept").mkdir()
    real = _sqlite_db(tmp_path / "kept/state.db")
    (tmp_path / ".doit.db").symlink_to(real)
    assert state_file_problem(tmp_path / ".doit.db", "sqlite3") is None
    (tmp_path / "folder.db").mkdir()
    assert state_file_problem(tmp_path / "folder.db") is None  # doit's own error to report
