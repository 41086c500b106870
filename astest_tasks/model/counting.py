"""as-test's verdicts and counts of a report's suites: a file's verdict, its suite and test
totals (1.8.0 counts blocks differently from 1.0.x: ``every_block_is_suite``), and its failures
(docs/design/host-contract.md §4.9).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from astest_tasks.model.guest_report import (
    Counts,
    FailureDetail,
    Suite,
    Verdict,
    merge_verdicts,
)

# --------------------------------------------------------------------------------------------------
# Verdicts and counts


TEST_CASE_KINDS = frozenset({"test", "it", "only", "xtest", "xit", "xonly", "todo"})


class _Tally:
    """Running totals while walking suites, in the order ``readSuite`` updates them.

    A plain class: as a dataclass its methods were compiled each time the module loads, which
    every call does (issue 40), for an accumulator only this module makes."""

    __slots__ = (
        "suites_failed",
        "suites_passed",
        "suites_skipped",
        "tests_failed",
        "tests_passed",
        "tests_skipped",
        "time_ms",
    )

    def __init__(self) -> None:
        self.suites_passed = self.suites_failed = self.suites_skipped = 0
        self.tests_passed = self.tests_failed = self.tests_skipped = 0
        self.time_ms = 0.0

    def add_test(self, verdict: Verdict) -> None:
        if verdict is Verdict.FAIL:
            self.tests_failed += 1
        elif verdict is Verdict.OK:
            self.tests_passed += 1
        else:
            self.tests_skipped += 1

    def add_suite(self, verdict: Verdict) -> None:
        if verdict is Verdict.FAIL:
            self.suites_failed += 1
        elif verdict is Verdict.OK:
            self.suites_passed += 1
        else:
            self.suites_skipped += 1

    def counts(self) -> Counts:
        return Counts(
            suites_passed=self.suites_passed,
            suites_failed=self.suites_failed,
            suites_skipped=self.suites_skipped,
            tests_passed=self.tests_passed,
            tests_failed=self.tests_failed,
            tests_skipped=self.tests_skipped,
            time_ms=self.time_ms,
        )


def _read_suite(suite: Suite, tally: _Tally, every_block_is_suite: bool) -> Verdict:
    """``readSuite``: count ``suite`` into ``tally`` and return its merged verdict."""
    # Time is summed before the children, as the CLI does, so float totals match to the bit.
    tally.time_ms += suite.end_ms - suite.start_ms
    verdict = suite.verdict
    for child in suite.suites:
        verdict = merge_verdicts(verdict, _read_suite(child, tally, every_block_is_suite))
    for test in suite.tests:
        verdict = merge_verdicts(verdict, test.verdict)
        tally.add_test(test.verdict)
    if not every_block_is_suite and suite.kind in TEST_CASE_KINDS:
        # An empty test case stands for one test; a "none" one is not counted at all.
        if not suite.suites and not suite.tests and verdict is not Verdict.NONE:
            tally.add_test(verdict)
        return verdict
    tally.add_suite(verdict)
    return verdict


def file_verdict(suites: Sequence[Suite]) -> Verdict:
    """The file's verdict: the merge of its top-level suites' merged verdicts (every version)."""
    verdict = Verdict.NONE
    scratch = _Tally()
    for suite in suites:
        verdict = merge_verdicts(verdict, _read_suite(suite, scratch, every_block_is_suite=False))
    return verdict


def count(suites: Sequence[Suite], every_block_is_suite: bool = False) -> Counts:
    """Suite and test totals of one file's suites, exactly as ``readSuite`` counts them.

    as-test before 1.4.0 counts a test case (``test``/``it``/``only``/skip variants/``todo``) as
    one test when it has no expectations, else only its expectations, and never as a suite. From
    1.4.0 (``every_block_is_suite``) every block is a suite (a "none" one counts as skipped) and
    only expectations are tests, so a ``todo`` or ``xtest`` with no expectations is one skipped
    suite and no test.
    """
    tally = _Tally()
    for suite in suites:
        _read_suite(suite, tally, every_block_is_suite)
    return tally.counts()


# --------------------------------------------------------------------------------------------------
# Failure listing


def failures(suites: Sequence[Suite]) -> list[FailureDetail]:
    """Every failing expectation, depth-first in report order, each listed once.

    Two failures with the same title, values and message are one line in the CLI's listing
    (its de-duplication key is file, mode, title, left, right and message; file and mode are
    fixed for one report).
    """
    seen: set[tuple[str, str | None, str | None, str]] = set()
    listed: list[FailureDetail] = []
    for detail in _walk_failures(suites, ()):
        key = (detail.title, detail.actual, detail.expected, detail.message)
        if key not in seen:
            seen.add(key)
            listed.append(detail)
    return listed


def _walk_failures(suites: Sequence[Suite], path: tuple[str, ...]) -> Iterator[FailureDetail]:
    for suite in suites:
        suite_path = (*path, suite.description)
        title_prefix = " > ".join(suite_path)
        for index, test in enumerate(suite.tests, start=1):
            if test.verdict is Verdict.FAIL:
                yield FailureDetail(
                    title=f"{title_prefix}#{index}",
                    location=test.location,
                    matcher=test.instr,
                    expected=test.right,
                    actual=test.left,
                    message=test.message,
                )
        yield from _walk_failures(suite.suites, suite_path)
