"""The JSON report an as-test spec sends, as typed data, with as-test's verdicts and counts.

A compiled spec sends one DATA payload: ``{"suites": [Suite...], "coverage": {...}}`` (HEAD builds
omit ``coverage``). The as-test CLI reads it loosely: every field goes through ``String(x ?? "")``
or ``Number(x ?? 0)`` and a missing list is an empty one. This module reads it the same way, so a
report that ``npx ast test`` accepts is accepted here and counts to the same totals
(``collectRunStats``/``readSuite`` in ``bin/commands/run-core.js``; 1.8.0 sends the same report
shape and counts blocks differently, see ``count``). Small JavaScript conversions
(``String``, ``Number``, ``JSON.stringify``) are reimplemented here because the numbers and texts
the CLI shows come out of them: ``1.0`` from the guest shows as ``1``, not Python's ``1.0``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import cast

from astest_tasks.core.guest_text import decode_guest_utf8
from astest_tasks.core.js_values import (
    JS_WHITESPACE,
    js_json,
    js_json_string,
    js_number,
    js_string,
)

__all__ = [
    "Counts",
    "Expectation",
    "FailureDetail",
    "ReportError",
    "Suite",
    "Verdict",
    "count",
    "counts_from_dict",
    "counts_to_dict",
    "failure_from_dict",
    "failure_to_dict",
    "failures",
    "file_verdict",
    "merge_verdicts",
    "normalize_verdict",
    "parse_report",
    "quick_expectation",
    "runtime_error_suite",
    "suite_from_dict",
    "suite_to_dict",
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


_VERDICT_VALUES = frozenset(verdict.value for verdict in Verdict)
_VERDICT_BY_VALUE = {verdict.value: verdict for verdict in Verdict}
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


@dataclass(frozen=True)
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
    """``Expectation(...)`` for values already checked, about six times faster: a frozen
    dataclass's ``__init__`` sets each field through ``object.__setattr__``, which costs seconds
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


@dataclass(frozen=True)
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


@dataclass(frozen=True)
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


@dataclass(frozen=True)
class FailureDetail:
    """One entry of the failure listing printed after a run."""

    title: str  # "<suite path joined ' > '>#<1-based index of the expectation in its suite>"
    location: str  # "line:col" or ""
    matcher: str
    expected: str | None
    actual: str | None
    message: str


# --------------------------------------------------------------------------------------------------
# Parsing the payload


def parse_report(payload: bytes) -> tuple[Suite, ...]:
    """The top-level suites of a report payload.

    Raises ``ReportError`` (and nothing else) when the bytes are not UTF-8 or not JSON, when the
    document is falsy in JavaScript (the CLI then says the runtime sent no report), or when a suite
    or expectation entry is ``null`` (the CLI crashes reading a property of it). Any other shape is
    tolerated as the CLI tolerates it: a bare array is the suites list, and an object whose
    ``suites`` is not a list has no suites.
    """
    document = _load_json(_decode_utf8(payload))
    try:
        return tuple(_suite_from_json(entry) for entry in _top_level_entries(document))
    except RecursionError as error:
        raise ReportError("report payload is nested too deeply to read") from error


def _decode_utf8(payload: bytes) -> str:
    # Lenient, as the CLI's Buffer.toString("utf8"): a bad byte is U+FFFD, not a lost report; a
    # WTF-8 lone surrogate is kept (guest_text).
    return decode_guest_utf8(payload)


def _reject_non_json_constant(name: str) -> object:
    # Python's json accepts NaN/Infinity; JSON.parse (and so the CLI) does not.
    raise ValueError(f"{name} is not valid JSON")


def _load_json(text: str) -> object:
    try:
        return json.loads(text, parse_constant=_reject_non_json_constant)
    except RecursionError as error:
        raise ReportError("report payload is nested too deeply to read") from error
    except ValueError as error:  # JSONDecodeError, the NaN rejection, over-long integers
        raise ReportError(f"report payload is not valid JSON: {error}") from error


def _top_level_entries(document: object) -> list[object]:
    """The suites list, as ``runProcess`` (falsy check) and ``normalizeReport`` find it."""
    if isinstance(document, list):
        return document
    if _js_falsy(document):
        raise ReportError(f"report payload is {js_json(document)}, not a report object")
    if isinstance(document, dict):
        suites = document.get("suites")
        if isinstance(suites, list):
            return suites
    return []


def _js_falsy(value: object) -> bool:
    # JSON can only produce these falsy values; [] and {} are truthy in JavaScript.
    if value is None or value is False or value == "":
        return True
    return isinstance(value, int | float) and not isinstance(value, bool) and value == 0


def _fields(value: object, what: str) -> Mapping[str, object]:
    """Property access the JavaScript way: a primitive or array has none of our properties."""
    if value is None:
        raise ReportError(f"report has a null {what} entry")
    if isinstance(value, dict):
        return value
    return {}


def _list_field(fields: Mapping[str, object], key: str) -> list[object]:
    value = fields.get(key)
    return value if isinstance(value, list) else []


def _string_field(fields: Mapping[str, object], key: str, default: str = "") -> str:
    value = fields.get(key)
    return js_string(default if value is None else value)


def _number_field(fields: Mapping[str, object], key: str) -> float:
    value = fields.get(key)
    return js_number(0 if value is None else value)


def _int_field(fields: Mapping[str, object], key: str) -> int:
    # order/depth are only displayed by the CLI; a non-finite value has no sensible int, so 0.
    number = _number_field(fields, key)
    return int(number) if math.isfinite(number) else 0


def _suite_from_json(value: object) -> Suite:
    fields = _fields(value, "suite")
    time = fields.get("time")
    time_fields: Mapping[str, object] = time if isinstance(time, dict) else {}
    return Suite(
        # The CLI's failure listing shows a missing description as "unknown".
        description=_string_field(fields, "description", default="unknown"),
        kind=_string_field(fields, "kind"),
        depth=_int_field(fields, "depth"),
        verdict=normalize_verdict(fields.get("verdict")),
        start_ms=_number_field(time_fields, "start"),
        end_ms=_number_field(time_fields, "end"),
        suites=tuple(_suite_from_json(entry) for entry in _list_field(fields, "suites")),
        tests=tuple(_expectation_from_json(entry) for entry in _list_field(fields, "tests")),
        logs=tuple(_log_text(entry) for entry in _list_field(fields, "logs")),
    )


def _expectation_from_json(value: object) -> Expectation:
    # A big spec reports tens of thousands of expectations, nearly all of the usual shape: read
    # those in one go, and leave everything else to the field-by-field JavaScript rules below.
    if type(value) is dict:
        usual = _usual_expectation(value)
        if usual is not None:
            return usual
    return _expectation_by_fields(value)


def _expectation_by_fields(value: object) -> Expectation:
    fields = _fields(value, "expectation")
    return Expectation(
        order=_int_field(fields, "order"),
        verdict=normalize_verdict(fields.get("verdict")),
        instr=_string_field(fields, "instr"),
        message=_string_field(fields, "message"),
        location=_string_field(fields, "location"),
        left=_value_text(fields.get("left")),
        right=_value_text(fields.get("right")),
        kind=_string_field(fields, "type"),
    )


def _usual_expectation(fields: dict[str, object]) -> Expectation | None:
    """The expectation of a payload entry whose fields have the types the guest writes (an
    integer order, a known verdict, strings, plain left/right values), else None.

    It gives exactly what the field-by-field rules give for such an entry.
    """
    order = fields.get("order")
    verdict = fields.get("verdict")
    instr = fields.get("instr", "")
    message = fields.get("message", "")
    location = fields.get("location", "")
    kind = fields.get("type", "")
    if not (
        type(order) is int
        and -_EXACT_INT < order < _EXACT_INT
        and type(verdict) is str
        and verdict in _VERDICT_BY_VALUE
        and type(instr) is str
        and type(message) is str
        and type(location) is str
        and type(kind) is str
    ):
        return None
    left = _plain_value_text(fields.get("left"))
    right = _plain_value_text(fields.get("right"))
    if left is _NOT_PLAIN or right is _NOT_PLAIN:
        return None
    return quick_expectation(
        order,
        _VERDICT_BY_VALUE[verdict],
        instr,
        message,
        location,
        cast("str | None", left),
        cast("str | None", right),
        kind,
    )


_NOT_PLAIN = object()
_EXACT_INT = 2**53


def _plain_value_text(value: object) -> object:
    """``_value_text`` for null, a string or an exactly representable integer; ``_NOT_PLAIN``
    for anything else (floats, lists, objects take the general route)."""
    if value is None:
        return None
    kind = type(value)
    if kind is str:
        return js_json_string(cast(str, value))
    if kind is int and -_EXACT_INT < cast(int, value) < _EXACT_INT:
        return str(value)  # what Number#toString gives for an integer below 2**53
    if kind is float:
        return _value_text(value)
    return _NOT_PLAIN


def _log_text(value: object) -> str:
    # Guest logs are {"order", "depth", "text"}; the CLI's stats never read them.
    if isinstance(value, dict):
        return _string_field(value, "text")
    return "" if value is None else js_string(value)


def _value_text(value: object) -> str | None:
    """``JSON.stringify`` of a raw left/right value; None where the CLI sees ``"null"``."""
    text = js_json(value)
    return None if text == "null" else text


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


# --------------------------------------------------------------------------------------------------
# Verdicts and counts


TEST_CASE_KINDS = frozenset({"test", "it", "only", "xtest", "xit", "xonly", "todo"})


@dataclass
class _Tally:
    """Running totals while walking suites, in the order ``readSuite`` updates them."""

    suites_passed: int = 0
    suites_failed: int = 0
    suites_skipped: int = 0
    tests_passed: int = 0
    tests_failed: int = 0
    tests_skipped: int = 0
    time_ms: float = 0.0

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


# --------------------------------------------------------------------------------------------------
# Plain-data round trip


def suite_to_dict(s: Suite) -> dict[str, object]:
    return {
        "description": s.description,
        "kind": s.kind,
        "depth": s.depth,
        "verdict": s.verdict.value,
        "start_ms": s.start_ms,
        "end_ms": s.end_ms,
        "suites": [suite_to_dict(child) for child in s.suites],
        "tests": [_expectation_to_row(test) for test in s.tests],
        "logs": list(s.logs),
    }


def suite_from_dict(d: Mapping[str, object]) -> Suite:
    return Suite(
        description=_stored_str(d, "description"),
        kind=_stored_str(d, "kind"),
        depth=_stored_int(d, "depth"),
        verdict=_stored_verdict(d, "verdict"),
        start_ms=_stored_float(d, "start_ms"),
        end_ms=_stored_float(d, "end_ms"),
        suites=tuple(suite_from_dict(child) for child in _stored_mappings(d, "suites")),
        tests=tuple(_expectation_from_row(test) for test in _stored_rows(d, "tests")),
        logs=tuple(_stored_strs(d, "logs")),
    )


# A big spec stores tens of thousands of expectations: each is a row (a JSON array in this order)
# rather than an object, which halves the bytes to write, hash and parse.
_EXPECTATION_FIELDS = ("order", "verdict", "instr", "message", "location", "left", "right", "kind")


def _expectation_to_row(e: Expectation) -> list[object]:
    return [e.order, e.verdict.value, e.instr, e.message, e.location, e.left, e.right, e.kind]


def _expectation_from_row(row: Sequence[object]) -> Expectation:
    # Check the usual shape in one go; fall back to the field-by-field checks (which name the
    # wrong field) only when it is not met.
    if len(row) == len(_EXPECTATION_FIELDS):
        order, verdict, instr, message, location, left, right, kind = row
        if (
            type(order) is int
            and isinstance(verdict, str)
            and verdict in _VERDICT_BY_VALUE
            and type(instr) is str
            and type(message) is str
            and type(location) is str
            and type(kind) is str
            and (left is None or type(left) is str)
            and (right is None or type(right) is str)
        ):
            return quick_expectation(
                order, _VERDICT_BY_VALUE[verdict], instr, message, location, left, right, kind
            )
    d = dict(zip(_EXPECTATION_FIELDS, row, strict=False))
    return Expectation(
        order=_stored_int(d, "order"),
        verdict=_stored_verdict(d, "verdict"),
        instr=_stored_str(d, "instr"),
        message=_stored_str(d, "message"),
        location=_stored_str(d, "location"),
        left=_stored_optional_str(d, "left"),
        right=_stored_optional_str(d, "right"),
        kind=_stored_str(d, "kind"),
    )


def counts_to_dict(c: Counts) -> dict[str, object]:
    return {
        "suites_passed": c.suites_passed,
        "suites_failed": c.suites_failed,
        "suites_skipped": c.suites_skipped,
        "tests_passed": c.tests_passed,
        "tests_failed": c.tests_failed,
        "tests_skipped": c.tests_skipped,
        "time_ms": c.time_ms,
    }


def counts_from_dict(d: Mapping[str, object]) -> Counts:
    return Counts(
        suites_passed=_stored_int(d, "suites_passed"),
        suites_failed=_stored_int(d, "suites_failed"),
        suites_skipped=_stored_int(d, "suites_skipped"),
        tests_passed=_stored_int(d, "tests_passed"),
        tests_failed=_stored_int(d, "tests_failed"),
        tests_skipped=_stored_int(d, "tests_skipped"),
        time_ms=_stored_float(d, "time_ms"),
    )


def failure_to_dict(f: FailureDetail) -> dict[str, object]:
    return {
        "title": f.title,
        "location": f.location,
        "matcher": f.matcher,
        "expected": f.expected,
        "actual": f.actual,
        "message": f.message,
    }


def failure_from_dict(d: Mapping[str, object]) -> FailureDetail:
    return FailureDetail(
        title=_stored_str(d, "title"),
        location=_stored_str(d, "location"),
        matcher=_stored_str(d, "matcher"),
        expected=_stored_optional_str(d, "expected"),
        actual=_stored_optional_str(d, "actual"),
        message=_stored_str(d, "message"),
    )


# Stored results are our own output, so unlike payloads they are read strictly: a wrong type means
# a corrupt or foreign file, reported as ReportError naming the field.


def _stored_error(d: Mapping[str, object], key: str, expected: str) -> ReportError:
    if key not in d:
        return ReportError(f"stored result has no {key!r} field")
    return ReportError(
        f"stored result field {key!r} should be {expected}, not {type(d[key]).__name__}"
    )


def _stored_str(d: Mapping[str, object], key: str) -> str:
    value = d.get(key)
    if not isinstance(value, str):
        raise _stored_error(d, key, "a string")
    return value


def _stored_optional_str(d: Mapping[str, object], key: str) -> str | None:
    if key not in d:
        raise _stored_error(d, key, "a string or null")
    value = d[key]
    if value is not None and not isinstance(value, str):
        raise _stored_error(d, key, "a string or null")
    return value


def _stored_int(d: Mapping[str, object], key: str) -> int:
    value = d.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise _stored_error(d, key, "an integer")
    return value


def _stored_float(d: Mapping[str, object], key: str) -> float:
    value = d.get(key)
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise _stored_error(d, key, "a number")
    return float(value)


def _stored_verdict(d: Mapping[str, object], key: str) -> Verdict:
    value = d.get(key)
    if isinstance(value, str) and value in _VERDICT_VALUES:
        return Verdict(value)
    if key not in d:
        raise _stored_error(d, key, "a verdict")
    raise ReportError(
        f"stored result field {key!r} should be one of {', '.join(sorted(_VERDICT_VALUES))}, "
        f"not {value!r}"
    )


def _stored_list(d: Mapping[str, object], key: str) -> list[object]:
    value = d.get(key)
    if not isinstance(value, list | tuple):
        raise _stored_error(d, key, "a list")
    return list(value)


def _stored_mappings(d: Mapping[str, object], key: str) -> list[Mapping[str, object]]:
    items = _stored_list(d, key)
    if not all(isinstance(item, Mapping) for item in items):
        raise ReportError(f"stored result field {key!r} should hold only objects")
    return [item for item in items if isinstance(item, Mapping)]


def _stored_rows(d: Mapping[str, object], key: str) -> list[Sequence[object]]:
    items = _stored_list(d, key)
    if not all(isinstance(item, list | tuple) for item in items):
        raise ReportError(f"stored result field {key!r} should hold only lists")
    return [item for item in items if isinstance(item, list | tuple)]


def _stored_strs(d: Mapping[str, object], key: str) -> list[str]:
    items = _stored_list(d, key)
    if not all(isinstance(item, str) for item in items):
        raise ReportError(f"stored result field {key!r} should hold only strings")
    return [item for item in items if isinstance(item, str)]
