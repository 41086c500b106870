"""Test cases: the points CI reports list, a block of expectations each."""

from __future__ import annotations

import json

import pytest

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
    cases = test_cases(
        (
            suite("t", "test", expectation(Verdict.FAIL, "m")),
            suite("e", "test"),
            suite("x", "xtest", verdict=Verdict.SKIP),
        )
    )
    for case in cases:
        row = json.loads(json.dumps(case.to_row()))
        assert all(type(n) is int for n in row[6:9])
        assert TestCase.from_row(row) == case
    assert [len(case.to_row()) for case in cases] == [10, 10, 9], "untimed: the nine fields"


def test_a_test_block_carries_its_time_and_other_blocks_none() -> None:
    """The page lists each test's time: a test/it/only block's ``end - start``, as --durations
    ranks them; a describe's own expectations (its time holds its children's), a skipped test
    and a block the guest did not time have none."""
    timed = Suite("t", "it", 1, Verdict.OK, 2.0, 2.75, (), (expectation(Verdict.OK),), ())
    untimed = Suite("u", "test", 1, Verdict.OK, 0.0, 0.0, (), (expectation(Verdict.OK),), ())
    empty = Suite("e", "test", 1, Verdict.OK, 5.0, 5.5, (), (), ())
    skipped = Suite("x", "xtest", 1, Verdict.SKIP, 0.0, 0.0, (), (), ())
    outer = Suite(
        "d", "describe", 0, Verdict.OK, 0.0, 9.0, (timed, untimed, empty, skipped),
        (expectation(Verdict.OK),), (),
    )  # fmt: skip
    found = [(case.name, case.duration_ms) for case in test_cases((outer,))]
    assert found == [
        ("d", None),
        ("d > t", 0.75),
        ("d > u", None),
        ("d > e", 0.5),
        ("d > x", None),
    ]


def test_a_row_stored_before_times_reads_as_untimed_and_a_bad_time_is_refused() -> None:
    old = ["t", "ok", "", "", "", "", 1, 0, 0]
    assert TestCase.from_row(old) == TestCase("t", Verdict.OK, passed=1)
    assert TestCase.from_row([*old, 3]).duration_ms == 3.0
    # 10**400: an integer JSON allows, too large for a float (an OverflowError, not refused).
    for bad in ("3", True, float("nan"), float("inf"), [1], 10**400):
        with pytest.raises(ValueError, match="time should be a finite number or null"):
            TestCase.from_row([*old, bad])


def test_a_guests_time_that_is_no_number_of_milliseconds_is_no_time() -> None:
    """1e308 apart overflows to inf, which a stored row could not hold: such a block has no
    time, rather than a result that reads back as damaged."""
    huge = Suite("h", "test", 1, Verdict.OK, -1e308, 1e308, (), (expectation(Verdict.OK),), ())
    endless = Suite("i", "it", 1, Verdict.OK, 0.0, float("inf"), (), (expectation(Verdict.OK),), ())
    found = [case.duration_ms for case in test_cases((huge, endless))]
    assert found == [None, None]
    assert all(len(case.to_row()) == 9 for case in test_cases((huge, endless)))  # untimed rows
