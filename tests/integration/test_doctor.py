"""`astest doctor` on real fixture projects, with each as-test toolchain installed."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable

import pytest

from tests.integration.conftest import DoitRun, Project
from tests.integration.toolchains import Toolchain

pytestmark = pytest.mark.integration


def doctor(
    project: Project, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "astest_tasks", "doctor", *args],
        cwd=project.root,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
        env={**os.environ, **(env or {})},
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


def test_the_doctor_task_is_listed_but_a_plain_run_never_executes_it(
    built_passing: tuple[Project, DoitRun],
) -> None:
    project, run = built_passing
    assert run.executed and "astest:doctor" not in run.executed
    listed = project.doit("list", "--all")
    assert listed.exit_code == 0, listed.stderr
    assert any(line.split()[0] == "astest:doctor" for line in listed.stdout.splitlines())


def test_doit_runs_the_doctor_task_when_named_even_where_tasks_cannot_be_made(
    fresh_project: Callable[[str], Project],
) -> None:
    project = fresh_project("passing")
    healthy = project.doit("astest:doctor")
    assert healthy.exit_code == 0, healthy.stdout + healthy.stderr
    assert healthy.executed == ["astest:doctor"]
    assert "doctor: 0 error(s)" in healthy.stdout
    (project.root / "node_modules").unlink()
    broken = project.doit("astest:doctor")
    assert broken.exit_code == 1, broken.stdout + broken.stderr
    assert "ERROR  npm" in broken.stdout and "fix: run `npm install --save-dev" in broken.stdout


def test_both_doctor_doors_read_the_options_environment_and_a_flag_beats_it(
    fresh_project: Callable[[str], Project], toolchain: Toolchain
) -> None:
    """`astest doctor` takes the task options' ASTEST_* variables, as `doit astest:doctor` does
    (its flags are generated from the same declarations)."""
    project = fresh_project("passing")
    (project.root / "as-test.config.json").rename(project.root / "other.json")
    env = {"ASTEST_CONFIG": "other.json", "ASTEST_MODE": "wasi"}
    command = doctor(project, env=env)
    task = project.doit("astest:doctor", env=env)
    for code, out in ((command.returncode, command.stdout), (task.exit_code, task.stdout)):
        assert code == 0, out
        assert f"other.json loads (as-test {toolchain.as_test} rules)" in out
        assert "mode wasi" in out and "mode bindings" not in out  # ASTEST_MODE
    flagged = doctor(project, "-c", "absent.json", "-m", "bindings", env=env)
    assert flagged.returncode == 1
    assert "absent.json" in flagged.stdout and "other.json" not in flagged.stdout
