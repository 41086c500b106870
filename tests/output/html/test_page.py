"""The rendered page: text from specs is shown as text (a test named ``<script>`` is no script),
nothing is fetched from anywhere, and every part of a run has its place."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

from astest_tasks.model.guest_report import Expectation, FailureDetail, Suite, Verdict
from astest_tasks.model.results import Status
from astest_tasks.model.test_cases import TestCase
from astest_tasks.output.console import Shown
from astest_tasks.output.fuzz_summary import ShownFuzz
from astest_tasks.output.html import test_list
from astest_tasks.output.html.page import render_page
from astest_tasks.output.report_input import ReportInput
from astest_tasks.output.text_caps import MAX_LINE, MAX_NAME
from tests.conftest import make_spec_result
from tests.fuzz.test_results import result as fuzz_result
from tests.output.html.test_view import FAILING, OTHER, project, reports


class Page(HTMLParser):
    """The page as a browser parses it: its elements, its text, what it would fetch, its ids and
    the in-page links it holds."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.text: list[str] = []
        self.fetched: list[str] = []
        self.ids: list[str] = []
        self.links: list[str] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.ids += [value or "" for name, value in attrs if name == "id"]
        self.links += [(value or "")[1:] for name, value in attrs if name == "href"]
        for name, value in attrs:
            if name in {"src", "href", "srcset", "action"} and not (value or "").startswith("#"):
                self.fetched.append(f"{tag} {name}={value}")

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    @property
    def all_text(self) -> str:
        return "".join(self.text)


def test_text_from_specs_is_shown_as_text(tmp_path: Path) -> None:
    hostile = make_spec_result(
        "evil",
        Status.FAILED,
        spec="assembly/__tests__/<img src=x onerror=alert(1)>.spec.ts",
        failure_list=(
            FailureDetail("<script>alert(1)</script> > x#1", "", "toBe", '"</code>"', "<b>", ""),
        ),
        output="\x1b[31mred\x1b[0m and a bell \x07 and </pre><script>alert(2)</script>",
    )
    text = render_page(reports(None, [Shown(hostile, False)]))
    page = Page(text)
    assert "script" not in page.tags
    assert "img" not in page.tags
    assert "<script>alert(1)</script> > x#1" in page.all_text
    assert "<img src=x onerror=alert(1)>.spec.ts" in page.all_text
    assert '"</code>"' in page.all_text and "<b>" in page.all_text
    assert "red and a bell \\x07 and </pre><script>alert(2)</script>" in page.all_text
    assert "\x1b" not in text and "\x07" not in text


def test_the_page_needs_nothing_beside_it(tmp_path: Path) -> None:
    text = render_page(
        reports(
            project(tmp_path),
            [Shown(FAILING, False), Shown(OTHER, True)],
            fuzz=[ShownFuzz(fuzz_result(), cached=False)],
            rerun_command="doit astest",
        )
    )
    page = Page(text)
    assert page.fetched == []
    assert "script" not in page.tags and "link" not in page.tags
    assert {"style", "svg"} - set(page.tags) == {"svg"}, "no chart without history"
    for heading in ("Specs", "Failures", "Tests", "Slowest specs", "Coverage", "Fuzz campaigns"):
        assert heading in page.text
    assert "repro: " in page.all_text and "doit astest --mode wasi --spec" in page.all_text
    assert "(cached)" in page.all_text
    assert "failing seeds" in page.all_text


def test_a_big_suite_makes_a_small_page() -> None:
    """The page grows with spec files, not tests: 10,000 failing expectations show 200."""
    failing = make_spec_result(
        "table",
        Status.FAILED,
        failure_list=tuple(
            FailureDetail(f"table > row#{n}", "9:7", "toBe", str(n), str(n + 1), "")
            for n in range(10_000)
        ),
    )
    shown = [Shown(failing, False)] + [
        Shown(make_spec_result(f"spec{n}", duration_s=n / 1000), True) for n in range(20)
    ]
    text = render_page(reports(None, shown))
    assert text.count('class="expectation"') == 20, "a spec shows its first 20"
    assert "and 9980 more failing expectations: every one is in report.json" in Page(text).all_text
    assert len(text.encode("utf-8")) < 100_000


def test_a_huge_name_and_huge_log_lines_make_a_small_page() -> None:
    """A spec named its test with 4 MB and logged ten lines of 1 MB (the issue's probe made a
    14 MB page): each is cut on the page, saying how much, and report.json keeps the rest."""
    name = "n" * 4_000_000
    expectation = Expectation(0, Verdict.FAIL, "toBe", "", "1:1", "1", "2", "")
    suite = Suite(
        name, "test", 0, Verdict.FAIL, 0.0, 1.0, (), (expectation,), ("l" * 1_000_000,) * 10
    )
    failing = make_spec_result(
        "huge",
        Status.FAILED,
        suites=(suite,),
        failure_list=(FailureDetail(f"{name}#1", name, name, "2", "1", ""),),
    )
    text = render_page(reports(None, [Shown(failing, False)]))
    assert len(text.encode("utf-8")) < 100_000
    shown = Page(text).all_text
    assert f"{'n' * MAX_NAME}… ({4_000_002 - MAX_NAME} more characters)" in shown
    assert shown.count(f"{'l' * MAX_LINE}… ({1_000_000 - MAX_LINE} more characters)") == 10


def test_each_spec_row_links_to_its_section_listing_every_test_as_text() -> None:
    """The spec table's rows link to folded sections (a failing spec's open) that list each
    test, passing and skipped too; every link lands on an id of the page, and a test named
    with markup is shown as text."""
    failing = make_spec_result("cart", Status.FAILED)
    passing = make_spec_result("other")
    cases = [
        TestCase("cart > <script>alert(1)</script>", Verdict.FAIL, failed=1, duration_ms=3.0),
        TestCase("cart > adds", Verdict.OK, passed=1, duration_ms=0.25),
        TestCase("cart > later", Verdict.SKIP, skipped=1),
    ]
    shown = [Shown(failing, False), Shown(passing, False)]
    text = render_page(ReportInput(shown, [s.result.to_json() for s in shown], [cases, cases[1:2]]))
    page = Page(text)
    assert "script" not in page.tags
    row_links = [link for link in page.links if link.startswith("tests-")]
    assert row_links == ["tests-1", "tests-2"]
    assert set(page.links) - {""} <= set(page.ids), "every in-page link lands"
    assert '<details class="spec-tests" id="tests-1" open>' in text
    assert '<details class="spec-tests" id="tests-2">' in text, "a passing spec is folded"
    tests = page.all_text[page.all_text.index("Tests\n") :]
    for shown_text in (
        "FAILcart > <script>alert(1)</script>3.0 ms",
        "PASScart > adds0.2 ms",
        "SKIPcart > later\N{EN DASH}",  # no time: a dash
        "wasi (3 tests)",
    ):
        assert shown_text in tests.replace("\n", "")


def test_a_suite_of_360006_tests_makes_a_page_under_the_big_suite_bound() -> None:
    """The big suite's shape at its worst for this list: 3 specs in two modes of 60,001 tests
    each (as bench/generate_big_suite.py's 360,006 expectations, one test apiece), the first
    spec failing every one. The page stays under the bound of the big suite's page above."""
    shown: list[Shown] = []
    spec_cases: list[list[TestCase]] = []
    for number in range(3):
        verdict = Verdict.FAIL if number == 0 else Verdict.OK
        cases = [
            TestCase(
                f"table {number} > row {row}",
                verdict,
                passed=int(verdict is Verdict.OK),
                failed=int(verdict is Verdict.FAIL),
                duration_ms=0.125,
            )
            for row in range(60_001)
        ]
        failures = tuple(
            FailureDetail(c.name, "9:7", "toBe", "1", "2", "") for c in cases if c.failed
        )
        for mode in ("wasi", "bindings"):
            result = make_spec_result(
                f"table{number}",
                Status.FAILED if failures else Status.PASSED,
                mode=mode,
                failure_list=failures,
            )
            shown.append(Shown(result, False))
            spec_cases.append(cases)
    reports = ReportInput(shown, [s.result.to_json() for s in shown], spec_cases)
    assert sum(len(cases) for cases in spec_cases) == 360_006
    text = render_page(reports)
    assert text.count("<tr><td class=") == test_list.MAX_TESTS
    assert f"{360_006 - test_list.MAX_TESTS} tests are left out of this page" in text
    assert len(text.encode("utf-8")) < 100_000
