"""--no-snapshot, --show-coverage and --browser on real projects (as-test 1.8's run switches)."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.integration.conftest import Project, copy_project
from tests.integration.test_web import with_web_mode

pytestmark = pytest.mark.integration

SNAP_FILE = ".as-test/snapshots/snap.spec.snap"
GAP_FILE = re.compile(r"^  (\S+) \((\d+) uncovered\)$", re.MULTILINE)
GAP_ROW = re.compile(r"^    [├└]─(\w+) +(\S+:\d+:\d+)  ", re.MULTILINE)


def test_no_snapshot_passes_unchecked_and_the_next_plain_run_checks_again(
    fresh_project: Callable[[str], Project],
) -> None:
    project = fresh_project("passing")
    snap = project.root / SNAP_FILE
    snap.write_text(snap.read_text().replace('"count=2"', '"count=99"'))

    unchecked = project.doit("astest", "--mode", "wasi", "--no-snapshot")
    assert unchecked.exit_code == 0, unchecked.stdout + unchecked.stderr
    assert project.spec_report("assembly/__tests__/snap.spec.ts", "wasi")["verdict"] == "passed"
    assert "missing snapshot" not in unchecked.stdout
    assert snap.read_text().count('"count=99"') == 1, "a run without snapshots writes none"

    again = project.doit("astest", "--mode", "wasi", env={"ASTEST_NO_SNAPSHOT": "1"})
    assert again.exit_code == 0 and again.executed == ["astest:summary"], again.stdout

    checked = project.doit("astest", "--mode", "wasi")
    assert "astest:run:wasi:snap" in checked.executed, checked.stdout
    assert checked.exit_code == 1, checked.stdout + checked.stderr
    assert project.spec_report("assembly/__tests__/snap.spec.ts", "wasi")["verdict"] == "failed"


def test_no_snapshot_with_an_update_is_refused(fresh_project: Callable[[str], Project]) -> None:
    project = fresh_project("passing")
    run = project.doit("astest", "--no-snapshot", "--update-snapshots=create")
    assert run.exit_code == 3
    assert "ERROR: --no-snapshot with --update-snapshots=create" in run.stderr
    assert "fix: drop one of the two" in run.stderr


def test_show_coverage_lists_each_uncovered_point_under_the_summary(
    fresh_project: Callable[[str], Project],
) -> None:
    project = fresh_project("coverage")
    run = project.doit("astest", "--show-coverage=on")
    assert run.exit_code == 0, run.stdout + run.stderr
    gaps = run.stdout.split("\nCoverage Gaps\n", 1)[1].split("\nfiles: ", 1)[0]
    listed = {file: int(count) for file, count in GAP_FILE.findall(gaps)}
    counted = {f["file"]: f["uncovered"] for f in project.report()["coverage"]["files"]}
    assert listed == {file: n for file, n in counted.items() if n}
    rows = GAP_ROW.findall(gaps)
    assert len(rows) == sum(listed.values())
    # neverCalled, which no spec calls (1.0.7 and 1.8 place the point at other columns)
    assert any(
        row[0] == "Function" and row[1].startswith("assembly/src/calc.ts:21:") for row in rows
    )
    # Cached, it lists the same: the points come from the stored results.
    cached = project.doit("astest", env={"ASTEST_SHOW_COVERAGE": "all"})
    assert cached.executed == ["astest:summary"]
    assert GAP_ROW.findall(cached.stdout) == rows


def test_browser_chooses_the_web_modes_browser_over_the_config(tmp_path: Path) -> None:
    project = copy_project("passing", tmp_path)
    with_web_mode(project, only_web=True, spec="assembly/__tests__/geometry.spec.ts")
    missing = tmp_path / "no-such-browser"
    run = project.doit("astest", "--browser", str(missing))
    assert run.exit_code == 1
    assert str(missing) in run.stdout
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    assert chromium is not None, "the machine's Chromium"
    found = project.doit("astest", env={"ASTEST_BROWSER": chromium})
    assert found.exit_code == 0, found.stdout + found.stderr
    assert "astest:run:web:geometry" in found.executed
