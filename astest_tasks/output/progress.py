"""How many specs have finished so far in this doit invocation, counted across its workers.

Under ``doit -n N`` the run tasks execute in N worker processes (or threads with ``-P thread``),
so no variable in memory sees them all. The count lives in a small file under the output root,
guarded by an exclusive ``flock`` on a lock file beside it, and is tagged with the invocation's
session id so that a new ``doit`` starts from zero whatever an earlier (perhaps killed) one left.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from astest_tasks.core.atomic import write_text_atomic
from astest_tasks.core.json_text import parse_json
from astest_tasks.core.state_files import read_state_file

_MAX_COUNTER_BYTES = 4096  # {"session": ..., "finished": N} is some 60 bytes

try:
    import fcntl
except ImportError:  # Windows: no flock; callers fall back to the spec's place among the tasks
    fcntl = None  # type: ignore[assignment]


@contextmanager
def finished_count(counter_path: Path, session: str) -> Iterator[int | None]:
    """Record one more finished spec for ``session`` and give how many have finished, this one
    included, or None when no count can be kept here (no flock, unwritable folder).

    The lock is held until the block ends, so a line printed inside it cannot overtake the line
    of the spec counted before it.
    """
    lock_fd = _open_lock(counter_path)
    if lock_fd is None:
        yield None
        return
    try:
        yield _increment(counter_path, session, lock_fd)
    finally:
        os.close(lock_fd)  # closing releases the lock


def _open_lock(counter_path: Path) -> int | None:
    if fcntl is None:
        return None
    try:
        counter_path.parent.mkdir(parents=True, exist_ok=True)
        # Never through a symlink: one committed in its place must not create or open a file
        # elsewhere (the open fails, and no count is kept).
        flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
        return os.open(counter_path.with_name(counter_path.name + ".lock"), flags, 0o666)
    except OSError:
        return None


def _increment(counter_path: Path, session: str, lock_fd: int) -> int | None:
    try:
        fcntl.flock(lock_fd, fcntl.LOCK_EX)
        finished = _finished_so_far(counter_path, session) + 1
        write_text_atomic(counter_path, json.dumps({"session": session, "finished": finished}))
    except OSError:
        return None
    return finished


def _finished_so_far(counter_path: Path, session: str) -> int:
    # Another invocation's count, none yet, or a file not ours to read (core/state_files.py):
    # this session starts at 0.
    text = read_state_file(counter_path, _MAX_COUNTER_BYTES)
    try:
        state = None if text is None else parse_json(text)
    except ValueError:
        return 0
    if isinstance(state, dict) and state.get("session") == session:
        finished = state.get("finished")
        if isinstance(finished, int) and finished >= 0:
            return finished
    return 0
