"""The `astest` command line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from astest_tasks.cli import main


def test_init_lists_created_then_skipped_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["init", str(tmp_path)]) == 0
    first = capsys.readouterr().out
    assert "created  dodo.py" in first
    assert main(["init", str(tmp_path)]) == 0
    second = capsys.readouterr().out
    assert "skipped  dodo.py (exists; left unchanged)" in second
    assert "created" not in second


def test_no_command_prints_help_and_fails(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "init" in capsys.readouterr().out


def test_python_dash_m_runs_the_same_command(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "astest_tasks", "init", str(tmp_path / "p")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "p" / "as-test.config.json").is_file()
