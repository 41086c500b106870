"""The summary's reports: written when a result or an option changed, left alone otherwise."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import junitparser
import pytest

from astest_tasks.config.shards import ShardPart
from astest_tasks.core.records import decode, encode
from astest_tasks.model.counting import count
from astest_tasks.model.guest_report import Counts, Expectation, Suite, Verdict
from astest_tasks.model.results import SpecResult, Status, write_result
from astest_tasks.output import report_state, summary
from astest_tasks.output.coverage_threshold import CoverageThreshold
from astest_tasks.output.duration_history import load_history
from astest_tasks.output.formats import report_file_names
from astest_tasks.output.fuzz_summary import ShownFuzz
from astest_tasks.output.report_options import ReportOptions
from astest_tasks.output.report_state import HISTORY_FILE, file_digest
from astest_tasks.output.summary import (
    PRINTOUT_ONLY,
    SummaryEntry,
    SummaryPlan,
    load_specs,
    load_summary,
    print_summary,
    write_report,
)
from tests.conftest import (
    make_build_failure,
    make_crashed_result,
    make_expectation,
    make_spec_result,
    make_suite,
)
from tests.fuzz.test_results import result as fuzz_result

REPORT = ".as-test/report.json"
JUNIT = ".as-test/junit.xml"
TAP = ".as-test/reports/report.tap"


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


def plan(root: Path, shard: ShardPart | None = None) -> SummaryPlan:
    entry = SummaryEntry("wasi", "table", "assembly/__tests__/table.spec.ts", "wasi", "r.json")
    return SummaryPlan(str(root), REPORT, (entry,), shard=shard)


def report_files(root: Path) -> list[Path]:
    folder = (root / REPORT).parent
    return [folder / name for name in report_file_names().values()]


def mtimes(root: Path) -> list[tuple[int, int]]:
    """Each report's inode and mtime: an atomic rewrite replaces the inode, whatever the clock."""
    return [(path.stat().st_ino, path.stat().st_mtime_ns) for path in report_files(root)]


def summarize(root: Path, session: str, shard: ShardPart | None = None) -> bool:
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
    xml = junitparser.JUnitXml.fromfile(str(tmp_path / JUNIT))
    assert (xml.tests, xml.failures) == (1, 1)  # one test case, failing

    summarize(tmp_path, "s3", shard=ShardPart(1, 2, 2))
    assert json.loads((tmp_path / REPORT).read_text())["shard"] == {
        "index": 1,
        "count": 2,
        "pairs": 2,
        "split": "hash",
    }

    (tmp_path / TAP).unlink()
    summarize(tmp_path, "s4", shard=ShardPart(1, 2, 2))
    assert (tmp_path / TAP).is_file()


def test_a_result_file_is_hashed_once_while_it_stays_the_same_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hashed: list[int] = []

    def counting_digest(data: bytes) -> str:
        hashed.append(len(data))
        return file_digest(data)

    monkeypatch.setattr(report_state, "file_digest", counting_digest)
    write_result(tmp_path / "r.json", table_result(300))
    summarize(tmp_path, "s1")
    assert len(hashed) == 1
    unchanged = mtimes(tmp_path)
    summarize(tmp_path, "s2")
    assert len(hashed) == 1, "the same file: its digest is the one the state kept"
    assert mtimes(tmp_path) == unchanged

    # Written again with the same bytes: a new file (an atomic write), hashed, the same digest.
    write_result(tmp_path / "r.json", table_result(300))
    summarize(tmp_path, "s3")
    assert len(hashed) == 2
    assert mtimes(tmp_path) == unchanged
    summarize(tmp_path, "s4")
    assert len(hashed) == 2, "the state now knows the new file"

    # The same size, other bytes: the reports follow.
    write_result(tmp_path / "r.json", table_result(300, session="s9"))
    assert (tmp_path / "r.json").stat().st_size == hashed[-1]
    summarize(tmp_path, "s5")
    assert len(hashed) == 3
    assert mtimes(tmp_path) != unchanged
    assert json.loads((tmp_path / REPORT).read_text())["specs"][0]["result"]["session"] == "s9"


def test_a_state_that_cannot_learn_a_new_result_file_costs_only_a_digest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_result(tmp_path / "r.json", table_result(30))
    summarize(tmp_path, "s1")
    unchanged = mtimes(tmp_path)
    write_result(tmp_path / "r.json", table_result(30))  # the same bytes, another file

    def full_disk(path: Path, state: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(summary, "save_state", full_disk)
    assert summarize(tmp_path, "s2"), "a memo that cannot be written fails nothing"
    assert mtimes(tmp_path) == unchanged


def test_the_options_declared_printout_only_leave_the_reports_alone(tmp_path: Path) -> None:
    assert {"verbose", "show_logs", "durations", "coverage_fail_under"} == PRINTOUT_ONLY
    write_result(tmp_path / "r.json", table_result(30))
    summarize(tmp_path, "s1")
    written = mtimes(tmp_path)
    printout = ReportOptions(
        verbose=True,
        show_logs=True,
        durations=3,
        coverage_fail_under=CoverageThreshold.parse("80"),
    )
    summary_plan = replace(plan(tmp_path), report=printout)
    write_report(summary_plan, load_specs(summary_plan, "s2"))
    assert mtimes(tmp_path) == written, "only the printout changes"
    shaping = replace(summary_plan, report=replace(printout, test_name_pattern="row"))
    write_report(shaping, load_specs(shaping, "s3"))
    assert mtimes(tmp_path) != written, "an option that shapes the reports rewrites them"


def test_a_missing_result_is_reported_as_a_failure(tmp_path: Path) -> None:
    assert not summarize(tmp_path, "s1")
    document = json.loads((tmp_path / REPORT).read_text())
    assert document["specs"][0]["verdict"] == "failed"
    assert "no result at r.json" in document["specs"][0]["failures"][0]["message"]


# -- what the summary prints and whether it passes, for each kind of result record ----------------

NOW = "this-run"


def entry(spec_id: str, mode: str = "wasi") -> SummaryEntry:
    return SummaryEntry(
        mode,
        spec_id,
        f"assembly/__tests__/{spec_id}.spec.ts",
        mode,
        f".as-test/build/{mode}/{spec_id}.result.jsonl",
        run_task=f"astest:run:{mode}:{spec_id}",
    )


def laid_out(root: Path, results: list[SpecResult], missing: tuple[str, ...] = ()) -> SummaryPlan:
    """A plan over ``results``, each written where its run task writes it, and over the
    ``missing`` specs, whose run left nothing."""
    entries = []
    for result in results:
        entries.append(entry(result.spec_id, result.mode))
        write_result(root / entries[-1].result, result)
    entries += [entry(spec_id) for spec_id in missing]
    return SummaryPlan(str(root), REPORT, tuple(entries))


def failed_assertion(spec_id: str, session: str = NOW) -> SpecResult:
    wrong = make_expectation(
        Verdict.FAIL, location="12:7", received="3", expected="4", message="sums differ"
    )
    case = make_suite("adds", make_expectation(), wrong, depth=1)
    suite = make_suite("math", kind="describe", children=(case,))
    return make_spec_result(spec_id, Status.FAILED, suites=(suite,), session=session)


def printed(plan: SummaryPlan, capsys: pytest.CaptureFixture[str]) -> list[str]:
    print_summary(load_summary(plan, NOW))
    return capsys.readouterr().out.splitlines()


@pytest.fixture(autouse=True)
def plain_output(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.setenv("NO_COLOR", "1")


def test_the_printout_has_a_line_per_spec_the_failures_then_the_totals_last(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = laid_out(
        tmp_path,
        [
            make_spec_result("counter", session="an-earlier-run"),
            failed_assertion("math"),
            make_spec_result("later", Status.SKIPPED, session=NOW),
            make_crashed_result("parser", session=NOW, output="parsed 3 tokens"),
        ],
    )
    lines = printed(plan, capsys)
    assert lines[:4] == [
        " PASS  wasi  counter  1 passed, 0 failed, 0 skipped  250 ms (cached)",
        " FAIL  wasi  math     1 passed, 1 failed, 0 skipped  250 ms",
        " SKIP  wasi  later    0 passed, 0 failed, 1 skipped  250 ms",
        " FAIL  wasi  parser   0 passed, 1 failed, 0 skipped  250 ms",
    ]
    text = "\n".join(lines)
    assert "  math > adds#2 (assembly/__tests__/math.spec.ts:12:7)" in text
    assert "    expected: 4\n    received: 3\n    message:  sums differ" in text
    assert "wasm trap: unreachable" in text
    assert lines[-3:] == [
        "files: 1 passed, 2 failed, 1 skipped (1 cached)",
        "suites: 1 passed, 2 failed, 1 skipped",
        "tests: 2 passed, 2 failed, 1 skipped",
    ]


def test_a_missing_result_says_which_task_to_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = printed(laid_out(tmp_path, [], missing=("geometry",)), capsys)
    assert lines[0].startswith(" FAIL  wasi  geometry")
    assert (
        "    no result at .as-test/build/wasi/geometry.result.jsonl; run `doit "
        "astest:run:wasi:geometry` (or `doit forget astest:run:wasi:geometry` if the file was "
        "deleted behind doit's back)" in lines
    )
    assert lines[-1] == "tests: 0 passed, 1 failed, 0 skipped"


def test_a_result_stored_under_the_previous_name_is_shown_cached(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = laid_out(tmp_path, [make_spec_result("counter", session="an-earlier-version")])
    stored = tmp_path / plan.entries[0].result
    stored.rename(stored.with_name("counter.result.json"))  # as the version before named it
    lines = printed(plan, capsys)
    assert lines[0] == " PASS  wasi  counter  1 passed, 0 failed, 0 skipped  250 ms (cached)"
    assert write_report(plan, load_specs(plan, NOW))


def test_a_build_failure_shows_the_compilers_message_and_counts_as_failed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = printed(laid_out(tmp_path, [make_build_failure("broken", session=NOW)]), capsys)
    assert lines[0] == " FAIL  wasi  broken  build failed  0 ms"
    assert "    ERROR TS2304: Cannot find name 'x'." in lines
    assert lines[-3] == "files: 0 passed, 1 failed, 0 skipped"


def test_what_a_run_wrote_is_news_only_for_the_run_that_wrote_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    news = ("wrote .as-test/snapshots/a.spec.snap: 1 snapshot(s) created, 0 updated",)
    fresh = make_spec_result("a", session=NOW, written=news)
    plan = laid_out(tmp_path, [fresh])
    assert f" WARN  a [wasi]: {news[0]}" in printed(plan, capsys)
    write_result(tmp_path / plan.entries[0].result, make_spec_result("a", written=news))
    assert not any("WARN" in line for line in printed(plan, capsys))


@pytest.mark.parametrize(
    ("results", "missing", "passes"),
    [
        ([make_spec_result("a"), make_spec_result("b", Status.SKIPPED)], (), True),
        ([make_spec_result("a"), failed_assertion("b")], (), False),
        ([make_spec_result("a"), make_crashed_result("b")], (), False),
        ([make_build_failure("a")], (), False),
        ([make_spec_result("a")], ("b",), False),
    ],
    ids=["passed-and-skipped", "failed", "crashed", "build-failed", "missing"],
)
def test_the_summary_passes_only_when_no_result_failed_and_none_is_missing(
    tmp_path: Path, results: list[SpecResult], missing: tuple[str, ...], passes: bool
) -> None:
    plan = laid_out(tmp_path, results, missing)
    assert write_report(plan, load_specs(plan, NOW)) is passes
    totals = json.loads((tmp_path / REPORT).read_text())["totals"]
    failed_files = sum(r.status is Status.FAILED for r in results) + len(missing)
    assert totals["files"]["failed"] == failed_files


def test_a_plan_crosses_to_doits_workers_as_plain_data_unchanged() -> None:
    plan = SummaryPlan(
        "/project",
        REPORT,
        (entry("math"), entry("geometry", "bindings")),
        report=ReportOptions(suite=("math/adds",), verbose=True, durations=3),
        shard=ShardPart(1, 2, 4),
        note="--changed=HEAD: 1 of 2 specs",
        show_coverage=True,
    )
    assert decode(SummaryPlan, json.loads(json.dumps(encode(plan)))) == plan


# -- the HTML report's part: durations' history, fuzz campaigns, the repro command ----------------


def test_the_html_report_charts_each_run_once_and_shows_a_changed_fuzz_campaign(
    tmp_path: Path,
) -> None:
    html = tmp_path / ".as-test" / "html" / "index.html"
    summary_plan = replace(plan(tmp_path), rerun_command="doit astest")
    write_result(tmp_path / "r.json", table_result(10, session="s1", failing_row=3))
    write_report(summary_plan, load_specs(summary_plan, "s1"))
    assert "doit astest --mode wasi --spec assembly/__tests__/table.spec.ts" in html.read_text()
    write_result(tmp_path / "r.json", table_result(10, session="s2", failing_row=3))
    write_report(summary_plan, load_specs(summary_plan, "s2"))
    write_report(summary_plan, load_specs(summary_plan, "s3"))  # shown cached: no new run
    (runs,) = load_history(tmp_path / ".as-test" / HISTORY_FILE).values()
    assert [run.session for run in runs] == ["s1", "s2"]
    assert "<svg" in html.read_text(), "two runs make a chart"

    before = html.stat().st_ino
    campaign = ShownFuzz(fuzz_result(), cached=False)
    write_report(summary_plan, load_specs(summary_plan, "s4"), fuzz=[campaign])
    assert html.stat().st_ino != before, "a fuzz campaign changed: the page shows it"
    assert "failing seeds" in html.read_text()
    before = html.stat().st_ino
    write_report(summary_plan, load_specs(summary_plan, "s5"), fuzz=[campaign])
    assert html.stat().st_ino == before, "nothing changed: nothing is written"


def test_a_suite_selection_writes_its_cut_down_page_with_the_same_context(tmp_path: Path) -> None:
    html = tmp_path / ".as-test" / "html" / "index.html"
    summary_plan = replace(
        plan(tmp_path), report=ReportOptions(suite=("table",)), rerun_command="astest"
    )
    write_result(tmp_path / "r.json", table_result(10, session="s1", failing_row=3))
    write_report(summary_plan, load_specs(summary_plan, "s1"))
    assert "astest --mode wasi --spec assembly/__tests__/table.spec.ts" in html.read_text()
    (runs,) = load_history(tmp_path / ".as-test" / HISTORY_FILE).values()
    assert [run.session for run in runs] == ["s1"]
