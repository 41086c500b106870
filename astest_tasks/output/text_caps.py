"""How long a name, a line or a text from a spec may be where people read it (the HTML page,
JUnit, TAP).

A spec names its own tests, files and coverage point types, logs what it likes and compares
values of any size: a test named with 4 MB of text, ten log lines of 1 MB each, a 4 MB expected
value or 64 MiB of output must not make a report of that size. report.json keeps every
character; a report that cuts one says how many it left out.
"""

from __future__ import annotations

MAX_NAME = 1_000  # characters of a test's path, a spec, a mode, a file, a fuzzer, a location
MAX_LINE = 2_000  # characters of one log line
MAX_TEXT = 10_000  # characters of one message, value or output (a spec may print 64 MiB)


def cut(text: str, limit: int) -> str:
    """``text`` up to ``limit`` characters, and how many more there were when it was cut."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit} more characters)"


def cut_name(text: str) -> str:
    """A name as a report shows it: at most ``MAX_NAME`` characters."""
    return cut(text, MAX_NAME)


def first_part(text: str) -> str:
    """The start of a message or value, at most ``MAX_TEXT`` characters, saying how much was
    left out and where it is."""
    if len(text) <= MAX_TEXT:
        return text
    return f"{text[:MAX_TEXT]}… ({len(text) - MAX_TEXT} more characters in report.json)"


def last_part(text: str) -> str:
    """The end of what a spec printed (where a failure shows), at most ``MAX_TEXT`` characters."""
    if len(text) <= MAX_TEXT:
        return text
    return f"({len(text) - MAX_TEXT} characters before, in report.json) …{text[-MAX_TEXT:]}"
