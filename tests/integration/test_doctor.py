"""`astest doctor` on real fixture projects, with each as-test toolchain installed."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable

import pytest

from tests.integration.conftest import Project
from tests.integration.toolchains import Toolchain

pytestmark = pytest.mark.integration


def doctor(project: Project, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "astest_tasks", "doctor", *args],
        cwd=project.root,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


def test_doctor_passes_a_healthy_project_and_names_the_rules_it_reads_with(
    fresh_project: Callable[[str], Project], toolchain: Toolchain
) -> None:
    project = fresh_project("passing")
    proc = doctor(project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"as-test.config.json loads (as-test {toolchain.as_test} rules)" in proc.stdout
    assert f"assemblyscript {toolchain.assemblyscript} works with as-test" in proc.stdout
    assert "input assembly/__tests__/**/*.spec.ts matches 5 spec(s)" in proc.stdout
    assert "ERROR" not in proc.stdout and "\x1b[" not in proc.stdout  # a pipe: no colour
    assert not (project.root / ".as-test" / "runners").exists()  # it never writes


def test_doctor_fails_a_project_without_node_modules_naming_each_package_once(
    fresh_project: Callable[[str], Project],
) -> None:
    project = fresh_project("passing")
    (project.root / "node_modules").unlink()
    proc = doctor(project, "--mode", "wasi")
    assert proc.returncode == 1
    errors = [line for line in proc.stdout.splitlines() if line.startswith("ERROR")]
    assert [line.split()[2] for line in errors] == [
        "as-test",
        "assemblyscript",
        "@assemblyscript/wasi-shim",
    ]
    assert proc.stdout.count("fix: run `npm install --save-dev") == 3
    assert "mode bindings" not in proc.stdout  # only the mode asked for
