"""Tests for astest_tasks.model.counting: verdicts, counts and failures as as-test's CLI makes
them.
"""

from __future__ import annotations

import pytest

from astest_tasks.model.counting import count, failures, file_verdict
from astest_tasks.model.guest_report import (
    Counts,
    Expectation,
    FailureDetail,
    Suite,
    Verdict,
    runtime_error_suite,
)
from astest_tasks.model.report_parsing import parse_report
from tests.model.report_builders import (
    EXAMPLE_PAYLOAD,
    expectation_json,
    parse_suites,
    plain_expectation,
    plain_suite,
    suite_json,
)

# ---- counting ------------------------------------------------------------------------------------


def test_each_expectation_counts_as_one_test() -> None:
    suites = parse_suites(
        suite_json(
            "math",
            "describe",
            "fail",
            tests=[
                expectation_json("ok"),
                expectation_json("fail"),
                expectation_json("skip"),
                expectation_json("none"),
            ],
        )
    )
    counts = count(suites)
    assert (counts.tests_passed, counts.tests_failed, counts.tests_skipped) == (1, 1, 2)
    assert (counts.suites_passed, counts.suites_failed, counts.suites_skipped) == (0, 1, 0)


def test_a_test_case_with_expectations_is_not_itself_a_test_or_a_suite() -> None:
    suites = parse_suites(
        suite_json("adds", "it", "ok", tests=[expectation_json("ok"), expectation_json("ok")]),
    )
    assert count(suites) == Counts(0, 0, 0, 2, 0, 0, 0.0)


@pytest.mark.parametrize("kind", ["test", "it", "only", "xtest", "xit", "xonly", "todo"])
@pytest.mark.parametrize(
    ("verdict", "tests"),
    [("ok", (1, 0, 0)), ("fail", (0, 1, 0)), ("skip", (0, 0, 1)), ("none", (0, 0, 0))],
)
def test_an_empty_test_case_counts_as_one_test_unless_its_verdict_is_none(
    kind: str, verdict: str, tests: tuple[int, int, int]
) -> None:
    counts = count(parse_suites(suite_json("case", kind, verdict)))
    assert (counts.tests_passed, counts.tests_failed, counts.tests_skipped) == tests
    assert (counts.suites_passed, counts.suites_failed, counts.suites_skipped) == (0, 0, 0)


@pytest.mark.parametrize(
    ("verdict", "suites"), [("ok", (1, 0, 0)), ("fail", (0, 1, 0)), ("none", (0, 0, 1))]
)
def test_describe_suites_count_as_suites(verdict: str, suites: tuple[int, int, int]) -> None:
    counts = count(parse_suites(suite_json("group", "describe", verdict)))
    assert (counts.suites_passed, counts.suites_failed, counts.suites_skipped) == suites
    assert (counts.tests_passed, counts.tests_failed, counts.tests_skipped) == (0, 0, 0)


def test_nested_describes_each_count_and_a_failure_propagates_upwards() -> None:
    inner = suite_json(
        "inner",
        "describe",
        "ok",
        suites=[suite_json("x", "test", "ok", tests=[expectation_json("fail")])],
    )
    sibling = suite_json("sibling", "describe", "ok", tests=[expectation_json("ok")])
    outer = suite_json("outer", "describe", "ok", suites=[inner, sibling])
    suites = parse_suites(outer)
    # The reported "ok" verdicts are overridden by the failing expectation two levels down.
    assert count(suites) == Counts(
        suites_passed=1,
        suites_failed=2,
        suites_skipped=0,
        tests_passed=1,
        tests_failed=1,
        tests_skipped=0,
        time_ms=0.0,
    )
    assert file_verdict(suites) is Verdict.FAIL


def test_empty_nested_describe_from_the_nesting_bug_counts_as_skipped_suite() -> None:
    # as-test 1.1.0 leaves the inner describe empty with verdict "none"
    # (docs/design/host-contract.md §4.6).
    outer = suite_json(
        "outer",
        "describe",
        "ok",
        suites=[
            suite_json("inner", "describe", "none"),
            suite_json("t", "test", "ok", tests=[expectation_json("ok")]),
        ],
    )
    counts = count(parse_suites(outer))
    assert (counts.suites_passed, counts.suites_skipped, counts.tests_passed) == (1, 1, 1)


def test_xdescribe_with_skipped_children_counts_as_skipped() -> None:
    skipped = suite_json(
        "later",
        "xdescribe",
        "skip",
        suites=[suite_json("a", "xtest", "skip"), suite_json("b", "test", "skip")],
        tests=[expectation_json("skip")],
    )
    suites = parse_suites(skipped)
    assert count(suites) == Counts(0, 0, 1, 0, 0, 3, 0.0)
    assert file_verdict(suites) is Verdict.SKIP


def test_runtime_error_suite_counts_as_a_failed_suite_and_a_failed_test() -> None:
    passing = parse_suites(suite_json("ok", "describe", "ok", tests=[expectation_json("ok")]))
    crashed = (*passing, runtime_error_suite("a.spec.ts", "boom", "", "", ""))
    assert count(crashed) == Counts(1, 1, 0, 1, 1, 0, 0.0)
    assert file_verdict(passing) is Verdict.OK
    assert file_verdict(crashed) is Verdict.FAIL


def test_time_is_the_sum_of_end_minus_start_over_every_suite() -> None:
    suites = parse_suites(
        suite_json(
            "a",
            "describe",
            "ok",
            start=1.0,
            end=5.0,
            suites=[suite_json("b", "test", "ok", start=2.0, end=3.5)],
        ),
        suite_json("c", "describe", "ok", start=10.0, end=10.25),
    )
    assert count(suites).time_ms == pytest.approx(4.0 + 1.5 + 0.25)


def test_file_verdict_of_nothing_is_none() -> None:
    assert file_verdict(()) is Verdict.NONE
    assert count(()) == Counts.zero()


def test_file_verdict_merges_top_level_suites() -> None:
    suites = parse_suites(
        suite_json("a", "describe", "skip"),
        suite_json("b", "test", "ok"),
        suite_json("c", "describe", "none"),
    )
    assert file_verdict(suites) is Verdict.OK


# ---- counting from as-test 1.4.0 (every block a suite, every expect() a test) --------------------


def _skips_spec_report() -> tuple[Suite, ...]:
    """What a spec with one passing test beside an xtest, an xit and a todo reports."""
    return parse_suites(
        suite_json(
            "parser",
            "describe",
            "ok",
            suites=[
                suite_json("parses", "test", "ok", tests=[expectation_json("ok")]),
                suite_json("later", "xtest", "skip"),
                suite_json("someday", "xit", "skip"),
                suite_json("streams", "todo", "skip"),
            ],
        )
    )


def test_skipped_test_cases_are_skipped_tests_before_1_4_and_skipped_suites_from_it() -> None:
    suites = _skips_spec_report()
    # as-test 1.0.7: "Suites: 1 total, Tests: 1 passed, 3 skipped".
    assert count(suites) == Counts(1, 0, 0, 1, 0, 3, 0.0)
    # as-test 1.8.0: "Suites: 1 skipped... 5 total, Tests: 0 skipped, 1 total" (3 skipped blocks).
    assert count(suites, every_block_is_suite=True) == Counts(2, 0, 3, 1, 0, 0, 0.0)


@pytest.mark.parametrize("kind", ["describe", "test", "it", "only", "xtest", "xit", "todo"])
@pytest.mark.parametrize(
    ("verdict", "suites"),
    [("ok", (1, 0, 0)), ("fail", (0, 1, 0)), ("skip", (0, 0, 1)), ("none", (0, 0, 1))],
)
def test_from_1_4_an_empty_block_of_any_kind_is_one_suite_and_no_test(
    kind: str, verdict: str, suites: tuple[int, int, int]
) -> None:
    counts = count(parse_suites(suite_json("case", kind, verdict)), every_block_is_suite=True)
    assert (counts.suites_passed, counts.suites_failed, counts.suites_skipped) == suites
    assert (counts.tests_passed, counts.tests_failed, counts.tests_skipped) == (0, 0, 0)


def test_from_1_4_a_test_case_with_expectations_is_a_suite_and_its_expectations_tests() -> None:
    suites = parse_suites(
        suite_json("adds", "it", "ok", tests=[expectation_json("ok"), expectation_json("fail")])
    )
    assert count(suites, every_block_is_suite=True) == Counts(0, 1, 0, 1, 1, 0, 0.0)


def test_the_runtime_error_suite_counts_the_same_under_both_rules() -> None:
    suites = (runtime_error_suite("a.spec.ts", "boom", "", "", ""),)
    assert (
        count(suites) == count(suites, every_block_is_suite=True) == Counts(0, 1, 0, 0, 1, 0, 0.0)
    )


# ---- failure listing -----------------------------------------------------------------------------


def test_failure_titles_join_the_suite_path_and_number_the_expectation() -> None:
    suites = (
        plain_suite(
            "math",
            verdict=Verdict.FAIL,
            tests=(plain_expectation(Verdict.FAIL, "1", "2"),),
            suites=(
                plain_suite(
                    "addition",
                    kind="test",
                    tests=(
                        plain_expectation(Verdict.OK),
                        plain_expectation(Verdict.FAIL, "3", "4"),
                        plain_expectation(Verdict.SKIP),
                        plain_expectation(Verdict.FAIL, '"a"', '"b"'),
                    ),
                ),
                plain_suite(
                    "deep",
                    suites=(
                        plain_suite(
                            "er", kind="it", tests=(plain_expectation(Verdict.FAIL, "5", "6"),)
                        ),
                    ),
                ),
            ),
        ),
        plain_suite("other", tests=(plain_expectation(Verdict.FAIL, "7", "8"),)),
    )
    assert [(f.title, f.actual, f.expected) for f in failures(suites)] == [
        ("math#1", "1", "2"),
        ("math > addition#2", "3", "4"),
        ("math > addition#4", '"a"', '"b"'),
        ("math > deep > er#1", "5", "6"),
        ("other#1", "7", "8"),
    ]


def test_failure_detail_carries_location_matcher_and_message() -> None:
    failing = Expectation(
        order=3,
        verdict=Verdict.FAIL,
        instr="toEqual",
        message="custom",
        location="13:5",
        left="[1]",
        right="[2]",
        kind="",
    )
    assert failures((plain_suite("s", tests=(failing,)),)) == [
        FailureDetail(
            title="s#1",
            location="13:5",
            matcher="toEqual",
            expected="[2]",
            actual="[1]",
            message="custom",
        )
    ]


def test_failures_with_the_same_title_values_and_message_are_listed_once() -> None:
    twin = plain_suite("same", kind="test", tests=(plain_expectation(Verdict.FAIL, "1", "2"),))
    different = plain_suite("same", kind="test", tests=(plain_expectation(Verdict.FAIL, "1", "3"),))
    listed = failures((plain_suite("group", suites=(twin, twin, different)),))
    assert [(f.title, f.expected) for f in listed] == [
        ("group > same#1", "2"),
        ("group > same#1", "3"),
    ]


def test_runtime_error_failure_has_no_values() -> None:
    (detail,) = failures((runtime_error_suite("a.spec.ts", "boom", "why", "", ""),))
    assert detail == FailureDetail(
        title="a.spec.ts#1", location="", matcher="boom", expected=None, actual=None, message="why"
    )


def test_passing_report_has_no_failures() -> None:
    assert failures(parse_report(EXAMPLE_PAYLOAD)) == []
