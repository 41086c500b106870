"""`astest init` in an empty folder, then `npm install`, then `doit`: a green run."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from astest_tasks.commands.init_pins import choose_pins
from astest_tasks.commands.scaffold import InitChoices, scaffold_project
from tests.integration.conftest import NODE_MODULES, Project
from tests.integration.toolchains import Toolchain

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


def test_a_mode_init_did_not_declare_is_one_error_whose_fix_works(tmp_path: Path) -> None:
    root = tmp_path / "newcomer"
    init = subprocess.run(
        [sys.executable, "-m", "astest_tasks", "init", str(root)], capture_output=True, text=True
    )
    assert init.returncode == 0, init.stderr
    runners = root / ".as-test/runners"
    assert sorted(path.name for path in runners.iterdir()) == ["default.wasi.py"]
    (root / "node_modules").symlink_to(NODE_MODULES)  # the versions init pins
    project = Project(root)

    refused = project.doit("astest", "--mode", "bindings")
    assert refused.exit_code == 3, refused.stdout + refused.stderr
    [line] = refused.stderr.splitlines()
    assert line.startswith('ERROR: as-test.config.json: mode: unknown mode "bindings"; fix: ')
    marker = "declare it in as-test.config.json: "
    assert marker in line
    config_file = root / "as-test.config.json"
    config = json.loads(config_file.read_text())
    config.update(json.loads("{" + line.split(marker, 1)[1] + "}"))
    config_file.write_text(json.dumps(config, indent=2))

    bindings = project.doit("astest", "--mode", "bindings")
    assert bindings.exit_code == 0, bindings.stdout + bindings.stderr
    assert bindings.last_line == "tests: 3 passed, 0 failed, 0 skipped"
    assert (runners / "default.bindings.py").is_file(), "its runner comes with its first run"
    both = project.doit()
    assert both.exit_code == 0, both.stdout + both.stderr
    assert both.last_line == "tests: 6 passed, 0 failed, 0 skipped"  # wasi and bindings


def test_a_project_init_pins_for_each_as_test_runs_green_with_it(
    tmp_path: Path, toolchain: Toolchain
) -> None:
    """As `astest init --example full` scaffolds it when the registry's newest tested as-test is
    this toolchain's; the toolchain's node_modules stand in for `npm install`."""
    root = tmp_path / "pinned"
    pins = choose_pins(["1.0.7", toolchain.as_test])
    assert (pins.as_test, pins.assemblyscript) == (toolchain.as_test, toolchain.assemblyscript)
    scaffold_project(root, InitChoices(example="full", pins=pins))
    (root / "node_modules").symlink_to(toolchain.node_modules)
    project = Project(root)
    run = project.doit()
    assert run.exit_code == 0, run.stdout + run.stderr
    assert run.last_line.startswith("tests: ") and " 0 failed" in run.last_line
    report = project.spec_report("assembly/__tests__/example.spec.ts", "default")
    assert report["verdict"] == "passed" and report["counts"]["tests_passed"] >= 6
