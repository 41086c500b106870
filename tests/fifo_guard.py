"""FIFOs for the tests of readers that must never wait on one, and a bound on such a reader.

A reader that opens or reads a FIFO with no writer waits for ever; run through ``without_waiting``,
a broken reader fails its test instead of hanging the whole suite: after ``BOUND_S`` a writer
opens and closes the FIFO, which ends the wait, and the test fails. A correct reader never opens
the FIFO for reading at all (or does so without blocking) and returns at once, so the bound is
no timing a passing test depends on.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

T = TypeVar("T")

BOUND_S = 20.0  # far past any read of a small file; only a broken reader ever reaches it


def fifo_symlink(link: Path) -> Path:
    """Make ``link`` (its folder created) a symlink to a new FIFO beside it; the FIFO."""
    link.parent.mkdir(parents=True, exist_ok=True)
    fifo = link.with_name(f"{link.name}.fifo")
    os.mkfifo(fifo)
    link.symlink_to(fifo)
    return fifo


def without_waiting(read: Callable[[], T], fifo: Path) -> T:
    """``read()``'s answer; the test fails when it is still waiting on ``fifo`` after the bound."""
    answers: list[T] = []
    errors: list[BaseException] = []

    def call() -> None:
        try:
            answers.append(read())
        except BaseException as error:  # handed to the test's thread, which raises it
            errors.append(error)

    reader = threading.Thread(target=call, daemon=True)
    reader.start()
    reader.join(timeout=BOUND_S)
    if reader.is_alive():
        _release(fifo)
        reader.join(timeout=BOUND_S)
        pytest.fail(f"the read waited on the FIFO {fifo.name}")
    if errors:
        raise errors[0]
    return answers[0]


def _release(fifo: Path) -> None:
    """Open and close the FIFO for writing: a reader waiting to open it, or on a read, is done."""
    with contextlib.suppress(OSError):  # no reader has it open: then none waits on it either
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
