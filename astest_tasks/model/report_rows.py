"""The stored form of a report's suites: plain data for the result file (model/results.py),
each expectation as one compact row.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from astest_tasks.model.guest_report import (
    VERDICT_BY_VALUE,
    VERDICT_VALUES,
    Expectation,
    ReportError,
    Suite,
    Verdict,
    quick_expectation,
)

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
            and verdict in VERDICT_BY_VALUE
            and type(instr) is str
            and type(message) is str
            and type(location) is str
            and type(kind) is str
            and (left is None or type(left) is str)
            and (right is None or type(right) is str)
        ):
            return quick_expectation(
                order, VERDICT_BY_VALUE[verdict], instr, message, location, left, right, kind
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
    try:
        return float(value)
    except OverflowError:  # an integer too large for a float: JSON's have no bound
        raise _stored_error(d, key, "a number a float can hold") from None


def _stored_verdict(d: Mapping[str, object], key: str) -> Verdict:
    value = d.get(key)
    if isinstance(value, str) and value in VERDICT_VALUES:
        return Verdict(value)
    if key not in d:
        raise _stored_error(d, key, "a verdict")
    raise ReportError(
        f"stored result field {key!r} should be one of {', '.join(sorted(VERDICT_VALUES))}, "
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
