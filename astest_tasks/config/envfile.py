"""Parse the small dotenv dialect that as-test accepts for ``"env": "path/to/.env"``.

The rules follow as-test's ``parseEnvFile`` (``cli/util.ts@v1.1.0``):

- lines are trimmed; blank lines and lines starting with ``#`` are skipped;
- an optional ``export `` prefix is dropped;
- every other line must be ``KEY=VALUE`` (split on the first ``=``, key and value trimmed);
- a value wrapped in matching ``'`` or ``"`` loses the quotes, and a double-quoted value
  unescapes ``\\n \\r \\t \\" \\\\``.

A ``#`` after the value is *not* a comment: as-test keeps it as part of the value, and so do we.
"""

from __future__ import annotations

import re

_LINE_BREAK = re.compile(r"\r?\n")
_DOUBLE_QUOTED_ESCAPE = re.compile(r"\\([nrt\"\\])")
_ESCAPED_CHAR = {"n": "\n", "r": "\r", "t": "\t", '"': '"', "\\": "\\"}
_EXPORT_PREFIX = "export "


class DotenvError(ValueError):
    """A line of a dotenv file that is not ``KEY=VALUE``."""

    def __init__(self, line_number: int, reason: str) -> None:
        self.line_number = line_number
        self.reason = reason
        super().__init__(f"line {line_number}: {reason}")


def parse_dotenv(text: str) -> dict[str, str]:
    """Return the variables of a dotenv file's text, later lines overriding earlier ones."""
    env: dict[str, str] = {}
    for index, raw_line in enumerate(_LINE_BREAK.split(text)):
        line = raw_line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith(_EXPORT_PREFIX):
            line = line[len(_EXPORT_PREFIX) :].strip()
        key, separator, value = line.partition("=")
        key = key.strip()
        if not separator or not key:
            raise DotenvError(index + 1, f"expected KEY=VALUE, got {line!r}")
        env[key] = _unquote(value.strip())
    return env


def _unquote(value: str) -> str:
    if len(value) < 2 or value[0] not in "'\"" or value[-1] != value[0]:
        return value
    inner = value[1:-1]
    if value[0] == "'":
        return inner
    # One pass, so that an escaped backslash followed by "n" stays a backslash and an "n"
    # (as-test's chained replaces turn "\\\\n" into a backslash and a newline).
    return _DOUBLE_QUOTED_ESCAPE.sub(lambda match: _ESCAPED_CHAR[match.group(1)], inner)
