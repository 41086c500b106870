"""The JSON report an as-test spec sends, as typed data, and the suite the host makes up when a
spec could not report.

The types are shared by the report's three other modules: report_parsing.py reads a payload into
them, counting.py makes as-test's verdicts, totals and failure listing from them, report_rows.py
stores them in a result file. A compiled spec sends one DATA payload: ``{"suites": [Suite...],
"coverage": {...}}`` (HEAD builds omit ``coverage``); the as-test CLI reads it loosely
(``collectRunStats``/``readSuite`` in ``bin/commands/run-core.js``), through JavaScript's own
conversions (core/js_values.py), so a report that ``npx ast test`` accepts is accepted here and
counts to the same totals.
"""

from __future__ import annotations

from enum import StrEnum

from astest_tasks.core.frozen import frozen
from astest_tasks.core.js_values import (
    JS_WHITESPACE,
    js_string,
)

__all__ = [
    "VERDICT_BY_VALUE",
    "VERDICT_VALUES",
    "Counts",
    "Expectation",
    "FailureDetail",
    "ReportError",
    "Suite",
    "Verdict",
    "merge_verdicts",
    "normalize_verdict",
    "quick_expectation",
    "runtime_error_suite",
]


class ReportError(ValueError):
    """A report payload (or a stored result) that cannot be read; the message says what is wrong."""


# --------------------------------------------------------------------------------------------------
# Verdicts


class Verdict(StrEnum):
    OK = "ok"
    FAIL = "fail"
    SKIP = "skip"
    NONE = "none"


# The stored and reported texts of the verdicts, for the readers of a payload and of a result file.
VERDICT_VALUES = frozenset(verdict.value for verdict in Verdict)
VERDICT_BY_VALUE = {verdict.value: verdict for verdict in Verdict}
_VERDICT_RANK = {Verdict.NONE: 0, Verdict.SKIP: 1, Verdict.OK: 2, Verdict.FAIL: 3}


def merge_verdicts(a: Verdict, b: Verdict) -> Verdict:
    """The stronger of two verdicts: fail > ok > skip > none (``mergeVerdict``)."""
    return a if _VERDICT_RANK[a] >= _VERDICT_RANK[b] else b


def normalize_verdict(value: object) -> Verdict:
    """``normalizeVerdict``: ``String(value ?? "none")``; anything unknown is ``none``."""
    text = js_string("none" if value is None else value)
    try:
        return Verdict(text)
    except ValueError:
        return Verdict.NONE


# --------------------------------------------------------------------------------------------------
# Data


@frozen
class Expectation:
    """One ``expect(...)`` result (an entry of a suite's ``tests``)."""

    order: int
    verdict: Verdict
    instr: str
    message: str
    location: str
    left: str | None  # the received value as JSON text; None for null or absent
    right: str | None  # the expected value as JSON text; None for null or absent
    kind: str  # the payload's "type": "" normally, "runtime-error" for host-made failures


def quick_expectation(
    order: int,
    verdict: Verdict,
    instr: str,
    message: str,
    location: str,
    left: str | None,
    right: str | None,
    kind: str,
) -> Expectation:
    """``Expectation(...)`` for values already checked, several times faster: a record's
    ``__init__`` sets each field through its frozen guard (core/frozen.py), which costs seconds
    over the hundreds of thousands of expectations of a big suite."""
    made = _new_object(Expectation)
    made.__dict__.update(
        order=order,
        verdict=verdict,
        instr=instr,
        message=message,
        location=location,
        left=left,
        right=right,
        kind=kind,
    )
    return made


_new_object = object.__new__


@frozen
class Suite:
    """A ``describe``/``test``/... block as the guest reported it (verdict not yet merged)."""

    description: str
    kind: str
    depth: int
    verdict: Verdict
    start_ms: float
    end_ms: float
    suites: tuple[Suite, ...]
    tests: tuple[Expectation, ...]
    logs: tuple[str, ...]


@frozen
class Counts:
    """Suite and test totals of one or more files, as the CLI's ``Suites:``/``Tests:`` lines."""

    suites_passed: int
    suites_failed: int
    suites_skipped: int
    tests_passed: int
    tests_failed: int
    tests_skipped: int
    time_ms: float

    @classmethod
    def zero(cls) -> Counts:
        return cls(0, 0, 0, 0, 0, 0, 0.0)

    def __add__(self, other: Counts) -> Counts:
        return Counts(
            suites_passed=self.suites_passed + other.suites_passed,
            suites_failed=self.suites_failed + other.suites_failed,
            suites_skipped=self.suites_skipped + other.suites_skipped,
            tests_passed=self.tests_passed + other.tests_passed,
            tests_failed=self.tests_failed + other.tests_failed,
            tests_skipped=self.tests_skipped + other.tests_skipped,
            time_ms=self.time_ms + other.time_ms,
        )


@frozen
class FailureDetail:
    """One entry of the failure listing printed after a run."""

    title: str  # "<suite path joined ' > '>#<1-based index of the expectation in its suite>"
    location: str  # "line:col" or ""
    matcher: str
    expected: str | None
    actual: str | None
    message: str


# --------------------------------------------------------------------------------------------------
# The host-made failure suite


def runtime_error_suite(
    spec_basename: str, title: str, details: str, stdout: str, stderr: str
) -> Suite:
    """The suite ``appendRuntimeFailureReport`` adds when the runtime crashed or wrote to stderr."""
    failure = Expectation(
        order=0,
        verdict=Verdict.FAIL,
        instr=title,
        message=_runtime_failure_message(details, stdout, stderr),
        location="",
        left=None,
        right=None,
        kind="runtime-error",
    )
    return Suite(
        description=spec_basename,
        kind="runtime-error",
        depth=0,
        verdict=Verdict.FAIL,
        start_ms=0.0,
        end_ms=0.0,
        suites=(),
        tests=(failure,),
        logs=(),
    )


def _runtime_failure_message(details: str, stdout: str, stderr: str) -> str:
    """``formatRuntimeFailureMessage``: details, then stderr unless it repeats them, then stdout."""
    details = _normalize_runtime_output(details)
    stderr = _normalize_runtime_output(stderr)
    stdout = _normalize_runtime_output(stdout)
    parts: list[str] = []
    if details:
        parts.append(details)
    if stderr and stderr != details:
        parts.append(f"stderr:\n{stderr}")
    if stdout:
        parts.append(f"stdout:\n{stdout}")
    return "\n\n".join(parts)


def _normalize_runtime_output(text: str) -> str:
    return text.replace("\r\n", "\n").strip(JS_WHITESPACE)
