"""A full disk, told as one error that names it.

A write that finds no space (ENOSPC, or EDQUOT past a quota) must not leave a wrong result
behind: our own writes are atomic (atomic.py), so the file they would have replaced is kept, and
they raise ``DiskFull``. Another program's writes are not ours to see: asc exits 0 after a write
that found no space, leaving an empty or cut-off module. So after a compile we also ask the disk
itself (``is_full``): with (almost) nothing free, what the compiler wrote cannot be trusted.

A ``DiskFull`` is a ``UserError``: its message is one line with the fix, and an action that meets
one fails its doit task, so that the task runs again once there is space (nothing is recorded).
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterator
from pathlib import Path

from astest_tasks.core.errors import UserError

# Less than this free, and a compile's output is not trusted: a write that ran out of space
# fills the disk to its last block, so what is left after one is well below this.
NEARLY_FULL_BYTES = 64 * 1024
_OUT_OF_SPACE = {errno.ENOSPC, errno.EDQUOT}


class DiskFull(UserError, OSError):
    """No space (or quota) left on the disk that holds a folder we write into.

    Also an ``OSError`` (ENOSPC): code that already lets a write fail, because the file is only
    a cache or a convenience (the import scan, a readable log), goes on doing so; what must not
    be lost (a record, a result, a report) lets it through to its action."""

    def __init__(self, message: str) -> None:
        OSError.__init__(self, errno.ENOSPC, message)
        self.message = message

    def __str__(self) -> str:
        return self.message  # the one line, without OSError's "[Errno 28]"

    def __reduce__(self) -> tuple[type[DiskFull], tuple[str]]:
        return (DiskFull, (self.message,))  # a doit worker sends it back whole


@contextlib.contextmanager
def out_of_space_is_disk_full(folder: Path, writing: str) -> Iterator[None]:
    """ENOSPC or EDQUOT inside becomes the one-line ``DiskFull`` naming ``folder``'s disk;
    other errors pass unchanged."""
    try:
        yield
    except OSError as exc:
        if is_out_of_space(exc):
            raise disk_full(folder, writing) from None
        raise


def is_out_of_space(error: OSError) -> bool:
    """Whether a write failed for want of space: ENOSPC, or EDQUOT past a quota."""
    return error.errno in _OUT_OF_SPACE


def disk_full(folder: Path, writing: str) -> DiskFull:
    """The error for ``folder``'s disk, found full while ``writing`` (what we were doing)."""
    return DiskFull(
        f"{disk_named(folder)} is full (no space left while {writing}); "
        "fix: free space on it (or raise your quota) and run again: nothing earlier was "
        "replaced, and what did not finish runs again by itself"
    )


def disk_named(folder: Path) -> str:
    """``folder``'s disk as our errors name it: the folder, and where its filesystem is mounted."""
    return f"the disk holding {_shown(folder)}{_mounted_at(folder)}"


def is_full(folder: Path) -> bool:
    """Whether the disk holding ``folder`` has (almost) no space or no file entries left."""
    try:
        stats = os.statvfs(folder)
    except OSError:
        return False  # not ours to judge: the caller's own checks decide
    # root may write into the blocks reserved for it, and so sees the disk full only later
    free_blocks = stats.f_bfree if os.geteuid() == 0 else stats.f_bavail
    no_entries = stats.f_files > 0 and stats.f_favail == 0
    return free_blocks * stats.f_frsize < NEARLY_FULL_BYTES or no_entries


def _mounted_at(folder: Path) -> str:
    """Where the filesystem holding ``folder`` is mounted, as words to add to its name: the
    folder alone does not say whether it is the whole machine's disk that is full."""
    try:
        place = folder.resolve()
        device = place.stat().st_dev
        while place.parent != place and place.parent.stat().st_dev == device:
            place = place.parent
    except OSError:
        return ""
    return f" (the filesystem mounted at {place})"


def _shown(folder: Path) -> str:
    """``folder`` relative to the working directory (the project) when inside it."""
    try:
        return str(folder.resolve().relative_to(Path.cwd().resolve())) or "."
    except (ValueError, OSError):
        return str(folder)
