"""What a mode asks of its runtime, read once: the question each runtime's ``claim`` answers.

``runtime_command.py`` reads ``runOptions.runtime.cmd`` the way as-test does (tokenized, aligned
to the mode's target) and fills one ``RuntimeRequest``; the registry (``runtime_registry.py``)
hands it to every runtime, and exactly one claims it. A runtime decides from this alone, so what
a mode's command means is answered in the runtime that runs it, not in a chain of ``if``s.
"""

from __future__ import annotations

import posixpath
from pathlib import Path

from astest_tasks.core.frozen import frozen


@frozen
class RuntimeRequest:
    """A mode's runtime command as as-test reads it, its target, and what was asked of a web
    mode's browser."""

    command: str  # runOptions.runtime.cmd as written; "" when the mode has none
    tokens: tuple[str, ...]  # tokenized and aligned to the target; () when it has none
    target: str  # wasi, bindings or web
    project_root: Path
    field: str  # the config field, for error messages
    python_script: str | None  # the .py runner the command names (normalised), if any
    names_missing_stock_runner: bool  # as-test's stock Node runner, whose file is not there
    browser: str  # --browser, BROWSER or runOptions.runtime.browser; "" = the default Chromium
    headful: bool  # --headful
    locate: bool  # find the browser's executable now (the run tasks' key names it)

    @property
    def has_command(self) -> bool:
        return bool(self.tokens)


def normalise_path(path: str) -> str:
    """A path as the command names it, in posix form without ``./`` or ``x/..``."""
    return posixpath.normpath(path.replace("\\", "/"))
