"""``--test-name-pattern`` (``-t``): report only the tests whose full name matches a regular
expression, as jest's ``-t`` and as-pect's ``-t``/``-g`` do; the others count as skipped.

A test's full name is its path of descriptions joined with `` > `` (``gcd > of two
positives``), as failures are titled; the pattern is searched in it (Python's ``re.search``).
as-test has no such filter inside the guest (its ``assembly/`` reads no test name from the
host), so the spec still runs whole, like ``--suite``: an unmatched test case is counted as if
it had been written ``xtest`` (its expectations dropped, its verdict skipped), by the counting
rules of the installed as-test, and the file's verdict follows from the tests that remain. The
stored result stays whole, so changing the pattern re-runs nothing and the next run without it
shows every test again. A crash is not a test: it still fails the spec.
"""

from __future__ import annotations

import re
from dataclasses import replace

from astest_tasks.core.errors import UserError
from astest_tasks.model.counting import TEST_CASE_KINDS, count, failures, file_verdict
from astest_tasks.model.guest_report import Suite, Verdict
from astest_tasks.model.results import SpecResult, Status, status_of
from astest_tasks.output.suite_filter import RUNTIME_ERROR_KIND, merged_verdict

PATH_SEPARATOR = " > "


def compile_test_name_pattern(text: str) -> re.Pattern[str] | None:
    """The option's pattern, or None for none; a bad expression is a one-line user error."""
    if not text:
        return None
    try:
        return re.compile(text)
    except re.error as exc:
        raise UserError(
            f"--test-name-pattern {text!r} is not a regular expression ({exc}); fix: escape "
            r"the special characters (e.g. `gcd \(edge\)`), or quote the whole name"
        ) from None


def skip_unmatched_tests(result: SpecResult, pattern: re.Pattern[str]) -> SpecResult:
    if not result.suites:
        return result  # a build failure or a crash before any report: nothing to filter
    kept = tuple(_filtered(suite, pattern, ()) for suite in result.suites)
    verdict = file_verdict(kept)
    status = status_of(verdict)
    if result.status is Status.FAILED and verdict is not Verdict.FAIL and _crashed(result):
        status = Status.FAILED
    return replace(
        result,
        suites=kept,
        counts=count(kept, result.every_block_is_suite),
        failures=tuple(failures(kept)),
        status=status,
    )


def _filtered(suite: Suite, pattern: re.Pattern[str], path: tuple[str, ...]) -> Suite:
    here = (*path, suite.description)
    if suite.kind in TEST_CASE_KINDS:
        if pattern.search(PATH_SEPARATOR.join(here)) or suite.verdict in (
            Verdict.SKIP,
            Verdict.NONE,
        ):
            return suite
        return replace(suite, verdict=Verdict.SKIP, tests=(), suites=(), logs=())
    children = tuple(_filtered(child, pattern, here) for child in suite.suites)
    if children == suite.suites:
        return suite
    # The guest merged the children's verdicts into this block's: merge again without them.
    verdicts = [test.verdict for test in suite.tests] + [child.verdict for child in children]
    return replace(suite, suites=children, verdict=merged_verdict(verdicts, suite.verdict))


def _crashed(result: SpecResult) -> bool:
    """A failure the guest did not report as an expectation (a trap, a timeout, an abort)."""
    return any(suite.kind == RUNTIME_ERROR_KIND for suite in result.suites)
