"""The codebase stays mypy-strict and ruff clean: checked with the test suite, so CI enforces it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run_tool(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=REPO, capture_output=True, text=True, timeout=600
    )


def test_mypy_strict_is_clean() -> None:
    proc = run_tool("mypy")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_lint_is_clean() -> None:
    proc = run_tool("ruff", "check", ".")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_format_is_clean() -> None:
    proc = run_tool("ruff", "format", "--check", ".")
    assert proc.returncode == 0, proc.stdout + proc.stderr
