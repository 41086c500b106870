"""The one door through which we read our own state files: the caches, build records, results
and reports' state under the output folders (``.as-test/`` by default), and the files a doit
call's processes leave each other there.

They are ours, but they sit where a pull request can commit anything, and CI runs on what it
commits. Our writes (core/atomic.py) always leave a regular file under its name, never a symlink,
so anything else found there is not ours and reads as absent: the caller builds, runs or scans
again, or goes without, as it does for a missing file. That covers a symlink (to a FIFO, or to
``/proc/self/fd/1`` with stdout piped, which a plain read waits on for ever; or to a file outside
the project, whose text must reach no report, key or remote cache), a FIFO, a device, a folder,
and a file larger than the caller's cap. The checks are those of project_source.py's
``read_regular_file``: opened without following a last symlink and without blocking, the kind
and size checked before a byte is read. (A symlinked output folder is the output folders' own
check, made when a call is planned.)
"""

from __future__ import annotations

import os
from pathlib import Path

from astest_tasks.core.project_source import (
    NotReadable,
    open_regular_file,
    read_regular_file_with_status,
)

__all__ = ["MAX_STATE_BYTES", "read_state_file", "read_state_file_with_status", "read_state_line"]

# Far past any state file we write (the largest, a result of the 360,006-test bench's specs,
# is 3.4 MiB), yet small enough that a planted file cannot fill the memory of a CI runner.
MAX_STATE_BYTES = 256 * 2**20


def read_state_file(path: Path, max_bytes: int = MAX_STATE_BYTES) -> bytes | None:
    """The bytes of our state file ``path``; None when it is missing, unreadable, or not a
    regular file of at most ``max_bytes`` under that very name (a symlink is not one)."""
    read = read_state_file_with_status(path, max_bytes)
    return None if read is None else read[0]


def read_state_file_with_status(
    path: Path, max_bytes: int = MAX_STATE_BYTES
) -> tuple[bytes, os.stat_result] | None:
    """``read_state_file``, with the status of the very file read (taken before reading, so a
    write during the read shows as a newer file next time, never as this one)."""
    try:
        return read_regular_file_with_status(path, max_bytes)
    except (OSError, NotReadable):
        return None


def read_state_line(path: Path, max_bytes: int = MAX_STATE_BYTES) -> bytes | None:
    """The first line of our state file ``path`` (with its newline, if it has one), the rest left
    unread; None as for ``read_state_file``, or when the line is longer than ``max_bytes``."""
    try:
        descriptor, _ = open_regular_file(path, max_bytes)
    except (OSError, NotReadable):
        return None
    try:
        file = os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise
    try:
        with file:
            line = file.readline(max_bytes + 1)
    except OSError:
        return None
    return line if len(line) <= max_bytes else None
