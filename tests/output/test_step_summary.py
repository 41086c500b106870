"""step_summary.py: the Markdown appended to $GITHUB_STEP_SUMMARY, rendered by a real Markdown
parser (Python-Markdown with its tables extension, which mkdocs brings) and read back cell by
cell: what a person sees on the run's page."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import markdown

from astest_tasks.coverage.model import CoveragePoint, merge_points
from astest_tasks.model.guest_report import FailureDetail
from astest_tasks.model.results import Status
from astest_tasks.output.console import Shown
from astest_tasks.output.coverage_summary import CoverageOutcome, CoverageTarget, ModeCoverage
from astest_tasks.output.step_summary import ROW_CAP, append_step_summary, cell, step_summary
from tests.conftest import make_spec_result


class Tables(HTMLParser):
    """Each rendered table as rows of cell texts (entities decoded), and the headings."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[list[list[str]]] = []
        self.headings: list[str] = []
        self._text: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: object) -> None:
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th", "h2", "h3"):
            self._text = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._text is not None:
            self.tables[-1][-1].append("".join(self._text))
        elif tag in ("h2", "h3") and self._text is not None:
            self.headings.append("".join(self._text))
        if tag in ("td", "th", "h2", "h3"):
            self._text = None

    def handle_data(self, data: str) -> None:
        if self._text is not None:
            self._text.append(data)


def rendered(text: str) -> Tables:
    tables = Tables()
    tables.feed(markdown.markdown(text, extensions=["tables"]))
    return tables


NAMES = ["<script>alert(1)</script>", "a | b", "*not bold* __init__", "`tick` [link](x) ~~s~~"]


def shown() -> list[Shown]:
    failures = tuple(FailureDetail(f"{name}#1", "8:5", "toBe", "5", "4", "") for name in NAMES)
    failed = make_spec_result("math", Status.FAILED, failure_list=failures, duration_s=1.5)
    passed = make_spec_result("io", mode="bindings", duration_s=0.2)
    return [Shown(failed, False), Shown(passed, True)]


def coverage() -> CoverageOutcome:
    points = [CoveragePoint(str(i), "src/a.ts", i + 1, 1, "Block", i < 3) for i in range(4)]
    summary = merge_points([points], lambda p: True)
    return CoverageOutcome(summary, (ModeCoverage(CoverageTarget("wasi", "c"), summary, ()),))


def test_totals_failures_slowest_and_coverage_read_as_tables() -> None:
    page = rendered(step_summary(shown(), coverage(), ["total coverage 75.00% is below 80%"]))
    assert page.headings == [
        "astest: 1 of 2 spec runs failed",
        "Failures",
        "Slowest 2 specs",
        "Coverage",
    ]
    totals, failures, slowest, covered = page.tables
    assert totals == [
        ["", "passed", "failed", "skipped"],
        ["files", "1", "1", "0"],
        ["suites", "1", "1", "0"],
        ["tests", "1", "1", "0"],
    ]
    assert failures[0] == ["spec", "mode", "test", "line:col", "failure"]
    # Markup in a test's name shows as written, and a | stays inside its cell.
    assert [row[2] for row in failures[1:]] == [f"{name}#1" for name in NAMES]
    assert failures[1][0] == "assembly/__tests__/math.spec.ts"
    assert failures[1][3:] == ["8:5", "matcher: toBe expected: 5 received: 4"]
    assert slowest[1:] == [
        ["assembly/__tests__/math.spec.ts", "wasi", "1.50 s"],
        ["assembly/__tests__/io.spec.ts", "bindings", "200 ms"],
    ]
    assert covered[1:] == [["total", "3", "4", "75.00%"], ["mode wasi", "3", "4", "75.00%"]]
    assert "<script>" not in markdown.markdown(step_summary(shown(), None), extensions=["tables"])


def test_a_passing_run_without_coverage_is_its_totals() -> None:
    page = rendered(step_summary([Shown(make_spec_result("io"), False)], None))
    assert page.headings == ["astest: every spec run passed", "Slowest 1 specs"]
    assert len(page.tables) == 2


def test_the_failures_table_stops_at_its_cap() -> None:
    failures = tuple(FailureDetail(f"t#{i}", "", "toBe", "1", "2", "") for i in range(ROW_CAP + 7))
    failed = make_spec_result("m", Status.FAILED, failure_list=failures)
    text = step_summary([Shown(failed, False)], None)
    assert len(rendered(text).tables[1]) == 1 + ROW_CAP
    assert "7 more failures: see report.json or junit.xml." in text


def test_a_cell_is_one_line_and_long_text_is_cut() -> None:
    assert cell("a\nb\r\n  c") == "a b c"
    assert len(cell("x" * 1000)) == 300


def test_appending_keeps_what_other_steps_wrote(tmp_path: Path) -> None:
    target = tmp_path / "step_summary.md"
    target.write_text("# an earlier step\n")
    assert append_step_summary(target, "## astest\n") == ""
    assert append_step_summary(target, "## again\n") == ""
    assert target.read_text() == "# an earlier step\n## astest\n## again\n"


def test_a_file_that_cannot_be_written_is_a_line_not_a_crash(tmp_path: Path) -> None:
    problem = append_step_summary(tmp_path / "missing" / "summary.md", "x")
    assert problem.startswith(f"astest: could not append the step summary to {tmp_path}")
    assert problem.endswith("fix: leave GITHUB_STEP_SUMMARY as the runner sets it")


def test_no_control_character_a_spec_controls_reaches_the_page_raw() -> None:
    """Its file's name, its test's name, the matcher, the values, the message, the mode."""
    hostile = "\x1b]0;pwn\x07\x01\x7f\x9b2J"
    detail = FailureDetail(f"t{hostile}#1", "3:5", f"to{hostile}", "1", f"2{hostile}", hostile)
    result = make_spec_result(
        "m",
        Status.FAILED,
        spec=f"assembly/__tests__/osc{hostile}.spec.ts",
        mode=f"wasi{hostile}",
        failure_list=(detail,),
    )
    text = step_summary([Shown(result, False)], None)

    assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f]", text)  # C0 but line feed, DEL, C1
    failures = rendered(text).tables[1]
    shown = "\\x1b]0;pwn\\x07\\x01\\x7f\\x9b2J"
    assert failures[1][:3] == [
        f"assembly/__tests__/osc{shown}.spec.ts",
        f"wasi{shown}",
        f"t{shown}#1",
    ]
    assert failures[1][4].endswith(shown)
