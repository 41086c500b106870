"""`astest init` in an empty folder, then `npm install`, then `doit`: a green run."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.conftest import Project

pytestmark = pytest.mark.integration


def test_init_then_npm_install_then_doit_is_green(tmp_path: Path) -> None:
    root = tmp_path / "fresh-project"
    root.mkdir()
    init = subprocess.run(
        [sys.executable, "-m", "astest_tasks", "init"],
        cwd=root,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    assert init.returncode == 0, init.stderr
    npm = shutil.which("npm")
    assert npm is not None, "npm is required for this test (the README's test command has it)"
    install = subprocess.run(
        [npm, "install", "--no-audit", "--no-fund", "--prefer-offline"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=600,
        stdin=subprocess.DEVNULL,
    )
    assert install.returncode == 0, install.stdout + install.stderr
    project = Project(root)
    run = project.doit()
    assert run.exit_code == 0, run.stdout + run.stderr
    assert run.last_line == "tests: 3 passed, 0 failed, 0 skipped"
    assert project.spec_report("assembly/__tests__/example.spec.ts", "default")["verdict"] == (
        "passed"
    )

    runner = root / ".as-test/runners/default.wasi.py"
    edited = runner.read_text() + "\n# mine now\n"
    runner.write_text(edited)
    again = subprocess.run(
        [sys.executable, "-m", "astest_tasks", "init"], cwd=root, capture_output=True, text=True
    )
    assert "skipped  .as-test/runners/default.wasi.py" in again.stdout
    assert runner.read_text() == edited
