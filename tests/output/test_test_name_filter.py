"""test_name_filter.py: tests whose full name the pattern misses count as skipped, as an xtest
would, by each as-test generation's counting."""

from __future__ import annotations

import pytest

from astest_tasks.core.errors import UserError
from astest_tasks.model.guest_report import Suite, Verdict
from astest_tasks.model.results import Status
from astest_tasks.output.test_name_filter import compile_test_name_pattern, skip_unmatched_tests
from tests.conftest import make_expectation, make_spec_result, make_suite


def spec(every_block_is_suite: bool) -> list[Suite]:
    passing = make_suite("of two positives", make_expectation())
    failing = make_suite("of zero", make_expectation(Verdict.FAIL))
    return [make_suite("gcd", kind="describe", children=(passing, failing))]


@pytest.mark.parametrize("every_block_is_suite", [False, True])
def test_unmatched_tests_are_skipped_and_the_verdict_follows_the_rest(
    every_block_is_suite: bool,
) -> None:
    result = make_spec_result(
        suites=tuple(spec(every_block_is_suite)),
        status=Status.FAILED,
        every_block_is_suite=every_block_is_suite,
    )
    pattern = compile_test_name_pattern(r"gcd > of two")
    assert pattern is not None
    shown = skip_unmatched_tests(result, pattern)
    assert shown.status is Status.PASSED
    assert not shown.failures
    counts = shown.counts
    if every_block_is_suite:  # 1.4.0+: the skipped test is a skipped suite, with no tests
        assert (counts.tests_passed, counts.tests_failed, counts.tests_skipped) == (1, 0, 0)
        assert (counts.suites_passed, counts.suites_skipped) == (2, 1)
    else:  # before: an empty skipped test case is one skipped test
        assert (counts.tests_passed, counts.tests_failed, counts.tests_skipped) == (1, 0, 1)
    failing_only = compile_test_name_pattern("zero$")
    assert failing_only is not None
    assert skip_unmatched_tests(result, failing_only).status is Status.FAILED


def test_nothing_matched_leaves_a_skipped_file() -> None:
    result = make_spec_result(suites=tuple(spec(False)), status=Status.FAILED)
    pattern = compile_test_name_pattern("no such test")
    assert pattern is not None
    assert skip_unmatched_tests(result, pattern).status is Status.SKIPPED


def test_a_bad_expression_is_a_user_error_with_a_fix() -> None:
    assert compile_test_name_pattern("") is None
    with pytest.raises(UserError, match=r"--test-name-pattern '\(' is not a regular .*fix: "):
        compile_test_name_pattern("(")
