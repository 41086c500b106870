"""What the environment says about the stream we print to: whether it takes colour, and whether a
GitHub Actions runner reads it for workflow commands. Both decide how text is made safe for it
(guest_text.for_stream), so they live below every stage that prints.

Colour follows the usual conventions: ``NO_COLOR`` turns it off, ``FORCE_COLOR`` (anything but
``0``) turns it on, otherwise it is on only when the stream is a terminal.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TextIO


def use_colour(stream: TextIO) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    forced = os.environ.get("FORCE_COLOR")
    if forced is not None and forced != "":
        return forced != "0"
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def in_github_actions(environ: Mapping[str, str]) -> bool:
    """As as-test tested it: the runner sets ``GITHUB_ACTIONS=true`` in every step."""
    return environ.get("GITHUB_ACTIONS") == "true"
