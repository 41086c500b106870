"""The test cases the CI reports (formats/junit.py, formats/tap.py) list, built from the same
result files as the summary (cached ones too).

A spec's points are its test cases (see model/test_cases.py: a block of expectations each,
carrying its expectation counts and every failing expectation's details), or one failing point
for a spec that failed before it could report (a compile error, a crash).
"""

from __future__ import annotations

from astest_tasks.model.guest_report import Verdict
from astest_tasks.model.results import SpecResult, Status
from astest_tasks.model.test_cases import TestCase as Point
from astest_tasks.model.test_cases import test_cases


def points(result: SpecResult) -> list[Point]:
    """The result's test cases; a spec that failed before it could report is one failing point."""
    found = test_cases(result.suites)
    if not found and result.status is Status.FAILED:
        # No report to list (a build failure): the spec itself is the failing point.
        detail = result.failures[0].message if result.failures else result.error
        found.append(
            Point(name=result.error or "failed", verdict=Verdict.FAIL, details=detail, failed=1)
        )
    return found


def point_status(point: Point) -> Status:
    """A point as a CI report counts it: failed, passed or skipped."""
    if point.verdict is Verdict.FAIL:
        return Status.FAILED
    if point.verdict is Verdict.OK:
        return Status.PASSED
    return Status.SKIPPED
