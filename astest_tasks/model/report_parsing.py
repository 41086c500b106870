"""Reading a spec's report payload the way as-test's CLI reads it: loosely, through
JavaScript's ``String``, ``Number`` and ``JSON.stringify`` (``collectRunStats``/``readSuite`` in
``bin/commands/run-core.js``), so a report ``npx ast test`` accepts is accepted here with the
same texts. The payload is docs/design/host-contract.md §4.6; the types are guest_report.py's.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import cast

from astest_tasks.core.guest_text import decode_guest_utf8
from astest_tasks.core.js_values import (
    js_json,
    js_json_string,
    js_number,
    js_string,
)
from astest_tasks.core.json_text import parse_json, reject_constant
from astest_tasks.model.guest_report import (
    VERDICT_BY_VALUE,
    Expectation,
    ReportError,
    Suite,
    normalize_verdict,
    quick_expectation,
)

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


def _load_json(text: str) -> object:
    try:
        return parse_json(text, parse_constant=reject_constant)
    except ValueError as error:  # JSONDecodeError (too deep a nesting too), NaN, long integers
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
        and verdict in VERDICT_BY_VALUE
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
        VERDICT_BY_VALUE[verdict],
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
