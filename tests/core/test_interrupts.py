"""unwind_on_sigterm: SIGTERM becomes a KeyboardInterrupt, unless someone else handles it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import pytest

from astest_tasks.core.interrupts import signals_end_the_process, unwind_on_sigterm


@pytest.fixture(autouse=True)
def restore_sigterm() -> Iterator[None]:
    saved = signal.getsignal(signal.SIGTERM)
    yield
    signal.signal(signal.SIGTERM, saved)


def test_sigterm_unwinds_like_ctrl_c_so_finally_blocks_run() -> None:
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    assert unwind_on_sigterm() is True
    cleaned = []
    with pytest.raises(KeyboardInterrupt, match="SIGTERM"):
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)  # the handler raises as soon as the signal arrives
        finally:
            cleaned.append(True)
    assert cleaned == [True]
    assert unwind_on_sigterm() is True  # a second call keeps it


def test_someone_elses_handler_is_left_alone() -> None:
    def theirs(signum: int, frame: object) -> None:
        pass

    signal.signal(signal.SIGTERM, theirs)
    assert unwind_on_sigterm() is False
    assert signal.getsignal(signal.SIGTERM) is theirs


def test_nothing_is_installed_from_another_thread() -> None:
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    results: list[bool] = []
    thread = threading.Thread(target=lambda: results.append(unwind_on_sigterm()))
    thread.start()
    thread.join()
    assert results == [False]
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_while_wasm_runs_the_default_actions_apply_then_the_handlers_return() -> None:
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    unwind_on_sigterm()
    saved_int = signal.getsignal(signal.SIGINT)
    with signals_end_the_process():
        assert signal.getsignal(signal.SIGINT) is signal.SIG_DFL
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    assert signal.getsignal(signal.SIGINT) is saved_int
    assert signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL  # ours again


def test_someone_elses_handlers_stay_while_wasm_runs() -> None:
    def theirs(signum: int, frame: object) -> None:
        pass

    signal.signal(signal.SIGTERM, theirs)
    with signals_end_the_process():
        assert signal.getsignal(signal.SIGTERM) is theirs


def _python_raising(error: str) -> subprocess.CompletedProcess[str]:
    program = (
        "from astest_tasks.core.interrupts import report_interrupts_in_one_line\n"
        "report_interrupts_in_one_line()\n"
        "report_interrupts_in_one_line()  # a second call adds no second hook\n"
        f"raise {error}\n"
    )
    return subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=60
    )


def test_an_interrupted_process_says_so_in_one_line_and_ends_as_interrupted() -> None:
    ended = _python_raising('KeyboardInterrupt("stopped by signal SIGTERM")')
    assert ended.stderr.splitlines() == [
        "ERROR: the run was interrupted (stopped by signal SIGTERM); the specs that finished "
        "keep their results; fix: run doit again to do the rest"
    ]
    assert ended.returncode == -signal.SIGINT  # Python's own end of an interrupted process


# A worker that gets SIGTERM while it runs its exit hooks, as doit's terminate() reaches one
# that Ctrl-C already stopped: its hook here signals the worker itself.
_WORKER_SIGNALLED_AT_EXIT = """
import multiprocessing, os, signal, time
from multiprocessing import util
from astest_tasks.core.interrupts import unwind_on_sigterm

def signalled_while_exiting():
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(5)  # the signal ends the worker before this does

def work():
    unwind_on_sigterm()
    util.Finalize(None, signalled_while_exiting, exitpriority=100)

worker = multiprocessing.get_context("fork").Process(target=work)
worker.start()
worker.join()
print("EXIT", worker.exitcode)
"""


def test_a_worker_signalled_while_it_exits_ends_in_silence() -> None:
    ended = subprocess.run(
        [sys.executable, "-c", _WORKER_SIGNALLED_AT_EXIT],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ended.returncode == 0, ended.stderr
    assert ended.stderr == "", "no traceback of the exit hooks"
    assert ended.stdout.splitlines() == [f"EXIT {-signal.SIGTERM}"]


def test_any_other_escaping_error_keeps_its_traceback() -> None:
    ended = _python_raising('ValueError("a bug")')
    assert "Traceback (most recent call last)" in ended.stderr
    assert ended.stderr.rstrip().endswith("ValueError: a bug")
    assert ended.returncode == 1
