"""SIGTERM unwinds like Ctrl-C, so that what it interrupts can clean up.

CI systems cancel a job with SIGTERM, whose default action ends the process on the spot: an
atomic write then leaves its temporary file behind and a running external runtime is not
stopped. Raising KeyboardInterrupt instead runs the same ``finally`` blocks and ``except
BaseException`` clean-ups as Ctrl-C does, and doit reports an interrupted run as it does for
Ctrl-C. A handler someone else installed is left alone.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType, TracebackType

INTERRUPTED_MESSAGE = (
    "ERROR: the run was interrupted ({reason}); the specs that finished keep their results; "
    "fix: run doit again to do the rest"
)


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


def report_interrupts_in_one_line() -> None:
    """An interrupted doit says so in one line instead of a traceback.

    doit lets the KeyboardInterrupt of Ctrl-C (or of SIGTERM, above) escape from its main
    function, after saving what finished, and Python prints the traceback of wherever the main
    process happened to wait: thirty lines of doit and multiprocessing that say nothing to the
    user. Only that one exception is reported differently; Python still ends the process as an
    interrupted one (exit status 130). Another hook someone installed is kept for the rest."""
    if getattr(sys.excepthook, "_astest_interrupts", False):
        return
    previous = sys.excepthook

    def hook(kind: type[BaseException], error: BaseException, trace: TracebackType | None) -> None:
        if issubclass(kind, KeyboardInterrupt):
            reason = str(error) or "stopped by SIGINT"
            print(INTERRUPTED_MESSAGE.format(reason=reason), file=sys.stderr, flush=True)
            return
        previous(kind, error, trace)

    hook._astest_interrupts = True  # type: ignore[attr-defined]
    sys.excepthook = hook


def _raise_keyboard_interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"stopped by signal {signal.Signals(signum).name}")


@contextmanager
def signals_end_the_process() -> Iterator[None]:
    """While a spec's wasm runs, let Ctrl-C and SIGTERM end the process at once.

    Python runs its signal handlers only between bytecodes, and a spec spinning in wasm returns
    none until its timeout, which may be minutes away. Nothing is half-written at that moment
    (results and snapshots are written after the guest returns), so the default action, which
    ends the process, loses nothing: doit never records the task, and it runs again next time.
    Only Python's own handlers are swapped, and only in the main thread (the only one allowed).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    ours = {signal.SIGINT: signal.default_int_handler, signal.SIGTERM: _raise_keyboard_interrupt}
    saved = {sig: signal.getsignal(sig) for sig in ours}
    swapped = [sig for sig, handler in saved.items() if handler in (ours[sig], signal.SIG_DFL)]
    for sig in swapped:
        signal.signal(sig, signal.SIG_DFL)
    try:
        yield
    finally:
        for sig in swapped:
            signal.signal(sig, saved[sig])
