"""doit's own state file, saved when a run ends: a save that fails is one error line, not a
traceback.

doit keeps which tasks are up to date in one file (``.doit.db``, or ``--db-file``) and writes it
once, when the run ends (``Dependency.close``, from its runner's ``finish``). On a full disk that
write fails, and doit printed the backend's traceback (sqlite's "database or disk is full", or
dbm's ``OSError``) and exited 3. No result is wrong by then: each build record, result and report
of the run was written atomically, whole or not at all. doit's file is another matter: sqlite
rolls the save back and keeps the file as it was, and Python's dumb dbm may lose what it held
(more tasks run again), so the next run finds the tasks this one ran out of date and runs them
again; doit's json backend opens the file for writing first, which empties it, and leaves it
empty or cut short, which the next run would stop on, so the line asks for it to be deleted.

doit registers its dependency manager as ``Globals.dep_manager`` before it loads the tasks, so
the task creator puts ``close_saying_why`` in front of its ``close`` in a call that runs tasks
(``doit``, ``doit run``, ``astest``, each cycle of watch mode), whatever then runs or fails. The
error is doit's own ``InvalidTask``, which doit prints as one ``ERROR:`` line and exits 3 for, as
it did, now with no traceback. As with the traceback, doit then skips what its ``finish`` does
after the save: tasks' teardowns and its reporter's end of run (a json reporter's whole output).
doit's other commands that save the file (``forget``, ``ignore``, ``clean``, ``reset-dep``) keep
doit's own report: the words here are about a run.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from doit.dependency import JsonDB
from doit.exceptions import InvalidTask

from astest_tasks.core.disk_space import disk_named, is_full, is_out_of_space
from astest_tasks.plan.state_file import state_file_problem

_WRAPPED = "_astest_close_says_why"  # set on a manager whose close is already ours


def close_saying_why(dep_manager: Any) -> None:
    """Make ``dep_manager.close`` raise a one-line ``InvalidTask`` when the save fails."""
    if dep_manager is None or getattr(dep_manager, _WRAPPED, False):
        return
    close: Callable[[], None] = dep_manager.close
    state_file = Path(str(getattr(dep_manager, "name", ".doit.db")))
    rewritten_in_place = isinstance(getattr(dep_manager, "backend", None), JsonDB)

    def close_or_say_why() -> None:
        try:
            close()
        except Exception as exc:  # any backend's error: sqlite3, dbm, json, an OSError
            _let_go(dep_manager)
            problem = state_file_problem(state_file, "json" if rewritten_in_place else "")
            error = _underlying(exc)
            raise InvalidTask(state_not_saved(state_file, error, bool(problem))) from None

    dep_manager.close = close_or_say_why
    setattr(dep_manager, _WRAPPED, True)


def state_not_saved(state_file: Path, error: BaseException, left_unreadable: bool) -> str:
    """The one line for a save of ``state_file`` that failed with ``error``; ``left_unreadable``:
    the save emptied the file or cut it short."""
    done = "the results and reports this run wrote are whole"
    if left_unreadable:
        again = (
            f", then delete {state_file}, which doit left empty or cut short (rm {state_file}), "
            "and run again: every spec is built and run once more"
        )
    else:
        again = " and run again: the tasks this run ran run again"
    if _out_of_space(error) or (is_full(state_file.parent) and not _refused(error)):
        return (
            f"{disk_named(state_file.parent)} is full (no space left while doit saved which "
            f"tasks are up to date, in {state_file.name}); {done}; fix: free space on it (or "
            f"raise your quota){again}"
        )
    if _refused(error):
        fix = "make that file and its folder writable (or name another with --db-file)"
    else:  # sqlite's lock, an I/O error: the error in brackets says what
        fix = "mend what stopped the write (or name another file with --db-file)"
    return (
        f"doit could not save which tasks are up to date in {state_file} ({error}); {done}; "
        f"fix: {fix}{again}"
    )


def _underlying(error: Exception) -> BaseException:
    """The error that stopped the save: doit's json backend opens its file inside a
    ``try``/``finally`` that closes it, so a failed open surfaces as an ``UnboundLocalError``
    with the real error as its context."""
    if isinstance(error, UnboundLocalError) and error.__context__ is not None:
        return error.__context__
    return error


def _out_of_space(error: BaseException) -> bool:
    if isinstance(error, OSError):
        return is_out_of_space(error)
    # sqlite reports a full disk (or a quota) as its own error code, not as an OSError
    return _sqlite_code(error) == sqlite3.SQLITE_FULL


def _refused(error: BaseException) -> bool:
    """A permission refused is that, also on a disk that happens to be nearly full."""
    if isinstance(error, PermissionError):
        return True
    codes = (sqlite3.SQLITE_READONLY, sqlite3.SQLITE_PERM, sqlite3.SQLITE_CANTOPEN)
    return _sqlite_code(error) in codes


def _sqlite_code(error: BaseException) -> int | None:
    """sqlite's primary result code for an error sqlite raised (an extended code's low byte)."""
    code = getattr(error, "sqlite_errorcode", None) if isinstance(error, sqlite3.Error) else None
    return code & 0xFF if isinstance(code, int) else None


def _let_go(dep_manager: Any) -> None:
    """Close a dbm file whose save failed, quietly: its finaliser would try the save again when
    Python exits, and print a second traceback ("Exception ignored in ...")."""
    database = getattr(getattr(dep_manager, "backend", None), "_dbm", None)
    close = getattr(database, "close", None)
    if callable(close):
        with contextlib.suppress(Exception):
            close()
