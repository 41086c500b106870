"""A spec with tens of thousands of expectations: a no-change run costs what changed.

The fixture's ``tables.spec.ts`` loops over tables (3,000 expectations, as as-test counts
tests), beside a small ``fixed.spec.ts``, in two modes. 3,000, not more: as-test 1.0.7's guest
library takes time quadratic in the expectations of a spec (20,000 take minutes inside the wasm),
and the reports' cost is what is tested here, not the guest's.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from tests.integration.conftest import Project

# The cost of a no-change run and the reports' agreement with the summary are ours; the counts
# of each as-test version are checked against its own CLI in the agreement tests.
pytestmark = [pytest.mark.integration, pytest.mark.toolchains("1.8.0")]

REPORTS = (
    ".as-test/report.json",
    ".as-test/junit.xml",
    ".as-test/reports/report.tap",
    ".as-test/report.ctrf.json",
    ".as-test/html/index.html",
    ".as-test/report-state.json",
)
TABLE_TESTS = 3_000
FIXED_TESTS = 4
TOTALS = f"tests: {2 * (TABLE_TESTS + FIXED_TESTS)} passed, 0 failed, 0 skipped"


def report_times(project: Project) -> dict[str, int]:
    return {path: (project.root / path).stat().st_mtime_ns for path in REPORTS}


def spec_lines(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if line.startswith((" PASS ", " FAIL "))]


@pytest.fixture
def big_project(fresh_project: Callable[[str], Project]) -> tuple[Project, str]:
    project = fresh_project("bigspec")
    cold = project.doit()
    assert cold.exit_code == 0, cold.stdout + cold.stderr
    assert cold.last_line == TOTALS
    return project, cold.stdout


def test_a_no_change_run_rewrites_no_report_and_prints_the_full_summary(
    big_project: tuple[Project, str],
) -> None:
    project, cold_stdout = big_project
    before = report_times(project)
    run = project.doit()
    assert run.exit_code == 0
    assert report_times(project) == before, "a no-change run must leave every report alone"
    lines = spec_lines(run.stdout)
    assert len(lines) == 4 and all(line.endswith("(cached)") for line in lines)
    assert f"{TABLE_TESTS} passed, 0 failed, 0 skipped" in lines[0] + lines[1] + lines[2]
    assert "files: 4 passed, 0 failed, 0 skipped (4 cached)" in run.stdout
    assert run.last_line == TOTALS
    # The same spec lines as the run that wrote the reports, but for their cached marks.
    cold_specs = [re.sub(r"\s+\S+ m?s$", "", line) for line in spec_lines(cold_stdout)]
    cached_specs = [re.sub(r"\s+\S+ m?s \(cached\)$", "", line) for line in lines]
    assert cached_specs == cold_specs


def test_junit_and_tap_agree_with_the_summary(big_project: tuple[Project, str]) -> None:
    import junitparser
    from tap.parser import Parser as TapParser

    project, _ = big_project
    totals = project.report()["totals"]["tests"]
    assert totals == {"passed": 2 * (TABLE_TESTS + FIXED_TESTS), "failed": 0, "skipped": 0}
    xml = junitparser.JUnitXml.fromfile(str(project.root / ".as-test/junit.xml"))
    for suite in xml:
        expectations = {p.name: int(p.value) for p in suite.properties()}  # type: ignore[no-untyped-call]
        entry = next(
            spec
            for spec in project.report()["specs"]
            if suite.name == f"{spec['mode']}:{spec['spec_id']}"
        )
        assert expectations["expectations.passed"] == entry["counts"]["tests_passed"]
        assert suite.tests == len(list(suite))  # one <testcase> per test case, not per expectation
    assert xml.tests == 2 * (3 + 2)  # three table tests and two fixed-point tests, per mode
    assert xml.failures == xml.skipped == 0

    tap_text = (project.root / ".as-test/reports/report.tap").read_text()
    lines = list(TapParser().parse_text(tap_text))
    points = [line for line in lines if line.category == "test"]
    assert len(points) == xml.tests and all(point.ok for point in points)
    assert f"# expectations {totals['passed']} passed, 0 failed, 0 skipped" in tap_text


def test_one_changed_spec_rewrites_the_reports_with_its_new_result(
    big_project: tuple[Project, str],
) -> None:
    project, _ = big_project
    before = report_times(project)
    spec = project.root / "assembly/__tests__/fixed.spec.ts"
    spec.write_text(spec.read_text().replace('toBe("1.0000")', 'toBe("1.0001")'))
    run = project.doit()
    assert run.exit_code == 1
    assert run.last_line == TOTALS.replace("passed, 0 failed", "passed, 2 failed").replace(
        str(2 * (TABLE_TESTS + FIXED_TESTS)), str(2 * (TABLE_TESTS + FIXED_TESTS) - 2)
    )
    after = report_times(project)
    assert all(after[path] != before[path] for path in REPORTS)
    assert project.report()["totals"]["cached"] == 2  # the two big results were not re-run
    junit = (project.root / ".as-test/junit.xml").read_text()
    assert junit.count("<failure ") == 2 and 'expected "1.0001"' not in junit
    assert "1.0001" in junit
