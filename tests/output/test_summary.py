"""The summary's reports: written when a result or an option changed, left alone otherwise."""

from __future__ import annotations

import json
from pathlib import Path

import junitparser

from astest_tasks.model.guest_report import Counts, Expectation, Suite, Verdict, count
from astest_tasks.model.results import SpecResult, Status, write_result
from astest_tasks.output.summary import (
    JUNIT_FILE,
    TAP_FILE,
    SummaryEntry,
    SummaryPlan,
    load_specs,
    write_report,
)
from tests.conftest import make_spec_result

REPORT = ".as-test/report.json"


def table_result(rows: int, session: str = "s1", failing_row: int | None = None) -> SpecResult:
    tests = tuple(
        Expectation(
            i,
            Verdict.FAIL if i == failing_row else Verdict.OK,
            "toBe",
            "",
            "9:7",
            str(i),
            str(i),
            "",
        )
        for i in range(rows)
    )
    suites = (Suite("table", "test", 0, Verdict.OK, 0.0, 1.0, (), tests, ()),)
    counts: Counts = count(suites)
    return make_spec_result(
        "table",
        Status.FAILED if failing_row is not None else Status.PASSED,
        counts=counts,
        failure_list=(),
        suites=suites,
        duration_s=0.5,
        session=session,
        build_command="",
    )


def plan(root: Path, shard: tuple[int, int, int] | None = None) -> SummaryPlan:
    entry = SummaryEntry("wasi", "table", "assembly/__tests__/table.spec.ts", "wasi", "r.json")
    return SummaryPlan(str(root), REPORT, (entry,), shard=shard)


def report_files(root: Path) -> list[Path]:
    report = root / REPORT
    return [report, report.with_name(JUNIT_FILE), report.parent / TAP_FILE]


def mtimes(root: Path) -> list[tuple[int, int]]:
    """Each report's inode and mtime: an atomic rewrite replaces the inode, whatever the clock."""
    return [(path.stat().st_ino, path.stat().st_mtime_ns) for path in report_files(root)]


def summarize(root: Path, session: str, shard: tuple[int, int, int] | None = None) -> bool:
    summary_plan = plan(root, shard)
    return write_report(summary_plan, load_specs(summary_plan, session))


def test_reports_are_written_once_and_left_alone_while_nothing_changes(tmp_path: Path) -> None:
    write_result(tmp_path / "r.json", table_result(5000))
    assert summarize(tmp_path, "s1")
    document = json.loads((tmp_path / REPORT).read_text())
    assert document["totals"]["tests"]["passed"] == 5000
    assert document["specs"][0]["result"]["suites"][0]["tests"][0][1] == "ok"
    before = mtimes(tmp_path)
    assert summarize(tmp_path, "s2")
    assert mtimes(tmp_path) == before, "no result changed: no report is written"


def test_a_changed_result_an_option_or_a_deleted_report_writes_them_again(tmp_path: Path) -> None:
    write_result(tmp_path / "r.json", table_result(300))
    summarize(tmp_path, "s1")
    unchanged = mtimes(tmp_path)

    write_result(tmp_path / "r.json", table_result(300, session="s2", failing_row=7))
    assert not summarize(tmp_path, "s2")
    assert mtimes(tmp_path) != unchanged
    xml = junitparser.JUnitXml.fromfile(str(tmp_path / ".as-test" / JUNIT_FILE))
    assert (xml.tests, xml.failures) == (1, 1)  # one test case, failing

    summarize(tmp_path, "s3", shard=(1, 2, 2))
    assert json.loads((tmp_path / REPORT).read_text())["shard"] == {
        "index": 1,
        "count": 2,
        "pairs": 2,
    }

    (tmp_path / ".as-test" / TAP_FILE).unlink()
    summarize(tmp_path, "s4", shard=(1, 2, 2))
    assert (tmp_path / ".as-test" / TAP_FILE).is_file()


def test_a_missing_result_is_reported_as_a_failure(tmp_path: Path) -> None:
    assert not summarize(tmp_path, "s1")
    document = json.loads((tmp_path / REPORT).read_text())
    assert document["specs"][0]["verdict"] == "failed"
    assert "no result at r.json" in document["specs"][0]["failures"][0]["message"]
