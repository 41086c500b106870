"""Processes forked from doit end when doit dies, however it dies.

``doit -n N`` forks its workers from the process that holds the project's lock. Killed with
SIGKILL, doit runs no clean-up: its workers would wait on their job queue for ever, and with them
everything whose pipes they hold (the shared compile server sees no end of its stdin), so the
project stayed locked by processes nobody remembered. ``bind_forked_children`` makes every fork
of this process (doit's workers, and their own forks) end with the process that forked it.

- On Linux the kernel signals the child when its parent dies (``prctl(PR_SET_PDEATHSIG)``);
  strictly, when the parent's *thread* that forked it ends, so it is asked for only for a fork
  made by the main thread, whose end is the process's end.
- Elsewhere, or for a fork from another thread, a daemon thread of the child checks every
  ``POLL_S`` whether its parent is still the process that forked it.

The signal is SIGTERM: the child unwinds as it does on Ctrl-C (core/interrupts.py), so a file it
was writing is finished or removed, and what it started ends with it.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time
from collections.abc import Callable

POLL_S = 0.5  # how late a child may notice, where the kernel does not tell it
_PR_SET_PDEATHSIG = 1  # linux/prctl.h

_bound = False  # the fork hooks are registered (once per process; a fork inherits them)
_forker: tuple[int, bool] = (0, False)  # the forking process and whether its main thread forks
_prctl: Callable[..., int] | None = None  # libc's prctl, looked up before any fork


def bind_forked_children() -> None:
    """From now on, every process forked from this one ends when this one does."""
    global _bound, _prctl
    if _bound or not hasattr(os, "register_at_fork"):
        return
    _bound = True
    if sys.platform == "linux":
        try:  # looked up now: a forked child should not load libraries
            _prctl = ctypes.CDLL(None, use_errno=True).prctl
        except (OSError, AttributeError):
            _prctl = None
    os.register_at_fork(before=_note_forker, after_in_child=_end_with_parent)


def _note_forker() -> None:
    global _forker
    _forker = (os.getpid(), threading.current_thread() is threading.main_thread())


def _end_with_parent() -> None:
    parent, from_main_thread = _forker
    if from_main_thread and _prctl is not None and _prctl(_PR_SET_PDEATHSIG, signal.SIGTERM) == 0:
        # The parent may have died between the fork and the prctl: then nobody will signal us.
        if os.getppid() != parent:
            os.kill(os.getpid(), signal.SIGTERM)
        return
    threading.Thread(
        target=_watch_parent, args=(parent,), name="astest-parent-watch", daemon=True
    ).start()


def _watch_parent(parent: int) -> None:
    # An orphan is adopted by init or a subreaper: its parent pid changes, and never back.
    while os.getppid() == parent:
        time.sleep(POLL_S)
    os.kill(os.getpid(), signal.SIGTERM)
