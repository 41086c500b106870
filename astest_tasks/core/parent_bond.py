"""Processes forked from doit end when doit dies, however it dies.

``doit -n N`` forks its workers from the process that holds the project's lock. Killed with
SIGKILL, doit runs no clean-up: its workers would wait on their job queue for ever, and with them
everything whose pipes they hold (the shared compile server sees no end of its stdin), so the
project stayed locked by processes nobody remembered. ``bind_forked_children`` makes every fork
of this process (doit's workers, and their own forks) end with the process that forked it.

The bond is a pipe whose write end only the parent holds: each child closes its copy at once,
and no program started by ``exec`` inherits it (Python's pipes close on exec). When the parent
is gone, however it went, the kernel closes the last write end, and a thread of each child reads
end of file. Unlike Linux's ``PR_SET_PDEATHSIG``, this works on every platform with ``fork`` and
whichever thread forked (the death signal follows the forking thread, not the process).

The child then unwinds as on SIGTERM (core/interrupts.py), so a file it was writing is finished
or removed and what it started ends with it; the signal goes to its main thread, the only one
that runs Python's handlers and whose blocking call (a wait for doit's next job) it must break.
One that has not ended after ``GRACE_S`` is killed.

A program we start and wait for (an external runtime, in a session of its own that no signal to
doit reaches) is bound by ``killed_with_this_thread`` instead: it runs no code of ours.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import signal
import sys
import threading
import time

GRACE_S = 10.0  # to finish a write and end what it started; then it is killed

_bound = False  # the fork hooks are registered (once per process; a fork inherits them)
# This process's bond with its own children: (read end, write end, the process that made it).
_bond: tuple[int, int, int] | None = None
_watched: int | None = None  # the read end of this process's bond with its parent


def bind_forked_children() -> None:
    """From now on, every process forked from this one ends when this one does."""
    global _bound
    if _bound or not hasattr(os, "register_at_fork"):
        return
    _bound = True
    os.register_at_fork(before=_make_bond, after_in_child=_end_with_parent)


def _make_bond() -> None:
    global _bond
    if _bond is None or _bond[2] != os.getpid():
        read_end, write_end = os.pipe()  # neither is inherited across exec
        _bond = (read_end, write_end, os.getpid())


def _end_with_parent() -> None:
    global _bond, _watched
    if _bond is None:
        return
    read_end, write_end, _ = _bond
    _bond = None  # ours to make when this process forks in turn
    os.close(write_end)
    if _watched is not None:  # the grandparent's, inherited from our parent: not ours to watch
        with contextlib.suppress(OSError):
            os.close(_watched)
    _watched = read_end
    threading.Thread(
        target=_watch_parent, args=(read_end,), name="astest-parent-watch", daemon=True
    ).start()


def _watch_parent(read_end: int) -> None:
    try:
        while os.read(read_end, 1):  # nobody writes: this returns at end of file only
            pass
    except OSError:
        return  # the descriptor was closed here: nothing to watch any more
    with contextlib.suppress(ProcessLookupError, OSError):
        signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGTERM)
    time.sleep(GRACE_S)
    os.kill(os.getpid(), signal.SIGKILL)


def killed_with_this_thread() -> list[str]:
    """What to put before a program we start and wait for (an external runtime) so that the
    kernel kills it when the thread that started it ends, and so also when this process is
    killed: ``setpriv --pdeathsig KILL --`` (util-linux) on Linux, which sets
    ``PR_SET_PDEATHSIG`` and then execs the program (the signal follows the starting thread:
    harmless here, since that thread waits for the program). Empty elsewhere, or without
    setpriv, where the program ends when it next reads or writes the pipes of the process that
    is gone.

    Not a ``preexec_fn``: with one, ``subprocess`` forks in a way that runs every fork hook of
    this process in the child before its exec (the scheduler's, this module's), and a hook that
    meets a lock another thread held at the fork (the run ahead's pipe to its helper) waits for
    ever, and doit with it."""
    setpriv = _setpriv()
    return [setpriv, "--pdeathsig", "KILL", "--"] if setpriv is not None else []


@functools.cache
def _setpriv() -> str | None:
    if sys.platform != "linux":
        return None
    return shutil.which("setpriv")
