"""This test run's Python in a fresh process: what an import, a command or a probe does in a
process of its own, where nothing of the test run's is loaded yet."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def python(arguments: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """This Python run with ``arguments``, no standard input, its output captured as text."""
    return subprocess.run(
        [sys.executable, *arguments],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        stdin=subprocess.DEVNULL,
    )
