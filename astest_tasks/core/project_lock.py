"""One doit run at a time per project: a second one says which process holds the project.

Two runs at once would build into the same files and race on doit's state. The lock is an
exclusive ``flock`` on ``<output root>/cache/project.lock``, taken when the tasks are created and
held until the process ends. The kernel releases it when its descriptor closes, so a holder that
is gone, however it went, never blocks: the descriptor is held by this process alone. No program
we start inherits it (``os.open`` makes it close on exec), and doit's ``-n`` workers, forked from
this process, close their copy at once (a worker left behind by a doit killed with SIGKILL kept
the project locked); they also end with doit (core/parent_bond.py). Commands that only read
(``doit list``, ``doit info``, …) do not take it. ``astest --watch``, refused at its first cycle,
waits for the holder to end (``wait_for_refused_lock``) instead of watching a project it could
not load.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Callable
from pathlib import Path

from astest_tasks.core.errors import UserError

try:
    import fcntl
except ImportError:  # Windows: no flock, no lock
    fcntl = None  # type: ignore[assignment]

_held: dict[str, int] = {}  # lock path -> open descriptor, for this process's lifetime
_refused: Path | None = None  # the lock this process was refused last, until it is waited for
_fork_hook = False  # forked children close the lock's descriptors (registered once)


def lock_project(lock_path: Path, *, read_only: bool = False) -> None:
    """Take the project's lock, or raise UserError naming the process that holds it; a call
    that only reads (``CommandLine.reads_only``) takes none."""
    global _refused
    if fcntl is None or read_only:
        return
    key = str(lock_path.resolve())
    if key in _held:
        return  # a second task creator of the same doit process (two instances in one dodo)
    fd = _open(lock_path)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = _holder(fd)
        os.close(fd)
        _refused = lock_path
        raise UserError(_refusal(holder, lock_path)) from None
    _hold(key, fd)


def _refusal(holder: str, lock_path: Path) -> str:
    if _has_ended(holder):
        # Only a process it started can hold the lock now: one forked by a doit older than this
        # fix, or a program that was handed the descriptor. It must be found, not waited for.
        return (
            f"the doit ({holder}) that locked this project has ended, but a process it started "
            f"still holds {lock_path}; fix: end that process (`fuser -v {lock_path}` names it), "
            "then run again"
        )
    return (
        f"another doit ({holder}) is running in this project and holds {lock_path}; fix: "
        "wait for it to finish or stop it, then run again"
    )


def _has_ended(holder: str) -> bool:
    """Whether the process named "pid N" in the lock file is gone (unknown: False)."""
    number = holder.removeprefix("pid ")
    if not number.isdigit():
        return False
    try:
        os.kill(int(number), 0)
    except ProcessLookupError:
        return True
    except OSError:  # alive, someone else's
        return False
    return False


def wait_for_refused_lock(announce: Callable[[str], None]) -> bool:
    """When this process was refused the project's lock, tell ``announce`` who holds it, block
    until that process lets go, and keep the lock from then on (the next task creation finds
    it held). False when no lock was refused. Ctrl-C or SIGTERM interrupt the wait."""
    global _refused
    lock_path, _refused = _refused, None
    if fcntl is None or lock_path is None:
        return False
    fd = _open(lock_path)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            announce(_holder(fd))
            fcntl.flock(fd, fcntl.LOCK_EX)  # flock waits on the kernel's word, not a poll
    except BaseException:
        os.close(fd)
        raise
    _hold(str(lock_path.resolve()), fd)
    return True


def _open(lock_path: Path) -> int:
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    try:
        # Never through a link: taking the lock empties the file and writes our pid into it,
        # and a link committed into the project could point at any file of the user's.
        return os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o666)
    except OSError as error:
        if error.errno != errno.ELOOP:
            raise
        import shlex  # only this error needs it (issue 40)

        raise UserError(
            f"{lock_path} is a symbolic link, where astest-tasks keeps the lock it writes its "
            f"pid into; fix: delete the link (rm {shlex.quote(str(lock_path))}): a run makes "
            "the file again"
        ) from None


def _holder(fd: int) -> str:
    return os.pread(fd, 64, 0).decode(errors="replace").strip() or "another process"


def _hold(key: str, fd: int) -> None:
    global _fork_hook
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"pid {os.getpid()}".encode(), 0)
    _held[key] = fd  # released when the process ends
    if not _fork_hook and hasattr(os, "register_at_fork"):
        _fork_hook = True
        os.register_at_fork(after_in_child=_let_go_in_child)


def _let_go_in_child() -> None:
    """In a forked child: close our copies. The lock stays held by the parent (a flock lives
    while any descriptor of it is open, and is only given up by the last close or an unlock),
    and is released the moment the parent ends, whatever the child does then."""
    for fd in _held.values():
        with contextlib.suppress(OSError):
            os.close(fd)
    _held.clear()
