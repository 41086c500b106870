"""The HTML report end to end: real specs compiled by real asc and as-test, run in wasmtime by a
real doit, and the report they leave opened in Chromium (through Playwright, as the web target
drives it) from a file:// URL, the way a person opens a CI artifact.

What a person must see: the failing spec's row in the matrix, its failure (the test's name, a
``<script>`` that must show as text and never run, expected and received, its log line and the
command that runs it again), every test of every spec with its verdict and time (passing and
skipped too, the cached spec's as well), and the coverage source with a covered and an
uncovered line. The
test saves a screenshot; ``ASTEST_HTML_SCREENSHOT=docs/img/html-report.png`` also writes it
there (how the docs' picture is made).
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from astest_tasks.run.browser_choice import CHROMIUM_FLAGS, find_chromium
from tests.integration.conftest import DoitRun, Project, copy_project
from tests.integration.toolchains import Toolchain
from tests.output.html.test_page import Page

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("html-report")]

HTML = ".as-test/html/index.html"
CHECKOUT = "assembly/__tests__/checkout.spec.ts"
PRICES = "assembly/__tests__/prices.spec.ts"
# Every test of the fixture's specs with its verdict, as each mode must list it.
EVERY_TEST = {
    CHECKOUT: [("checkout > <script>alert(1)</script>", "FAIL")],
    PRICES: [
        ("prices > a total", "PASS"),
        ("prices > a discount", "PASS"),
        ("prices > a refund", "SKIP"),
    ],
}
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def text_of(page: Path) -> str:
    """The page's text as a browser shows it, without its markup."""
    return Page(page.read_text(encoding="utf-8")).all_text


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory, toolchain: Toolchain) -> tuple[Project, DoitRun]:
    """The fixture run twice: the passing spec is then cached, the failing one ran again (a
    failed result is never cached), so its chart has two runs."""
    project = copy_project("htmlreport", tmp_path_factory.mktemp("html-report"), toolchain)
    project.doit()
    return project, project.doit()


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as manager:
        browser = manager.chromium.launch(
            executable_path=find_chromium(""), headless=True, args=list(CHROMIUM_FLAGS)
        )
        yield browser
        browser.close()


def test_a_person_sees_the_failure_and_the_coverage_in_chromium(
    ran: tuple[Project, DoitRun], chromium: Any, tmp_path: Path
) -> None:
    project, run = ran
    assert run.exit_code == 1, run.stdout + run.stderr
    report = project.root / HTML
    page = chromium.new_page(viewport={"width": 1100, "height": 900})
    dialogs: list[str] = []

    def dismissed(dialog: Any) -> None:  # an alert() that ran: recorded, then closed
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", dismissed)
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(report.as_uri())

    row = page.locator("table.matrix tbody tr", has_text=CHECKOUT)
    assert row.locator("td[data-mode=wasi] .badge").inner_text() == "FAIL"
    assert row.locator("td[data-mode=bindings] .badge").inner_text() == "FAIL"
    assert "0 passed, 1 failed" in row.locator("td[data-mode=wasi]").inner_text()
    prices = page.locator("table.matrix tbody tr", has_text="prices.spec.ts")
    assert prices.locator("td[data-mode=wasi] .cached").inner_text() == "(cached)"
    slowest = page.locator("table.slowest tr", has_text=CHECKOUT).first
    assert slowest.locator("svg.chart").get_attribute("aria-label") == (
        "duration over the last 2 runs"
    )

    failure = page.locator("article.failure", has_text="[wasi]").filter(has_text=CHECKOUT)
    assert failure.is_visible()
    title = failure.locator(".expectation .title").first.inner_text()
    assert title.startswith("checkout > <script>alert(1)</script>")
    assert f"{CHECKOUT}:7:" in title, "file:line:col of the failing expect"
    assert failure.locator("code.expected").first.inner_text() == "14"
    assert failure.locator("code.received").first.inner_text() == "15"
    assert "expect(total(3, 5)).toBe(14);" in failure.locator("pre.source").first.inner_text()
    assert "basket holds 3 items" in failure.locator("details.logs").inner_text()
    repro = failure.locator(".repro code").inner_text()
    assert repro == f"doit astest --mode wasi --spec {CHECKOUT}"
    assert dialogs == [], "a test's name ran as a script"

    code = page.locator("table.code[data-file='assembly/src/prices.ts']")
    covered = code.locator("tr.line.hit", has_text="export function total(")
    uncovered = code.locator("tr.line.miss", has_text="export function refund(")
    covered.scroll_into_view_if_needed()
    assert covered.is_visible() and uncovered.is_visible()
    assert uncovered.locator("mark.miss").count() >= 1, "the uncovered point itself is marked"
    assert requests == [report.as_uri()], "the page fetches nothing beside itself"

    page.evaluate("window.scrollTo(0, 0)")
    screenshot = tmp_path / "html-report.png"
    page.screenshot(path=str(screenshot), full_page=True)
    assert screenshot.read_bytes().startswith(PNG_SIGNATURE)
    if os.environ.get("ASTEST_HTML_SCREENSHOT"):
        shutil.copyfile(screenshot, os.environ["ASTEST_HTML_SCREENSHOT"])
    page.close()


def test_every_test_of_every_spec_is_listed_with_its_verdict_and_time_in_chromium(
    ran: tuple[Project, DoitRun], chromium: Any
) -> None:
    """Each spec's row links to its section; opened, it lists every test of each mode with its
    verdict, a time for each test that ran and none for the skipped one. The passing spec's
    result is the cached one of the first run: its tests come from the stored result."""
    project, _ = ran
    page = chromium.new_page(viewport={"width": 1100, "height": 900})
    page.goto((project.root / HTML).as_uri())
    for spec, expected in EVERY_TEST.items():
        page.locator("table.matrix th.spec a", has_text=spec).click()
        section = page.locator("details.spec-tests:target")
        assert section.locator("summary .spec").inner_text() == spec
        if section.get_attribute("open") is None:  # a passing spec's section is folded
            section.locator("summary").click()
        for mode in ("wasi", "bindings"):
            rows = section.locator(f"table.tests[data-mode={mode}] tr").all()
            cells = [[cell.inner_text() for cell in row.locator("td").all()] for row in rows]
            assert [(name, verdict) for verdict, name, _ in cells] == expected, (spec, mode)
            for verdict, name, time in cells:
                ran_it = verdict != "SKIP"
                assert bool(re.fullmatch(r"[0-9.]+ (ms|s)", time)) is ran_it, (name, time)
            assert section.locator(f"table.tests[data-mode={mode}] td.test").first.is_visible()
    page.close()


def test_the_report_is_rewritten_when_a_result_changes_and_clean_removes_it(
    ran: tuple[Project, DoitRun],
) -> None:
    project, _ = ran
    report = project.root / HTML
    before = report.stat().st_ino
    again = project.doit()  # the failing spec runs again: a new result, a new report
    assert again.exit_code == 1, again.stdout + again.stderr
    assert report.stat().st_ino != before
    text = report.read_text(encoding="utf-8")
    assert 'aria-label="duration over the last 3 runs"' in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert project.doit("clean").exit_code == 0
    assert not report.exists()


def test_fuzz_campaigns_of_a_fuzz_run_show_the_seeds_and_repro_lines_the_console_prints(
    tmp_path: Path,
) -> None:
    project = copy_project("fuzz", tmp_path)
    run = project.doit(env={"ASTEST_FUZZ": "1", "ASTEST_FUZZ_SEED": "790229808"})
    assert run.exit_code == 1, run.stdout + run.stderr
    printed = re.findall(r"repro \(one run\): (.+)$", run.stdout, re.MULTILINE)
    seeds = re.findall(r"failing seeds: (.+)$", run.stdout, re.MULTILINE)
    assert printed and seeds
    page = text_of(project.root / HTML)
    fuzz = page[page.index("Fuzz campaigns") :]
    assert "assembly/__fuzz__/buggy.fuzz.ts" in fuzz and "FAIL" in fuzz
    for line in (*printed, *seeds):
        assert line in fuzz
