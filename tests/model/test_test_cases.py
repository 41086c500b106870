"""Test cases: the points CI reports list, a block of expectations each."""

from __future__ import annotations

import json

from astest_tasks.model.guest_report import Expectation, Suite, Verdict
from astest_tasks.model.test_cases import TestCase, test_cases


def expectation(verdict: Verdict, message: str = "", location: str = "4:7") -> Expectation:
    return Expectation(0, verdict, "toBe", message, location, "5", "4", "")


def suite(
    description: str,
    kind: str,
    *tests: Expectation,
    children: tuple[Suite, ...] = (),
    verdict: Verdict = Verdict.OK,
) -> Suite:
    return Suite(description, kind, 0, verdict, 0.0, 1.0, children, tests, ())


def test_a_case_per_block_of_expectations_with_its_counts() -> None:
    suites = (
        suite(
            "math",
            "describe",
            expectation(Verdict.OK),
            children=(
                suite("adds", "test", expectation(Verdict.OK), expectation(Verdict.FAIL, "off")),
                suite("later", "xtest", verdict=Verdict.SKIP),
                suite("unreported", "test", verdict=Verdict.NONE),
                suite("empty", "test"),
            ),
        ),
    )
    found = [(c.name, c.verdict, c.passed, c.failed, c.skipped) for c in test_cases(suites)]
    assert found == [
        ("math", Verdict.OK, 1, 0, 0),
        ("math > adds", Verdict.FAIL, 1, 1, 0),
        ("math > later", Verdict.SKIP, 0, 0, 1),
        ("math > unreported", Verdict.SKIP, 0, 0, 0),  # as-test does not count it
        ("math > empty", Verdict.OK, 1, 0, 0),  # an empty test stands for one test
    ]


def test_a_failing_case_lists_every_failing_expectation() -> None:
    table = suite(
        "table",
        "test",
        expectation(Verdict.OK),
        expectation(Verdict.FAIL, "row 2", location="9:3"),
        expectation(Verdict.SKIP),
        expectation(Verdict.FAIL, "row 4", location="9:5"),
    )
    (case,) = test_cases((table,))
    assert (case.passed, case.failed, case.skipped) == (1, 2, 1)
    assert case.message.startswith("2 of 4 expectations failed; #2: row 2")
    assert (case.location, case.matcher) == ("9:3", "toBe")
    assert "expectation #2 at 9:3" in case.details and "expectation #4 at 9:5" in case.details
    assert "message: row 4" in case.details


def test_one_failure_reads_as_before() -> None:
    (case,) = test_cases((suite("t", "test", expectation(Verdict.FAIL)),))
    assert case.message == "toBe expected 4 but received 5"
    assert case.details == "matcher: toBe\nexpected: 4\nreceived: 5"


def test_rows_round_trip_through_json_with_integer_counts() -> None:
    cases = test_cases((suite("t", "test", expectation(Verdict.FAIL, "m")), suite("e", "test")))
    for case in cases:
        row = json.loads(json.dumps(case.to_row()))
        assert all(type(n) is int for n in row[-3:])
        assert TestCase.from_row(row) == case
