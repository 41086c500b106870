"""A committed snapshot file that is not one of the project's regular files (issue 38): real
specs compiled by real asc and as-test, run in wasmtime by a real doit.

The passing fixture's snap.spec.ts asserts two snapshots. Its ``.snap`` file is replaced by a
symlink to a file outside the project (a valid snapshot file whose values are a secret: read, the
secret would go back to the spec as the expected value and into every report on the mismatch)
or by a FIFO (no writer ever opens it: a reader would hang the run). Either way the spec fails
with a one-line error and a fix, nothing outside is read or written, and the run ends.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from astest_tasks.model.snapshots import format_snapshot_file
from tests.integration.conftest import DoitRun, Project, copy_project
from tests.integration.toolchains import Toolchain

pytestmark = pytest.mark.integration

SECRET = "SNAPSHOT-SECRET-MARKER-90c1"
SNAP = ".as-test/snapshots/snap.spec.snap"
CONFIG = """{
  "input": ["assembly/__tests__/**/*.spec.ts"],
  "output": ".as-test/",
  "modes": { "wasi": { "buildOptions": { "target": "wasi" } } }
}
"""
REFUSED = "snapshot file "
RUN_TIMEOUT_S = 300  # a run that waited on the FIFO would never end: fail instead of hanging


def snap_project(tmp_path: Path, toolchain: Toolchain) -> Project:
    """The passing fixture with only snap.spec.ts, in one mode."""
    project = copy_project("passing", tmp_path, toolchain)
    tests = project.root / "assembly" / "__tests__"
    for entry in tests.iterdir():
        if entry.name != "snap.spec.ts":
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
    (project.root / "as-test.config.json").write_text(CONFIG)
    (project.root / SNAP).unlink()
    return project


def everything_written(project: Project, run: DoitRun) -> dict[str, str]:
    """The console and every file the run left under .as-test/ but the modules (and our symlink)."""
    texts = {"stdout": run.stdout, "stderr": run.stderr}
    for path in sorted((project.root / ".as-test").rglob("*")):
        if path.is_file() and not path.is_symlink() and path.suffix != ".wasm":
            texts[str(path.relative_to(project.root))] = path.read_text("utf-8", "replace")
    return texts


def assert_refused_and_nothing_leaked(project: Project, run: DoitRun) -> None:
    assert run.exit_code == 1, run.stdout + run.stderr
    assert list(project.verdicts().values()) == ["failed"]
    result = project.report()["specs"][0]["result"]
    assert result["error"] == "unreadable snapshots", result
    message = json.dumps(result)  # the why and the fix: the runtime-error suite's details
    assert REFUSED in message and "fix:" in message, message
    assert REFUSED in run.stdout + run.stderr
    texts = everything_written(project, run)
    assert ".as-test/html/index.html" in texts and ".as-test/report.json" in texts
    assert [name for name, text in texts.items() if SECRET in text] == []
    assert "Traceback" not in run.stdout + run.stderr


def test_a_snapshot_file_linked_out_of_the_project_is_neither_read_nor_written(
    tmp_path: Path, toolchain: Toolchain
) -> None:
    project = snap_project(tmp_path, toolchain)
    outside = tmp_path / "outside.snap"
    secret = {
        "snap.spec.ts::vowels > snapshot of counts": f'"{SECRET}"',
        "snap.spec.ts::vowels > snapshot of counts [labelled]": f'"{SECRET}"',
    }
    outside.write_text(format_snapshot_file(secret, "snap.spec.ts", ""))
    before = outside.read_bytes()
    (project.root / SNAP).symlink_to(outside)

    plain = project.doit("astest", timeout=RUN_TIMEOUT_S)
    assert_refused_and_nothing_leaked(project, plain)
    assert "symlink to a file outside the project" in plain.stdout + plain.stderr

    update = project.doit("astest", "--update-snapshots=overwrite", timeout=RUN_TIMEOUT_S)
    assert_refused_and_nothing_leaked(project, update)
    assert (project.root / SNAP).is_symlink(), "the user's symlink was replaced"
    assert outside.read_bytes() == before, "written through the symlink"


def test_a_snapshot_file_that_is_a_fifo_ends_the_run_with_an_error(
    tmp_path: Path, toolchain: Toolchain
) -> None:
    project = snap_project(tmp_path, toolchain)
    os.mkfifo(project.root / SNAP)
    run = project.doit("astest", timeout=RUN_TIMEOUT_S)
    assert_refused_and_nothing_leaked(project, run)
    assert "not a regular file" in run.stdout + run.stderr
    second = project.doit("astest", timeout=RUN_TIMEOUT_S)  # the up-to-date check reads it too
    assert_refused_and_nothing_leaked(project, second)


def test_a_snapshot_folder_linked_out_of_the_project_gets_no_file_written(
    tmp_path: Path, toolchain: Toolchain
) -> None:
    """No snapshot file yet: an update run would create it where the folder really is."""
    project = snap_project(tmp_path, toolchain)
    folder = project.root / SNAP
    folder.parent.rmdir()
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    folder.parent.symlink_to(outside)
    run = project.doit("astest", "--update-snapshots=create", timeout=RUN_TIMEOUT_S)
    # Refused before any task, as any link out of the project on the way to a folder a run
    # writes (plan/output_folders.py): doit's one "ERROR:" line, and exit code 3.
    assert run.exit_code == 3, run.stdout + run.stderr
    assert run.stderr.startswith(
        "ERROR: as-test.config.json: output: will not write into .as-test: "
        ".as-test/snapshots is a symbolic link out of the project"
    )
    assert "Traceback" not in run.stdout + run.stderr
    assert list(outside.iterdir()) == [], "a snapshot was written outside the project"
