"""The HTML report's data from hand-made results: the matrix, failures with their source line and
repro command, the slowest specs against their history, coverage, fuzz, and the caps that keep a
big suite's page small."""

from __future__ import annotations

from pathlib import Path

from astest_tasks.coverage.model import CoveragePoint, ReportCoverage
from astest_tasks.model.guest_report import FailureDetail
from astest_tasks.model.results import Stage, Status
from astest_tasks.output.console import Shown
from astest_tasks.output.coverage_summary import CoverageOutcome, CoverageTarget, collect_coverage
from astest_tasks.output.duration_history import PastRun
from astest_tasks.output.fuzz_summary import ShownFuzz
from astest_tasks.output.html import view
from astest_tasks.output.html.view import page_of
from astest_tasks.output.report_input import ReportContext, ReportInput
from astest_tasks.output.text_caps import MAX_NAME, MAX_TEXT
from tests.conftest import make_spec_result
from tests.fuzz.test_results import result as fuzz_result

SPEC = "assembly/__tests__/math.spec.ts"
SPEC_SOURCE = (
    'import { expect, test } from "as-test";\ntest("<script>", () => {\n  expect(1).toBe(2);\n});\n'
)
LIB = "assembly/src/calc.ts"
LIB_SOURCE = (
    "export function add(a: i32, b: i32): i32 {\n  return a + b;\n}\n"
    "export function sub(a: i32, b: i32): i32 {\n  return a - b;\n}\n"
)


def failure(title: str = "<script> > adds#1", location: str = "3:13") -> FailureDetail:
    return FailureDetail(title, location, "toBe", "2", "1", "")


def project(root: Path) -> Path:
    for path, text in ((SPEC, SPEC_SOURCE), (LIB, LIB_SOURCE)):
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def coverage_of(root: Path) -> CoverageOutcome:
    points = (
        CoveragePoint("a", LIB, 1, 8, "Function", True),
        CoveragePoint("b", LIB, 2, 3, "Expression", True),
        CoveragePoint("c", LIB, 4, 8, "Function", False),
    )
    covered = make_spec_result("lib", coverage=ReportCoverage(3, 2, 1, 66.7, points))
    outcome = collect_coverage(root, [CoverageTarget("wasi", None)], [covered])
    assert outcome is not None
    return outcome


def reports(root: Path | None, shown: list[Shown], **context: object) -> ReportInput:
    return ReportInput(
        shown=shown,
        whole_results=[item.result.to_json() for item in shown],
        spec_points=[() for _ in shown],
        coverage=coverage_of(root) if root is not None else None,
        context=ReportContext(project_root=root, **context),  # type: ignore[arg-type]
    )


FAILING = make_spec_result(
    "math",
    Status.FAILED,
    spec=SPEC,
    failure_list=(failure(),),
    duration_s=1.5,
    output="printed",
)
PASSING_BINDINGS = make_spec_result("math", spec=SPEC, mode="bindings", duration_s=0.25)
OTHER = make_spec_result("other", duration_s=0.75)


def test_the_matrix_has_a_row_per_spec_and_a_column_per_mode(tmp_path: Path) -> None:
    page = page_of(
        reports(
            project(tmp_path),
            [Shown(FAILING, False), Shown(OTHER, True), Shown(PASSING_BINDINGS, False)],
        )
    )
    assert page.modes == ("wasi", "bindings")
    assert [row.spec for row in page.rows] == [SPEC, "assembly/__tests__/other.spec.ts"]
    failing, bindings = page.rows[0].cells
    assert failing is not None and bindings is not None
    assert (failing.status, failing.counts, failing.duration, failing.cached) == (
        "failed",
        "0 passed, 1 failed, 0 skipped",
        "1.50 s",
        False,
    )
    assert failing.anchor == page.failures[0].anchor and bindings.anchor == ""
    assert page.rows[1].cells[1] is None, "other.spec.ts is not in the bindings mode"
    cached = page.rows[1].cells[0]
    assert cached is not None and cached.cached
    assert page.files == {"passed": 2, "failed": 1, "skipped": 0}
    assert page.cached == 1


def test_specs_whose_names_differ_only_past_the_cut_keep_their_own_rows_and_links() -> None:
    """Two spec paths sharing their first MAX_NAME characters are two rows: keyed by the cut
    label, the passing one took the failing one's row and the failure vanished from the matrix.
    The same holds for modes."""
    stem = "assembly/__tests__/" + "d" * MAX_NAME
    failing = make_spec_result(
        "a", Status.FAILED, spec=f"{stem}/a.spec.ts", failure_list=(failure(),)
    )
    passing = make_spec_result("b", spec=f"{stem}/b.spec.ts")
    long_mode = "m" * MAX_NAME
    other_mode = make_spec_result("b", spec=f"{stem}/b.spec.ts", mode=f"{long_mode}-one")
    failing_mode = make_spec_result(
        "b", Status.FAILED, spec=f"{stem}/b.spec.ts", mode=f"{long_mode}-two",
        failure_list=(failure(),),
    )  # fmt: skip
    shown = [Shown(failing, False), Shown(passing, False), Shown(other_mode, False)]
    page = page_of(reports(None, [*shown, Shown(failing_mode, False)]))
    assert len(page.modes) == 3 and len(page.rows) == 2
    statuses = [[cell.status if cell else None for cell in row.cells] for row in page.rows]
    assert statuses == [["failed", None, None], ["passed", "passed", "failed"]]
    anchors = [cell.anchor for row in page.rows for cell in row.cells if cell and cell.anchor]
    assert anchors == [failure.anchor for failure in page.failures] == ["failure-1", "failure-2"]
    assert all(len(row.spec) < MAX_NAME + 40 for row in page.rows), "the label is still cut"


def test_a_failure_shows_where_what_and_how_to_run_it_again(tmp_path: Path) -> None:
    page = page_of(reports(project(tmp_path), [Shown(FAILING, False)], rerun_command="doit astest"))
    (spec,) = page.failures
    (shown,) = spec.failures
    assert (shown.title, shown.where, shown.matcher, shown.expected, shown.received) == (
        "<script> > adds#1",
        f"{SPEC}:3:13",
        "toBe",
        "2",
        "1",
    )
    assert shown.source is not None
    assert (shown.source.number, shown.source.at) == (3, "t")
    assert spec.repro == f"doit astest --mode wasi --spec {SPEC}"
    assert spec.output == "printed"


def test_a_build_failure_is_reproduced_by_its_compile_command_without_a_rerun_command() -> None:
    broken = make_spec_result("math", Status.FAILED, stage=Stage.BUILD, build_command="asc x.ts")
    (spec,) = page_of(reports(None, [Shown(broken, False)])).failures
    assert spec.build_failed and spec.repro == "asc x.ts"


def test_failures_are_capped_and_the_page_says_how_many_it_left_out() -> None:
    many = make_spec_result(
        "math", Status.FAILED, failure_list=tuple(failure(f"t#{n}") for n in range(30))
    )
    page = page_of(reports(None, [Shown(many, False), Shown(many, False)]))
    first, second = page.failures
    assert len(first.failures) == len(second.failures) == view.MAX_FAILURES_PER_SPEC
    assert first.more == 30 - view.MAX_FAILURES_PER_SPEC
    assert page.failures_left_out == 2 * (30 - view.MAX_FAILURES_PER_SPEC)
    assert first.failures[0].source is None, "no project root: no source lines"


def test_the_slowest_specs_come_with_their_earlier_runs() -> None:
    history = {("wasi", SPEC): (PastRun("s0", 1.0), PastRun("s1", 2.0), PastRun("s", 1.5))}
    page = page_of(reports(None, [Shown(OTHER, False), Shown(FAILING, False)], history=history))
    slowest, second = page.slowest
    assert (slowest.spec, slowest.duration, slowest.usual) == (SPEC, "1.50 s", "1.50 s")
    assert slowest.chart is not None and slowest.chart.runs == 3
    assert second.chart is None and second.usual == "", "no history: this run alone"


def test_a_cached_result_is_its_last_run_not_one_more() -> None:
    history = {("wasi", SPEC): (PastRun("s", 1.4999999),)}  # stored rounded
    (slow,) = page_of(reports(None, [Shown(FAILING, True)], history=history)).slowest
    assert slow.chart is None and slow.usual == ""


def test_coverage_shows_each_file_with_its_source_and_totals_per_mode(tmp_path: Path) -> None:
    page = page_of(reports(project(tmp_path), [Shown(OTHER, False)]))
    coverage = page.coverage
    assert coverage is not None
    assert [(t.label, t.covered, t.total) for t in coverage.modes] == [("wasi", 2, 3)]
    assert coverage.total.percent == "66.67%"
    (file,) = coverage.files
    assert file.totals.label == LIB
    assert [line.mark.value for line in file.source.lines] == ["hit", "hit", "", "miss", "", ""]
    assert file.gaps == ("4:8 Function",)


def test_a_failing_fuzz_campaign_shows_its_seeds_and_repro() -> None:
    page = page_of(reports(None, [], fuzz=[ShownFuzz(fuzz_result(), cached=True)]))
    (campaign,) = page.fuzz
    assert not campaign.passed and campaign.cached
    assert campaign.seed == "790229808 (random)"
    (fuzzer,) = campaign.fuzzers
    assert fuzzer.seeds == "18446744073709551615, 790229826"
    assert fuzzer.repro == (
        "ASTEST_FUZZ_SEED=18446744073709551615 ASTEST_FUZZ_RUNS=1 doit astest:fuzz:wasi:clamp"
    )


def test_long_messages_and_output_are_cut_saying_where_the_rest_is() -> None:
    long = "x" * (MAX_TEXT + 5)
    spec = make_spec_result(
        "math",
        Status.FAILED,
        failure_list=(FailureDetail("t#1", "", "toBe", long, "1", long),),
        output="start\n" + long + "end",
    )
    (shown,) = page_of(reports(None, [Shown(spec, False)])).failures
    (cut,) = shown.failures
    assert cut.expected == "x" * MAX_TEXT + "… (5 more characters in report.json)"
    assert cut.message == cut.expected and cut.received == "1"
    assert shown.output.startswith("(14 characters before, in report.json) …")
    assert shown.output.endswith("xend")
