"""SIGTERM unwinds like Ctrl-C, so that what it interrupts can clean up.

CI systems cancel a job with SIGTERM, whose default action ends the process on the spot: an
atomic write then leaves its temporary file behind and a running external runtime is not
stopped. Raising KeyboardInterrupt instead runs the same ``finally`` blocks and ``except
BaseException`` clean-ups as Ctrl-C does, and doit reports an interrupted run as it does for
Ctrl-C. A handler someone else installed is left alone.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType


def unwind_on_sigterm() -> bool:
    """Install the handler in this process if SIGTERM still has its default action; returns
    whether it is (now) installed. Signal handlers can only be set from the main thread."""
    if threading.current_thread() is not threading.main_thread():
        return False
    current = signal.getsignal(signal.SIGTERM)
    if current is _raise_keyboard_interrupt:
        return True
    if current is not signal.SIG_DFL:
        return False
    signal.signal(signal.SIGTERM, _raise_keyboard_interrupt)
    return True


def _raise_keyboard_interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"stopped by signal {signal.Signals(signum).name}")
