"""A corrupt doit state file is named in one line, before doit trips over it with a traceback.

doit opens its state file (``.doit.db``) after importing the dodo file and before loading any
task, and its sqlite backend lets ``sqlite3.DatabaseError`` escape as a traceback. The dodo
import is the last moment our code runs before that, so the check runs there. Only the
dependency file doit is about to open is read, and nothing is written: deleting it is the
user's call, and it costs one rebuild and re-run of every spec, never a result or a snapshot.
A state file doit would have to create on a full disk is named there too, when its name is
certain (``--db-file``, or the ``astest`` command): doit's sqlite backend fails to create it and
calls it corrupted, with a traceback. (A save that fails when the run ends is
tasks/doit_state.py's.)
"""

from __future__ import annotations

import dbm
import os
import sqlite3
import stat
from collections.abc import Sequence
from contextlib import closing
from pathlib import Path

from astest_tasks.core.disk_space import disk_named, is_full
from astest_tasks.core.errors import UserError
from astest_tasks.core.json_text import parse_json
from astest_tasks.plan.doit_argv import dodo_config, option_value

DEFAULT_STATE_FILE = ".doit.db"  # doit's own default for --db-file
_SQLITE_HEADER = b"SQLite format 3\x00"
_SQLITE_IN_MEMORY = ":memory:"  # a --db-file sqlite keeps in memory: nothing on disk


def state_file_from_argv(arguments: Sequence[str]) -> str:
    """The state file doit will open: its ``--db-file`` option, else the dodo's ``dep_file``
    (when DOIT_CONFIG is defined before the task creator is made), else doit's default."""
    given = option_value(arguments, "--db-file")
    return given or str(dodo_config(arguments).get("dep_file") or DEFAULT_STATE_FILE)


def backend_from_argv(arguments: Sequence[str]) -> str:
    """The backend doit will open it with: ``--backend``, else the dodo's (when known), else
    doit's default, ``dbm``."""
    given = option_value(arguments, "--backend")
    return given or str(dodo_config(arguments).get("backend") or "dbm")


# Files found readable in this process. Every task creator a dodo makes checks when it is made
# (and the astest command's loader too), all before doit opens the file once: read it once.
_READABLE: set[str] = set()


def state_file_named(arguments: Sequence[str]) -> bool:
    """Whether doit's command line names the state file (``--db-file``). Otherwise the file may
    be another than the one ``state_file_from_argv`` guesses: a DOIT_CONFIG defined after the
    task creator is made, or a ``dep_file`` in doit.cfg or pyproject.toml."""
    return option_value(arguments, "--db-file") is not None


def check_state_file(path: Path, backend: str = "", *, certain: bool = False) -> None:
    """Raise UserError when ``path`` exists but no doit backend (or not ``backend``, when
    known) can read it; and, when ``path`` is ``certain`` to be the file doit opens, when doit
    would have to create it on a full disk (a guessed name must not stop a call whose real
    state file is elsewhere, with room)."""
    if str(path) == _SQLITE_IN_MEMORY:
        return
    key = os.path.abspath(path)
    if key not in _READABLE:
        problem = state_file_problem(path, backend)
        if problem:
            raise UserError(
                f"{path} (doit's record of which tasks are up to date) is corrupt: {problem}; "
                f"fix: delete it (rm {path}) and run again; every spec is then built and run "
                "once more, and no result, snapshot or config is lost"
            )
        _READABLE.add(key)
    if certain and _to_be_created(path) and is_full(path.parent):
        # doit's sqlite backend would fail to create it and call it "corrupted", with a
        # traceback; and a run with no state to go on builds everything, which cannot fit.
        raise UserError(
            f"{disk_named(path.parent)} is full, and doit cannot create its record of which "
            f"tasks are up to date ({path}) there; fix: free space on it (or raise your quota) "
            "and run again"
        )


def _to_be_created(path: Path) -> bool:
    """Whether doit finds no state at ``path``: no file, an empty one, and no dbm files under
    that name (doit's dbm backend keeps ``path.dat`` and ``path.dir``, or ``path.db``)."""
    try:
        if path.stat().st_size > 0:
            return False
    except OSError:
        pass
    return not dbm.whichdb(str(path))


def state_file_problem(path: Path, backend: str = "") -> str | None:
    """Why no doit backend (sqlite3, dbm, json) can open ``path``, or None when one can; with
    ``backend`` given, an empty file is judged by that backend."""
    try:
        head = _head(path)
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None  # doit creates a missing file; a folder is doit's own error to report
    except OSError as exc:
        return f"cannot be read ({exc.strerror})"
    if head is None:
        # A FIFO there (or a link to one, or to /proc/self/fd/1 with stdout piped, as in CI):
        # doit's backends would wait on it for ever.
        return "it is not a regular file (a FIFO or a device, or a link to one)"
    if not head:
        # A fresh database to sqlite; doit's json backend cannot read it (a save of its that
        # found the disk full leaves it so: tasks/doit_state.py).
        return "empty, where doit's json backend needs a JSON object" if backend == "json" else None
    if head == _SQLITE_HEADER:
        return _sqlite_problem(path)
    if dbm.whichdb(str(path)):
        return None  # a dbm file: doit's dbm backend reports its own damage clearly
    if head.lstrip()[:1] == b"{":
        return _json_problem(path)
    return "file is not a database"


def _head(path: Path) -> bytes | None:
    """The file's first bytes, opened without waiting (a link to a file is followed, as doit
    follows it); None when it is not a regular file."""
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    with os.fdopen(descriptor, "rb") as handle:
        kind = os.fstat(descriptor).st_mode
        if stat.S_ISDIR(kind):
            raise IsADirectoryError(path)
        if not stat.S_ISREG(kind):
            return None
        return handle.read(len(_SQLITE_HEADER))


def _sqlite_problem(path: Path) -> str | None:
    try:
        # Read-only, so that checking never creates or changes anything.
        with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as connection:
            verdict = connection.execute("PRAGMA quick_check").fetchone()
    except sqlite3.DatabaseError as exc:
        return str(exc)
    if verdict and verdict[0] != "ok":
        return f"sqlite reports {verdict[0]}"
    return None


def _json_problem(path: Path) -> str | None:
    try:
        parse_json(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        return f"not valid JSON ({exc})"
    return None
