"""Where a failed expectation is, as the guest reports it: ``line`` or ``line:col``.

One reader for every place that shows it (the GitHub annotation, the HTML page's marked source
line), so that they agree: text that is not a line, or a line with a column that is not a
number ("12:x"), names no place at all, as as-test's ``parseLocation`` reads it.
"""

from __future__ import annotations

import re

# ASCII digits only (\d would take other scripts' digits, which parseLocation does not), and
# at most nine of them: no file has a billion lines, and int() refuses text over 4300 digits.
_LOCATION = re.compile(r"^([0-9]{1,9})(?::([0-9]{1,9}))?$")


def parse_location(location: str) -> tuple[int, int]:
    """(line, column), 1-based, column 0 when none is given; (0, 0) when there is no place."""
    match = _LOCATION.match(location.strip())
    if match is None:
        return 0, 0
    return int(match.group(1)), int(match.group(2) or 0)
