"""Reading JSON text: the one door through which every JSON document we read comes in.

Much of what we read is written by someone else: the user's config, package.json and
asconfig.json, records on disk, a remote cache's entries, a guest's reports. Python's parser
follows nesting by recursion, so a document nested a few thousand levels deep (``[[[[...``)
raises ``RecursionError``, which no caller expects and which became a traceback. Here it is a
``json.JSONDecodeError`` like any other bad document, so every caller's existing handling of
invalid JSON (a clear error, a cache miss, an unreadable record) covers it too.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

__all__ = ["JsonNestingError", "parse_json", "reject_constant"]


class JsonNestingError(json.JSONDecodeError):
    """The document nests arrays and objects deeper than we read."""

    def __init__(self) -> None:
        # No position: the parser gave up somewhere deep inside, and the text may be huge.
        super().__init__(
            "nested too deeply to read (more levels than a JSON reader follows)", "", 0
        )

    def __str__(self) -> str:
        return self.msg


def reject_constant(name: str) -> object:
    """A ``parse_constant`` that refuses ``NaN`` and ``Infinity``: Python's json accepts them,
    JSON (and as-test's ``JSON.parse``) does not."""
    raise ValueError(f"{name} is not valid JSON")


def parse_json(
    text: str | bytes, *, parse_constant: Callable[[str], object] | None = None
) -> Any:  # Any, as json.loads: callers check the shape they expect
    """``json.loads(text)``; too deep a nesting raises ``JsonNestingError`` (a
    ``json.JSONDecodeError``, so a ``ValueError``) instead of ``RecursionError``."""
    try:
        return json.loads(text, parse_constant=parse_constant)
    except RecursionError:
        raise JsonNestingError() from None


def finite_number(value: object) -> float | None:
    """A JSON number read as a finite float; None for anything else: another type (``true`` is
    not 1), NaN or Infinity (which Python's json reads), or an integer too large for a float
    (JSON's integers have no bound, and ``float`` refuses one with OverflowError)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None
