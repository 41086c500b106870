"""SIGTERM at many points of a run: every file stays whole, and the next doit finishes the job
with the right verdicts: nothing interrupted is ever served as a cached pass."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest

from astest_tasks.results import read_stored
from tests.integration.conftest import DoitRun, Project, clone_project

pytestmark = pytest.mark.integration

# Seconds into the run at which doit is stopped: while loading, compiling, running, summarising.
STOP_POINTS = (0.3, 0.8, 1.3, 1.8, 2.5, 3.2, 4.0, 5.0)
BROKEN = ("snap", "right/shared")  # the specs that import lib/counter.ts


def break_the_helper(project: Project) -> None:
    helper = project.root / "assembly/lib/counter.ts"
    helper.write_text(helper.read_text().replace("return n;", "return n + 1;"))


def assert_every_json_file_is_whole(project: Project) -> None:
    for path in (project.root / ".as-test").rglob("*.json"):
        if path.name.endswith(".result.json") and not path.name.endswith(".fuzz.result.json"):
            # A spec's result is three lines of JSON (results.py): whole when all three read.
            assert read_stored(path) is not None, f"{path} is torn"
            continue
        try:
            json.loads(path.read_text())
        except ValueError as exc:
            raise AssertionError(f"{path} is torn: {exc}") from None


@pytest.mark.parametrize("stop_after", STOP_POINTS)
def test_a_run_stopped_at_any_point_loses_nothing_and_serves_nothing_stale(
    built_passing: tuple[Project, DoitRun], tmp_path: Path, stop_after: float
) -> None:
    project = clone_project(built_passing[0], tmp_path)
    snapshots = {p: p.read_bytes() for p in (project.root / ".as-test/snapshots").iterdir()}
    break_the_helper(project)
    proc = project.start_doit()
    time.sleep(stop_after)
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()

    assert_every_json_file_is_whole(project)
    assert {p: p.read_bytes() for p in snapshots} == snapshots, "snapshots are never touched"
    assert not list((project.root / ".as-test").rglob("*.tmp")), "no temporary file is left"

    finished = project.doit()
    assert finished.exit_code == 1, finished.stdout
    verdicts = {(e["spec_id"], e["mode"]): e["verdict"] for e in project.report()["specs"]}
    for (spec_id, mode), verdict in verdicts.items():
        expected = "failed" if spec_id in BROKEN else "passed"
        assert verdict == expected, f"{spec_id} [{mode}] after a stop at {stop_after} s"
    assert len(verdicts) == 10
    # and the run after that has nothing left to do, apart from re-running the failing specs
    again = project.doit()
    assert {t for t in again.executed if t.startswith("astest:build:")} == set()
    assert os.path.exists(project.root / ".as-test/report.json")
