"""latest.log and --show-logs: the same bytes as as-test 1.8 writes for the same project (one
block per spec, modes with the same lines merged), printed before the summary on request."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from astest_tasks.commands.init_pins import choose_pins
from astest_tasks.commands.scaffold import InitChoices, scaffold_project
from tests.integration.as_test_cli import run_as_test_in_place
from tests.integration.conftest import Project
from tests.integration.toolchains import Toolchain

pytestmark = pytest.mark.integration

LATEST = ".as-test/logs/latest.log"


@pytest.mark.toolchains("1.8.0")
def test_latest_log_is_as_test_18s_and_show_logs_prints_it(
    tmp_path: Path, toolchain: Toolchain
) -> None:
    root = tmp_path / "ours"
    scaffold_project(root, InitChoices(example="full", pins=choose_pins([toolchain.as_test])))
    config_path = root / "as-test.config.json"
    config = json.loads(config_path.read_text())
    config["modes"] = {
        "wasi": {"buildOptions": {"target": "wasi"}},
        "bindings": {"buildOptions": {"target": "bindings"}},
    }
    config_path.write_text(json.dumps(config, indent=2))
    theirs = tmp_path / "theirs"
    shutil.copytree(root, theirs, ignore=shutil.ignore_patterns(".as-test"))
    for project_root in (root, theirs):
        (project_root / "node_modules").symlink_to(toolchain.node_modules)

    run = Project(root).doit("astest", "--show-logs")
    assert run.exit_code == 0, run.stdout + run.stderr
    assert "Logs (1)\n\n[LOG] example.spec.ts (bindings, wasi):" in run.stdout
    assert run.last_line.startswith("tests: ")
    as_test = run_as_test_in_place(theirs, ["test"], toolchain)
    assert as_test.exit_code == 0, as_test.output
    assert (root / LATEST).read_bytes() == (theirs / LATEST).read_bytes()

    spec = root / "assembly/__tests__/example.spec.ts"
    spec.write_text(spec.read_text().replace('      log("clamp', '      // log("clamp'))
    quiet = Project(root).doit()
    assert quiet.exit_code == 0, quiet.stdout
    assert not (root / LATEST).exists(), "a run that logged nothing leaves no stale latest.log"
