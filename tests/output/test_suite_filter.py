"""--suite: which suites of a result are shown, and the counts recomputed for them."""

from __future__ import annotations

from dataclasses import replace

from astest_tasks.model.guest_report import Counts, Expectation, Suite, Verdict, runtime_error_suite
from astest_tasks.model.results import SpecResult, Status
from astest_tasks.output.suite_filter import filter_result, slug
from tests.conftest import make_spec_result


def expect(verdict: Verdict) -> Expectation:
    return Expectation(0, verdict, "toBe", "", "1:1", "1", "1", "")


def suite(
    name: str, *tests: Verdict, children: tuple[Suite, ...] = (), kind: str = "test"
) -> Suite:
    merged = Verdict.FAIL if Verdict.FAIL in tests else Verdict.OK
    return Suite(name, kind, 0, merged, 0, 1, children, tuple(expect(v) for v in tests), ())


TREE = (
    suite(
        "Parser",
        Verdict.OK,
        kind="describe",
        children=(suite("Reads numbers", Verdict.OK, Verdict.OK), suite("Errors", Verdict.FAIL)),
    ),
    suite(
        "Array check",
        kind="describe",
        children=(suite("inner", kind="describe", children=(suite("errors", Verdict.OK),)),),
    ),
)


def result(suites: tuple[Suite, ...] = TREE) -> SpecResult:
    return make_spec_result(
        "p",
        Status.FAILED,
        counts=Counts(0, 0, 0, 0, 0, 0, 0.0),
        failure_list=(),
        suites=suites,
        duration_s=0.1,
        build_command="",
    )


def test_slugs_follow_as_test() -> None:
    assert slug("Array check!") == "array-check"
    assert slug("  Reads  numbers ") == "reads-numbers"


def test_no_selector_changes_nothing() -> None:
    assert filter_result(result(), []).result == result()


def test_a_path_selects_one_suite_and_counts_only_it() -> None:
    filtered = filter_result(result(), ["parser/reads-numbers"]).result
    assert filtered is not None
    assert filtered.status is Status.PASSED
    assert (filtered.counts.tests_passed, filtered.counts.tests_failed) == (2, 0)
    parser = filtered.suites[0]
    assert parser.tests == () and [s.description for s in parser.suites] == ["Reads numbers"]


def test_a_selected_suite_keeps_what_is_inside_it() -> None:
    filtered = filter_result(result(), ["array-check"]).result
    assert filtered is not None and filtered.counts.tests_passed == 1


def test_a_bare_name_matching_at_one_depth_twice_is_ambiguous() -> None:
    twins = (
        suite("A", kind="describe", children=(suite("x", Verdict.OK),)),
        suite("B", kind="describe", children=(suite("x", Verdict.OK),)),
    )
    outcome = filter_result(result(twins), ["x"])
    assert outcome.result is None
    assert 'suite selector "x" is ambiguous' in outcome.problem and "a/x, b/x" in outcome.problem


def test_the_shallowest_match_wins() -> None:
    filtered = filter_result(result(), ["errors"]).result
    assert filtered is not None
    assert filtered.counts.tests_failed == 1  # Parser > Errors (depth 1)
    assert filtered.counts.tests_passed == 0  # not Array check > inner > errors (depth 2)


def test_a_spec_without_the_suite_is_left_out_but_runtime_errors_stay() -> None:
    assert filter_result(result(), ["nothing"]).result is None
    crash = runtime_error_suite("p.spec.ts", "test runtime timed out", "details", "", "")
    kept = filter_result(result((*TREE, crash)), ["nothing"]).result
    assert kept is not None and kept.status is Status.FAILED


def test_a_selection_is_recounted_by_the_rules_the_result_was_counted_with() -> None:
    """A result counted by as-test 1.4+'s rules (every block a suite) keeps them when filtered."""
    blocks = replace(result(), every_block_is_suite=True)
    filtered = filter_result(blocks, ["parser"]).result
    assert filtered is not None
    # Parser, Reads numbers and Errors are three suites (one passed, two failed); their four
    # expectations are the tests.
    assert filtered.counts == Counts(1, 2, 0, 3, 1, 0, 3.0)
    # Before 1.4 only the describe is a suite.
    old = filter_result(result(), ["parser"]).result
    assert old is not None
    assert old.counts == Counts(0, 1, 0, 3, 1, 0, 3.0)


def test_the_counting_rule_survives_the_result_file() -> None:
    blocks = replace(result(), every_block_is_suite=True)
    assert SpecResult.from_json(blocks.to_json()).every_block_is_suite
    assert not SpecResult.from_json(result().to_json()).every_block_is_suite
