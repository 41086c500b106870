"""report.ctrf.json: the Common Test Report Format (CTRF), the JSON that as-pect 9 writes with
``--ctrf`` and CI dashboards read.

A CTRF test is one of our test cases (see ci_reports.points), as in junit.xml and the TAP file:
a spec that failed before it could report (a compile error, a crash) is one failing test, so
the counts agree with the summary's. CTRF has no field for as-test's expectation counts (the
summary's ``tests:`` line): they are in ``extra``, under our namespace. A test's ``suite`` is its
mode and its spec file, the names its test path starts from.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence

from astest_tasks.core.version import __version__
from astest_tasks.model.guest_report import Verdict
from astest_tasks.model.results import SpecResult, Status
from astest_tasks.model.test_cases import TestCase as Point
from astest_tasks.output.ci_reports import point_status, points
from astest_tasks.output.formats.base import TextFormat
from astest_tasks.output.report_input import ReportInput
from astest_tasks.output.text_caps import cut_name, first_part

# The version of the CTRF specification this document follows (its "specVersion"); the schema
# the tests validate against is that version's (tests/output/formats/ctrf.schema.json).
SPEC_VERSION = "0.0.0"
TOOL_NAME = "astest-tasks"
# Our key in CTRF's ``extra`` objects, namespaced as CTRF asks (it reserves ``ctrf.``).
EXPECTATIONS = "astest-tasks.expectations"


def ctrf_document(
    results: Sequence[SpecResult],
    known_points: Sequence[Sequence[Point]] | None = None,
    clock: Callable[[], float] = time.time,
) -> dict[str, object]:
    """The CTRF document of ``results``; ``known_points`` are their test cases when the caller
    has them already. The run's ``stop`` is when the report is written (``clock``), its
    ``start`` that less the specs' time: no result records when it ran."""
    tests = [
        _test(result, point)
        for position, result in enumerate(results)
        for point in (points(result) if known_points is None else known_points[position])
    ]
    duration = round(sum(result.duration_s for result in results) * 1000)
    stop = int(clock() * 1000)
    by_status = {status.value: 0 for status in Status}
    for test in tests:
        by_status[str(test["status"])] += 1
    summary = {
        "tests": len(tests),
        **by_status,
        "pending": 0,  # as-test has no pending tests: a todo or xtest is skipped
        "other": 0,
        "suites": len(results),
        "start": stop - duration,
        "stop": stop,
        "duration": duration,
        "extra": {EXPECTATIONS: _expectations(results)},
    }
    return {
        "reportFormat": "CTRF",
        "specVersion": SPEC_VERSION,
        "results": {
            "tool": {"name": TOOL_NAME, "version": __version__},
            "summary": summary,
            "tests": tests,
        },
    }


def _test(result: SpecResult, point: Point) -> dict[str, object]:
    """One test case as a CTRF test, with its block's time where the guest timed it (the HTML
    report shows the same), else 0; the specs' time is in the summary's ``duration``."""
    status = point_status(point)
    test: dict[str, object] = {
        "name": cut_name(point.name) or "(unnamed)",  # CTRF: a non-empty string
        "status": status.value,
        "duration": round(point.duration_ms or 0.0),  # CTRF: whole milliseconds
        "suite": [cut_name(result.mode), cut_name(result.spec)],
        "filePath": result.spec,
    }
    if point.verdict is Verdict.FAIL:
        test["message"] = first_part(point.message or point.details)
        where = f"{result.spec}:{cut_name(point.location)}\n" if point.location else ""
        test["trace"] = where + first_part(point.details)
    return test


def _expectations(results: Sequence[SpecResult]) -> dict[str, int]:
    """as-test's counts, the summary's ``tests:`` line (and report.json's totals). Taken from
    each result's counts, made for its as-test version, not from the test cases: from as-test
    1.4.0 on, a skipped ``xtest`` is a skipped suite, not a skipped test."""
    return {
        "passed": sum(result.counts.tests_passed for result in results),
        "failed": sum(result.counts.tests_failed for result in results),
        "skipped": sum(result.counts.tests_skipped for result in results),
    }


def ctrf_json(
    results: Sequence[SpecResult], known_points: Sequence[Sequence[Point]] | None = None
) -> str:
    """Compact JSON (a big suite's report is for programs). A lone surrogate from a spec stays a
    character here and is written as its JSON escape (core/atomic.write_text_atomic)."""
    document = ctrf_document(results, known_points)
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")) + "\n"


def _render(reports: ReportInput) -> str:
    return ctrf_json(reports.results, reports.spec_points)


FORMAT = TextFormat(name="ctrf", file_name="report.ctrf.json", render=_render)
