"""Tests for astest_tasks.model.report_rows: a report's suites, counts and failures stored and
read back.
"""

from __future__ import annotations

import json

import pytest

from astest_tasks.model.guest_report import (
    ReportError,
    Suite,
    Verdict,
    runtime_error_suite,
)
from astest_tasks.model.report_parsing import parse_report
from astest_tasks.model.report_rows import (
    suite_from_dict,
    suite_to_dict,
)
from tests.model.report_builders import (
    EXAMPLE_PAYLOAD,
    plain_expectation,
    plain_suite,
)

# ---- plain-data round trips ----------------------------------------------------------------------


def test_suite_round_trips_through_json_text() -> None:
    suites = (*parse_report(EXAMPLE_PAYLOAD), runtime_error_suite("x.spec.ts", "t", "d", "o", "e"))
    nested = Suite(
        description="logs",
        kind="describe",
        depth=0,
        verdict=Verdict.SKIP,
        start_ms=1.0,
        end_ms=2.5,
        suites=suites,
        tests=(plain_expectation(Verdict.FAIL, left=None, right='{"a":[1]}'),),
        logs=("one", "two"),
    )
    stored = json.loads(json.dumps(suite_to_dict(nested)))
    assert suite_from_dict(stored) == nested


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"verdict": "passed"}, "'verdict' should be one of"),
        ({"depth": "0"}, "'depth' should be an integer"),
        ({"depth": True}, "'depth' should be an integer"),
        ({"start_ms": None}, "'start_ms' should be a number"),
        ({"end_ms": 10**400}, "'end_ms' should be a number a float can hold"),  # no Overflow
        ({"suites": {}}, "'suites' should be a list"),
        ({"tests": [1]}, "'tests' should hold only lists"),
        ({"tests": [[0, "ok", "toBe", "", "", 5, None, ""]]}, "'left' should be a string or null"),
        ({"tests": [[0, "ok"]]}, "no 'instr' field"),
        ({"logs": [None]}, "'logs' should hold only strings"),
    ],
)
def test_malformed_stored_suites_raise_report_error(
    change: dict[str, object], problem: str
) -> None:
    stored = suite_to_dict(plain_suite("s")) | change
    with pytest.raises(ReportError, match=problem):
        suite_from_dict(stored)


def test_missing_stored_fields_raise_report_error() -> None:
    for field in ("depth", "verdict", "tests"):
        stored = suite_to_dict(plain_suite("s"))
        del stored[field]
        with pytest.raises(ReportError, match=f"no '{field}' field"):
            suite_from_dict(stored)
