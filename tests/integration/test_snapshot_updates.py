"""Snapshot updates end to end: create -> match -> change -> fail -> overwrite -> match, with the
files compared byte for byte against what as-test 1.0.7 writes for the same spec."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.integration.conftest import Project, copy_project

pytestmark = pytest.mark.integration

SNAP_SPEC = "assembly/__tests__/snap.spec.ts"
SNAP_FILE = ".as-test/snapshots/snap.spec.snap"
RUN_TASKS = ("astest:run:wasi:snap", "astest:run:bindings:snap")


def snap_only(project: Project) -> None:
    config = json.loads((project.root / "as-test.config.json").read_text())
    config["input"] = [SNAP_SPEC]
    (project.root / "as-test.config.json").write_text(json.dumps(config))


def as_test_creates(project: Project) -> bytes:
    """The snapshot file as-test 1.0.7's own CLI writes for the spec (stock wasi runner)."""
    config = {
        "input": [SNAP_SPEC],
        "output": ".as-test/",
        "modes": {
            "wasi": {
                "buildOptions": {"target": "wasi"},
                "runOptions": {
                    "runtime": {"cmd": "node ./.as-test/runners/default.wasi.js <file>"}
                },
            }
        },
    }
    (project.root / "as-test.config.json").write_text(json.dumps(config))
    proc = subprocess.run(
        ["npx", "--no-install", "ast", "test", "--create-snapshots"],
        cwd=project.root,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_COLOR": "1"},
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return (project.root / SNAP_FILE).read_bytes()


def test_create_match_change_fail_overwrite_match(tmp_path: Path) -> None:
    theirs = copy_project("passing", tmp_path / "theirs")
    (theirs.root / SNAP_FILE).unlink()
    as_test_file = as_test_creates(theirs)

    ours = copy_project("passing", tmp_path / "ours")
    snap_only(ours)
    snap = ours.root / SNAP_FILE
    snap.unlink()

    missing = ours.doit()
    assert missing.exit_code == 1
    assert "create it with `doit astest --update-snapshots=create`" in missing.stdout
    assert not snap.exists(), "a plain run never writes snapshots"

    created = ours.doit("astest", "--update-snapshots=create")
    assert created.exit_code == 0, created.stdout
    assert snap.read_bytes() == as_test_file, "our .snap must be byte-identical to as-test's"
    assert not list(snap.parent.glob("*.tmp")), "no temporary file is left behind"

    cached = ours.doit()
    assert cached.exit_code == 0
    assert not [t for t in cached.executed if t in RUN_TASKS], "the next plain doit is cached"

    text = snap.read_text()
    assert '"count=2"' in text
    snap.write_text(text.replace('"count=2"', '"count=99"'))
    changed = ours.doit()
    assert changed.exit_code == 1
    assert set(RUN_TASKS) <= set(changed.executed), "an edited snapshot file re-runs its spec"

    still = ours.doit("astest", "--update-snapshots=create")
    assert still.exit_code == 1, "create never replaces a mismatching entry"
    assert "count=99" in snap.read_text()

    overwritten = ours.doit(env={"ASTEST_UPDATE_SNAPSHOTS": "overwrite"})
    assert overwritten.exit_code == 0, overwritten.stdout
    assert snap.read_bytes() == as_test_file
    assert ours.doit().exit_code == 0


def test_obsolete_entries_are_reported_and_kept(tmp_path: Path) -> None:
    project = copy_project("passing", tmp_path)
    snap_only(project)
    snap = project.root / SNAP_FILE
    snap.write_text(snap.read_text() + '\n=== vowels > retired test ===\n"old"\n')
    run = project.doit()
    assert run.exit_code == 0
    assert "obsolete snapshot snap.spec.ts::vowels > retired test" in run.stdout
    overwrite = project.doit("astest", "--update-snapshots=overwrite")
    assert overwrite.exit_code == 0
    assert "retired test" in snap.read_text(), "obsolete entries are never dropped"


def test_an_unknown_update_value_is_one_error_line(tmp_path: Path) -> None:
    project = copy_project("passing", tmp_path)
    run = project.doit("astest", "--update-snapshots=yes")
    assert run.exit_code == 3
    assert "unknown snapshot update 'yes'" in run.stderr
