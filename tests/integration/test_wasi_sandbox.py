"""The WASI sandbox, from inside real specs: no host directory and only the configured
environment, unless the runner grants more (``instantiate(dirs=..., env=...)``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.conftest import Project, copy_project

pytestmark = pytest.mark.integration


def test_a_spec_sees_no_host_file_and_only_the_configured_environment(tmp_path: Path) -> None:
    project = copy_project("sandbox", tmp_path)
    # A variable of doit's own environment, which must not reach the spec.
    run = project.doit("astest", "--mode", "sealed", env={"ASTEST_HOST_SECRET": "leak"})
    assert run.exit_code == 0, run.stdout + run.stderr
    report = project.spec_report("assembly/__tests__/sealed.spec.ts", "sealed")
    assert report["counts"]["tests_failed"] == 0 and report["counts"]["tests_passed"] == 6


def test_a_runner_can_grant_a_read_only_folder_and_variables(tmp_path: Path) -> None:
    project = copy_project("sandbox", tmp_path)
    run = project.doit("astest", "--mode", "granted")
    assert run.exit_code == 0, run.stdout + run.stderr
    report = project.spec_report("assembly/__tests__/granted.spec.ts", "granted")
    assert report["counts"]["tests_failed"] == 0 and report["counts"]["tests_passed"] == 6


def test_granting_a_folder_that_does_not_exist_fails_the_spec_saying_so(tmp_path: Path) -> None:
    project: Project = copy_project("sandbox", tmp_path)
    runner = project.root / "granting-runner.py"
    runner.write_text(runner.read_text().replace('"./data"', '"./no-such-folder"'))
    run = project.doit("astest", "--mode", "granted")
    assert run.exit_code == 1
    assert "is not a directory; fix: correct the path" in run.stdout
