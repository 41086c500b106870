"""The terminal's side of output: whether to colour (``NO_COLOR``, ``FORCE_COLOR``, a tty), the
palette that paints, and which stream a summary goes to.

Colour follows the usual conventions: ``NO_COLOR`` turns it off, ``FORCE_COLOR`` (anything but
``0``) turns it on, otherwise it is on only when stdout is a terminal.
"""

from __future__ import annotations

import multiprocessing
import sys
import threading
from typing import TextIO

from astest_tasks.core.frozen import frozen
from astest_tasks.core.lazy_pattern import LazyPattern
from astest_tasks.core.terminal_env import use_colour as use_colour  # its home moved below
from astest_tasks.model.results import Status
from astest_tasks.output.ansi import Back, Fore, Style, fix_windows_console

_ANSI_ESCAPE = LazyPattern(r"\x1b\[[0-9;?]*[ -/]*[@-~]")


def strip_colour(text: str) -> str:
    """Text for a pipe: spec output and compiler messages may carry colours of their own."""
    if "\x1b" not in text:
        return text  # no escape to strip, as most text; the pattern needs not be compiled
    return _ANSI_ESCAPE.sub("", text)


def output_stream() -> TextIO:
    """Where a summary goes: the process's real stdout when a ``doit -P thread`` worker runs it.

    doit captures each action's output by swapping the process-wide ``sys.stdout``; tasks finishing
    at once on several threads can restore each other's capture buffers, leaving ``sys.stdout``
    pointing at a dead buffer, and the summary would vanish into it.
    """
    if threading.current_thread() is not threading.main_thread() and sys.__stdout__ is not None:
        return sys.__stdout__
    return sys.stdout


def in_doit_worker_process() -> bool:
    """Whether this is one of ``doit -n N``'s worker processes, where a summary is printed from
    its teardown (see actions/summary_action.py, show_summary_from_worker)."""
    return multiprocessing.parent_process() is not None


@frozen
class Palette:
    enabled: bool

    def __post_init__(self) -> None:
        if self.enabled:
            fix_windows_console()

    def paint(self, text: str, *codes: str) -> str:
        if not self.enabled or not codes:
            return text
        return "".join(codes) + text + str(Style.RESET_ALL)

    def badge(self, status: Status) -> str:
        label = {Status.PASSED: " PASS ", Status.FAILED: " FAIL ", Status.SKIPPED: " SKIP "}[status]
        colours = {
            Status.PASSED: (Back.GREEN, Fore.BLACK),
            Status.FAILED: (Back.RED, Fore.WHITE),
            Status.SKIPPED: (Back.LIGHTBLACK_EX, Fore.WHITE),
        }[status]
        return self.paint(label, *colours)

    def dim(self, text: str) -> str:
        return self.paint(text, Style.DIM)
