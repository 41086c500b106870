"""A spec's test cases: a block of expectations (or an empty test) reported as one point.

as-test counts every expectation as a test, and a spec that loops over a table holds tens of
thousands of them. CI reports list test cases instead: every block that holds expectations (a
``test``/``it``, or a ``describe`` with expectations of its own), named by its suite path, and
every test with no expectations. A case carries how many of its expectations passed, failed and
skipped (so the totals still add up to as-test's), and a failing case every failing
expectation's details. They are computed once, when the run task writes the result (the
summary then reads a few lines, not every expectation), and stored as JSON rows.

A case run as a ``test``/``it``/``only`` block carries the block's time as the guest reported
it (``end - start``); any other case (a skipped test, a describe's own expectations, whose time
holds its children's) has none. An untimed case is stored as the nine fields every row had
before cases had a time, a timed one with its time as a tenth: a result stored by the version
before reads the same, and is written the same.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator, Sequence

from astest_tasks.core.frozen import frozen
from astest_tasks.model.guest_report import Expectation, Suite, Verdict

_TEST_KINDS = frozenset({"test", "it", "xtest", "xit", "only", "xonly", "todo"})
_TIMED_KINDS = frozenset({"test", "it", "only"})  # blocks that run: their time is a test's
_UNTIMED_ROW = 9  # the fields of a row written before cases had a time


@frozen
class TestCase:
    """One reported test case, with how many of its expectations passed, failed and skipped."""

    __test__ = False  # not a pytest class, whatever its name

    name: str
    verdict: Verdict  # FAIL if any expectation failed, OK if any passed, else SKIP
    message: str = ""
    details: str = ""  # every failing expectation, when the case failed
    location: str = ""  # the first failing expectation's
    matcher: str = ""  # the first failing expectation's
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    duration_ms: float | None = None  # the block's time; None when the guest did not time it

    def to_row(self) -> list[object]:
        """The stored row; an untimed case's is the nine fields rows had before times."""
        row: list[object] = [
            self.name,
            self.verdict.value,
            self.message,
            self.details,
            self.location,
            self.matcher,
            self.passed,
            self.failed,
            self.skipped,
        ]
        return row if self.duration_ms is None else [*row, self.duration_ms]

    @classmethod
    def from_row(cls, row: Sequence[object]) -> TestCase:
        fields = [*row, None] if len(row) == _UNTIMED_ROW else row
        name, verdict, message, details, location, matcher, passed, failed, skipped, ms = fields
        if not all(type(n) is int for n in (passed, failed, skipped)):
            raise ValueError(f"test case counts should be integers: {row!r}")
        return cls(
            name=str(name),
            verdict=Verdict(str(verdict)),
            message=str(message),
            details=str(details),
            location=str(location),
            matcher=str(matcher),
            passed=int(passed),  # type: ignore[call-overload]
            failed=int(failed),  # type: ignore[call-overload]
            skipped=int(skipped),  # type: ignore[call-overload]
            duration_ms=_time_of(ms, row),
        )


def _time_of(ms: object, row: Sequence[object]) -> float | None:
    """A stored row's time: None, or a finite number (a row is read from a cache entry too)."""
    if ms is None:
        return None
    if isinstance(ms, int | float) and not isinstance(ms, bool):
        # float() first: math.isfinite of an integer too large for a float raises OverflowError.
        with contextlib.suppress(OverflowError):
            if math.isfinite(time := float(ms)):
                return time
    raise ValueError(f"a test case's time should be a finite number or null: {row!r}")


def test_cases(suites: Sequence[Suite]) -> list[TestCase]:
    return list(_cases(suites, ()))


test_cases.__test__ = False  # type: ignore[attr-defined]


def _cases(suites: Sequence[Suite], path: tuple[str, ...]) -> Iterator[TestCase]:
    for suite in suites:
        suite_path = (*path, suite.description)
        name = " > ".join(suite_path)
        if suite.tests:
            yield _block_case(name, suite.tests, block_ms(suite))
        elif not suite.suites and suite.kind in _TEST_KINDS:
            verdict = suite.verdict if suite.verdict in (Verdict.OK, Verdict.FAIL) else Verdict.SKIP
            yield TestCase(
                name=name,
                verdict=verdict,
                passed=int(verdict is Verdict.OK),
                failed=int(verdict is Verdict.FAIL),
                # as-test does not count an empty test with no verdict at all
                skipped=int(verdict is Verdict.SKIP and suite.verdict is not Verdict.NONE),
                duration_ms=block_ms(suite),
            )
        yield from _cases(suite.suites, suite_path)


def block_ms(suite: Suite) -> float | None:
    """The block's time when it ran as a test and the guest timed it; else None."""
    if suite.kind in _TIMED_KINDS and suite.end_ms > suite.start_ms:
        elapsed = suite.end_ms - suite.start_ms
        # The guest's numbers: 1e308 apart is no time at all (stored, it would read back as a
        # damaged result), and neither is anything a float cannot hold.
        return elapsed if math.isfinite(elapsed) else None
    return None


def _block_case(name: str, tests: Sequence[Expectation], ms: float | None) -> TestCase:
    passed = failed = 0
    failing: list[tuple[int, Expectation]] = []
    for index, test in enumerate(tests, start=1):
        verdict = test.verdict
        if verdict is Verdict.OK:
            passed += 1
        elif verdict is Verdict.FAIL:
            failed += 1
            failing.append((index, test))
    skipped = len(tests) - passed - failed
    if not failing:
        verdict = Verdict.OK if passed else Verdict.SKIP
        return TestCase(name=name, verdict=verdict, passed=passed, skipped=skipped, duration_ms=ms)
    first = failing[0][1]
    message = first.message or f"{first.instr} expected {first.right} but received {first.left}"
    if len(failing) > 1:
        message = f"{len(failing)} of {len(tests)} expectations failed; #{failing[0][0]}: {message}"
        details = "\n\n".join(
            f"expectation #{index}{f' at {test.location}' if test.location else ''}\n"
            + failure_text(test.instr, test.right, test.left, test.message)
            for index, test in failing
        )
    else:
        details = failure_text(first.instr, first.right, first.left, first.message)
    return TestCase(
        name=name,
        verdict=Verdict.FAIL,
        message=message,
        details=details,
        location=first.location,
        matcher=first.instr,
        passed=passed,
        failed=failed,
        skipped=skipped,
        duration_ms=ms,
    )


def failure_text(matcher: str, expected: str | None, actual: str | None, message: str) -> str:
    lines = [f"matcher: {matcher}", f"expected: {expected}", f"received: {actual}"]
    if message:
        lines.append(f"message: {message}")
    return "\n".join(lines)
