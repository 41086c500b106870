"""The colour codes we paint with (ECMA-48's SGR sequences), under colorama's names.

Why not colorama's own ``Fore``, ``Back`` and ``Style``: importing colorama loads its Windows
console support as well (ctypes among it) on every platform, about 3 ms of a ``doit`` call that has
nothing to do (docs/performance.md), for a handful of constant strings. colorama keeps the job
only it can do: making a Windows console act on these codes (``fix_windows_console``), imported
there alone. tests/output/test_ansi.py holds each code here to colorama's, so the bytes we print
are the ones colorama's names gave.
"""

from __future__ import annotations

import sys
from typing import Final


class Fore:
    BLACK: Final = "\x1b[30m"
    RED: Final = "\x1b[31m"
    GREEN: Final = "\x1b[32m"
    YELLOW: Final = "\x1b[33m"
    WHITE: Final = "\x1b[37m"
    LIGHTRED_EX: Final = "\x1b[91m"
    LIGHTGREEN_EX: Final = "\x1b[92m"
    LIGHTYELLOW_EX: Final = "\x1b[93m"


class Back:
    RED: Final = "\x1b[41m"
    GREEN: Final = "\x1b[42m"
    YELLOW: Final = "\x1b[43m"
    LIGHTBLACK_EX: Final = "\x1b[100m"


class Style:
    BRIGHT: Final = "\x1b[1m"
    DIM: Final = "\x1b[2m"
    RESET_ALL: Final = "\x1b[0m"


def fix_windows_console() -> None:
    """Have a Windows console act on the codes, as colorama does (once); elsewhere a terminal
    already does, and colorama's own function returns at once."""
    if sys.platform == "win32":
        from colorama import just_fix_windows_console

        just_fix_windows_console()
