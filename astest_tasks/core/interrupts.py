"""SIGTERM unwinds like Ctrl-C, so that what it interrupts can clean up.

CI systems cancel a job with SIGTERM, whose default action ends the process on the spot: an
atomic write then leaves its temporary file behind and a running external runtime is not
stopped. Raising KeyboardInterrupt instead runs the same ``finally`` blocks and ``except
BaseException`` clean-ups as Ctrl-C does, and doit reports an interrupted run as it does for
Ctrl-C. A handler someone else installed is left alone.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
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
    if _exiting():
        # A process already on its way out: a doit worker running its exit hooks when doit's
        # terminate() reaches it, after Ctrl-C reached the whole process group. Raising there
        # unwinds nothing of ours (our clean-ups at a worker's exit are registered to run first,
        # and its children end with it: parent_bond.py) and has multiprocessing print the
        # traceback of the queue it was flushing: end as the signal's default action ends a
        # process, in silence.
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
        return
    raise KeyboardInterrupt(f"stopped by signal {signal.Signals(signum).name}")


def _exiting() -> bool:
    """Whether multiprocessing has begun this process's exit (its ``_exit_function``, which a
    worker runs when its work ends, and every process at exit once it has used
    multiprocessing)."""
    util = sys.modules.get("multiprocessing.util")
    return bool(getattr(util, "_exiting", False))


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


@contextmanager
def signals_stop_the_guest(stop_guest: Callable[[], None] | None) -> Iterator[None]:
    """While a spec's wasm runs: Ctrl-C and SIGTERM stop the guest (``stop_guest``, called on
    another thread), and then unwind as anywhere else.

    Ending the process at once (``signals_end_the_process``) lost doit's record of every spec
    that had finished before: doit writes it when its run unwinds, so in a serial run those
    specs ran again next time. Python's C-level handler still notes the signal while the guest
    runs, and writes its number to a wake-up pipe that a thread watches; that thread stops the
    guest, which returns to Python, whose handler then raises KeyboardInterrupt before anything
    of the stopped spec is written. Where this cannot be arranged (another thread, someone
    else's handler or wake-up descriptor, no ``stop_guest``), the process ends at once instead.
    """
    window = _wake_up_pipe() if stop_guest is not None and _handlers_are_ours() else None
    if window is None or stop_guest is None:
        with signals_end_the_process():
            yield
        return
    read_end, write_end = window
    watcher = threading.Thread(
        target=_stop_on_signal, args=(read_end, stop_guest), name="astest-signals", daemon=True
    )
    watcher.start()
    try:
        yield
    finally:
        signal.set_wakeup_fd(-1)
        os.close(write_end)  # the watcher reads end of file and returns
        watcher.join()
        os.close(read_end)


def _handlers_are_ours() -> bool:
    if threading.current_thread() is not threading.main_thread():
        return False
    return (
        signal.getsignal(signal.SIGINT) is signal.default_int_handler
        and signal.getsignal(signal.SIGTERM) is _raise_keyboard_interrupt
    )


def _wake_up_pipe() -> tuple[int, int] | None:
    """A pipe whose write end is Python's signal wake-up descriptor; None if one is set."""
    read_end, write_end = os.pipe()
    try:
        os.set_blocking(write_end, False)  # Python's handler must never block on it
        previous = signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    except (OSError, ValueError):  # Windows takes only a socket there
        previous = -2
    if previous == -1:
        return read_end, write_end
    if previous >= 0:
        signal.set_wakeup_fd(previous)  # an event loop's: not ours to take
    os.close(read_end)
    os.close(write_end)
    return None


def _stop_on_signal(read_end: int, stop_guest: Callable[[], None]) -> None:
    stopping = {signal.SIGINT.value, signal.SIGTERM.value}
    while received := os.read(read_end, 64):
        if stopping.intersection(received):
            stop_guest()
