"""report.ctrf.json from result data, validated against CTRF's published JSON Schema.

ctrf.schema.json beside this file is CTRF's schema as published with its specification 0.0.0
(a working draft), unchanged: https://github.com/ctrf-io/ctrf/blob/
84ddec55811b6a9bf9db3bf9638c9568cde88bb5/schema/ctrf.schema.json (its repository's
schema/ctrf.schema.json, 2026-07-26). jsonschema, the kept validator of JSON Schema, checks it.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from astest_tasks.core.atomic import write_text_atomic
from astest_tasks.core.version import __version__
from astest_tasks.model.guest_report import Verdict
from astest_tasks.model.results import SpecIdentity, Stage, Status, failure_result
from astest_tasks.model.test_cases import TestCase
from astest_tasks.output.formats.ctrf import EXPECTATIONS, SPEC_VERSION, ctrf_document, ctrf_json
from astest_tasks.output.text_caps import MAX_NAME, MAX_TEXT
from tests.output.test_ci_reports import BROKEN, MATH, PASSING, expectation, result, suite

SCHEMA = Path(__file__).with_name("ctrf.schema.json")
CRASHED = failure_result(
    SpecIdentity("assembly/__tests__/hang.spec.ts", "hang", "wasi", "wasi"),
    "s1",
    Stage.RUN,
    "test runtime timed out after 2 s",
    "the spec ran longer than its timeout",
    "",
)


@cache
def _validator() -> jsonschema.protocols.Validator:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    return validator_class(schema)


def validated_ctrf(path: Path) -> dict[str, Any]:
    """The CTRF document at ``path``, after CTRF's schema accepted it (raises if not)."""
    document = json.loads(path.read_text(encoding="utf-8"))
    _validator().validate(document)
    assert isinstance(document, dict)
    return document


def write_and_read(tmp_path: Path, text: str) -> dict[str, Any]:
    path = tmp_path / "report.ctrf.json"
    write_text_atomic(path, text)
    return validated_ctrf(path)


def test_test_cases_become_ctrf_tests_counted_in_the_summary(tmp_path: Path) -> None:
    document = write_and_read(tmp_path, ctrf_json([MATH, BROKEN, PASSING, CRASHED]))
    assert document["reportFormat"] == "CTRF"
    assert document["specVersion"] == SPEC_VERSION
    results = document["results"]
    assert results["tool"] == {"name": "astest-tasks", "version": __version__}
    tests = results["tests"]
    assert [(t["name"], t["status"]) for t in tests] == [
        ("math > adds", "failed"),
        ("math > later", "skipped"),
        ("build failed", "failed"),  # a spec that never built is one failing test
        ("text", "passed"),
        ("hang.spec.ts", "failed"),  # as the runtime-error suite as-test adds names it
    ]
    summary = results["summary"]
    counted = ("tests", "passed", "failed", "skipped", "pending", "other")
    assert [summary[key] for key in counted] == [5, 1, 3, 1, 0, 0]
    assert summary["suites"] == 4
    # The summary's `tests:` line, the results' counts (counted from each fixture's suites; the
    # crash counts as as-test's runtime-error suite): CTRF has no field for them.
    assert summary["extra"] == {EXPECTATIONS: {"passed": 2, "failed": 2, "skipped": 1}}
    assert all("extra" not in test for test in tests)


def test_a_test_names_its_mode_and_spec_and_a_failure_its_message_and_where(
    tmp_path: Path,
) -> None:
    tests = write_and_read(tmp_path, ctrf_json([MATH, BROKEN]))["results"]["tests"]
    adds, later, broken = tests
    assert adds["suite"] == [MATH.mode, MATH.spec]
    assert adds["filePath"] == MATH.spec
    assert adds["message"] == "off by one # really\x00"  # JSON escapes it: \u0000
    assert adds["trace"].startswith(f"{MATH.spec}:4:7\n")
    assert "expected: 4" in adds["trace"] and "received: 5" in adds["trace"]
    assert "message" not in later and "trace" not in later
    assert broken["message"] == "ERROR TS2322: <bad> & worse"
    assert all(isinstance(t["duration"], int) and t["duration"] >= 0 for t in tests)


def test_a_test_takes_its_blocks_time_in_whole_milliseconds() -> None:
    from astest_tasks.output.formats.ctrf import _test

    timed = TestCase(name="a > b", verdict=Verdict.OK, passed=1, duration_ms=12.6)
    untimed = TestCase(name="a > c", verdict=Verdict.OK, passed=1)
    assert _test(MATH, timed)["duration"] == 13
    assert _test(MATH, untimed)["duration"] == 0


def test_the_run_ends_when_written_and_starts_the_specs_time_before() -> None:
    document = ctrf_document([MATH, PASSING], clock=lambda: 1_700_000_000.25)
    summary = document["results"]["summary"]  # type: ignore[index]
    assert summary["stop"] == 1_700_000_000_250
    assert summary["duration"] == 1_000  # two specs of 0.5 s
    assert summary["start"] == summary["stop"] - 1_000


def test_nothing_to_report_is_a_valid_empty_report(tmp_path: Path) -> None:
    results = write_and_read(tmp_path, ctrf_json([]))["results"]
    assert results["tests"] == []
    assert results["summary"]["tests"] == 0


def test_huge_names_and_messages_are_cut_saying_how_much(tmp_path: Path) -> None:
    """A spec may name a test with 4 MB and fail with a 4 MB message: the report keeps the
    first ``MAX_NAME`` and ``MAX_TEXT`` characters of each, as junit.xml and TAP."""
    big = 4_000_000
    failing = expectation(Verdict.FAIL, "m" * big)
    huge = result("huge", Status.FAILED, (suite("n" * big, "test", failing),))
    text = ctrf_json([huge])
    assert len(text) < 4 * MAX_TEXT
    (test,) = write_and_read(tmp_path, text)["results"]["tests"]
    assert test["name"] == f"{'n' * MAX_NAME}… ({big - MAX_NAME} more characters)"
    assert test["message"].endswith(f"({big - MAX_TEXT} more characters in report.json)")


def test_lone_surrogates_and_control_characters_are_written_as_json_escapes(
    tmp_path: Path,
) -> None:
    """A spec's text may hold what no UTF-8 file can (a lone surrogate): written as JSON's
    ``\\ud800``, it reads back as the very string the spec sent."""
    odd = "lone \ud800 and \x1b[31m escape \u2028"
    weird = result("odd", Status.FAILED, (suite(odd, "test", expectation(Verdict.FAIL, odd)),))
    (test,) = write_and_read(tmp_path, ctrf_json([weird]))["results"]["tests"]
    assert test["name"] == odd
    assert test["message"] == odd
    raw = (tmp_path / "report.ctrf.json").read_bytes()
    assert b"\\ud800" in raw and b"\x1b" not in raw


def test_a_test_named_with_nothing_still_has_the_name_ctrf_requires(tmp_path: Path) -> None:
    nameless = result("nameless", Status.PASSED, (suite("", "test", expectation(Verdict.OK)),))
    (test,) = write_and_read(tmp_path, ctrf_json([nameless]))["results"]["tests"]
    assert test["name"] == "(unnamed)"


def test_the_schema_rejects_what_ctrf_forbids() -> None:
    """The validator does check: a status CTRF does not know fails it."""
    document = json.loads(ctrf_json([PASSING]))
    _validator().validate(document)
    document["results"]["tests"][0]["status"] = "ok"
    with pytest.raises(jsonschema.ValidationError, match="'ok' is not one of"):
        _validator().validate(document)
