"""How long a name or a line from a spec may be where people read it (the HTML page, JUnit, TAP).

A spec names its own tests, files and coverage point types, and logs what it likes: a test
named with 4 MB of text, or ten log lines of 1 MB each, must not make a report of that size.
report.json keeps every character; a report that cuts one says how many it left out.
"""

from __future__ import annotations

MAX_NAME = 1_000  # characters of a test's path, a spec, a mode, a file, a fuzzer, a location
MAX_LINE = 2_000  # characters of one log line


def cut(text: str, limit: int) -> str:
    """``text`` up to ``limit`` characters, and how many more there were when it was cut."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit} more characters)"


def cut_name(text: str) -> str:
    """A name as a report shows it: at most ``MAX_NAME`` characters."""
    return cut(text, MAX_NAME)
