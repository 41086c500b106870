"""--no-snapshot, --show-coverage and --browser on real projects (as-test 1.8's run switches)."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.integration.as_test_cli import run_as_test_command
from tests.integration.conftest import Project, copy_project
from tests.integration.test_web import with_web_mode
from tests.integration.toolchains import Toolchain

pytestmark = pytest.mark.integration

SNAP_FILE = ".as-test/snapshots/snap.spec.snap"
GAP_FILE = re.compile(r"^  (\S+) \((\d+) uncovered\)$", re.MULTILINE)
GAP_ROW = re.compile(r"^    [│ ]*[├└]─(\w+) +(\S+:\d+:\d+)  ", re.MULTILINE)
TREE_ROW = re.compile(r"^    ([│ ]*[├└]─)(\w+) +(\S+:\d+:\d+) +(.*)$")
COVERAGE_TOTAL = re.compile(
    r"^  \S+% \S+ \((\d+/\d+ covered, \d+ points? missing, \d+ files?)\)$", re.M
)


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
    fresh_project: Callable[[str], Project], toolchain: Toolchain
) -> None:
    project = fresh_project("coverage")
    run = project.doit("astest", "--show-coverage=all")
    assert run.exit_code == 0, run.stdout + run.stderr
    gaps = _gap_block(run.stdout)
    listed = {file: int(count) for file, count in GAP_FILE.findall(gaps)}
    counted = {f["file"]: f["uncovered"] for f in project.report()["coverage"]["files"]}
    assert listed == {file: n for file, n in counted.items() if n}
    rows = GAP_ROW.findall(gaps)
    # `all`: every uncovered point is a row; 1.8's tree adds a dim header for each covered
    # function that holds some (the exact tree is checked against 1.8's own, below).
    if toolchain.is_1_8:
        assert len(rows) > sum(listed.values())
    else:
        assert len(rows) == sum(listed.values())
    # 1.8's transform puts a Return point on `return new Rect(...)`, which 1.0.7's guess would
    # call a Call and `ignore.labels: ["Call"]` drop; 1.8 guesses a Return and keeps it (1.0.7's
    # transform puts no point there).
    kept = [label for label, where in rows if where.startswith("assembly/src/shapes.ts:16:")]
    assert kept == (["Return"] if toolchain.is_1_8 else [])
    # neverCalled, which no spec calls (1.0.7 and 1.8 place the point at other columns)
    assert any(
        row[0] == "Function" and row[1].startswith("assembly/src/calc.ts:21:") for row in rows
    )
    # Cached, it lists from the stored results. 1.8's detailed points fold what an uncovered
    # function holds under `on`; 1.0.7's plain points have no parents, so both forms are flat.
    cached = project.doit("astest", env={"ASTEST_SHOW_COVERAGE": "on"})
    assert cached.executed == ["astest:summary"]
    if toolchain.is_1_8:
        assert "(+1 nested uncovered point)" in cached.stdout
        assert "Run with --show-coverage=all to expand nested coverage gaps." in cached.stdout
        assert len(GAP_ROW.findall(cached.stdout)) < len(rows)
    else:
        assert GAP_ROW.findall(cached.stdout) == rows
        assert "nested uncovered" not in cached.stdout


@pytest.mark.toolchains("1.8.0")
@pytest.mark.parametrize("switch", ["", "=all"])
def test_show_coverage_draws_the_gap_tree_as_as_test_1_8_does(
    fresh_project: Callable[[str], Project], toolchain: Toolchain, tmp_path: Path, switch: str
) -> None:
    project = fresh_project("coverage")
    ours = project.doit("astest", f"--show-coverage{switch or '=on'}")
    assert ours.exit_code == 0, ours.stdout + ours.stderr
    theirs = run_as_test_command(
        project.root, ["test", f"--show-coverage{switch}"], toolchain, tmp_path
    )
    assert theirs.exit_code == 0, theirs.output
    # The tree's shape, each row's label, place and source line; and the totals. The fixture's
    # `ignore.labels: ["Call"]` would drop `return new Rect(...)` (shapes.ts:16:12) under 1.0.7's
    # guess, where it is a Call; 1.8 guesses a Return there and counts it, and so must we.
    assert _tree(_gap_block(ours.stdout)) == _tree(_gap_block(theirs.output))
    if switch:  # =all: the point is listed under its method (folded into its count, else)
        assert ("Return", "assembly/src/shapes.ts:16:12") in [
            row[1:3] for row in _tree(_gap_block(ours.stdout)) if len(row) > 1
        ]
    assert COVERAGE_TOTAL.findall(ours.stdout) == COVERAGE_TOTAL.findall(theirs.output)
    assert COVERAGE_TOTAL.findall(ours.stdout)


def _gap_block(output: str) -> str:
    block = output.split("\nCoverage Gaps\n", 1)[1]
    ends = [block.find(end) for end in ("\nfiles: ", "\nFiles: ", "\n  Run with ") if end in block]
    return block[: min(ends)] if ends else block


def _tree(gaps: str) -> list[tuple[str, ...]]:
    """Each line as (tree rails, label, location, source) or the folded-count line."""
    shape = []
    for line in gaps.splitlines():
        row = TREE_ROW.match(line)
        if row:
            shape.append(row.groups())
        elif line.strip():
            shape.append((line.rstrip(),))
    return shape


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
