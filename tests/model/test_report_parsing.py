"""Tests for astest_tasks.model.report_parsing: a payload read as as-test's CLI reads it."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from astest_tasks.model import report_parsing as report_module
from astest_tasks.model.counting import count
from astest_tasks.model.guest_report import Counts, Expectation, ReportError, Suite, Verdict
from astest_tasks.model.report_parsing import parse_report
from tests.model.report_builders import (
    EXAMPLE_PAYLOAD,
)

# ---- parsing -------------------------------------------------------------------------------------


def test_parse_report_reads_the_real_example_payload() -> None:
    addition = Suite(
        description="addition",
        kind="test",
        depth=1,
        verdict=Verdict.OK,
        start_ms=1.42,
        end_ms=1.52,
        suites=(),
        tests=(
            Expectation(
                order=0,
                verdict=Verdict.OK,
                instr="toBe",
                message="",
                location="13:5",
                left="4",
                right="4",
                kind="",
            ),
        ),
        logs=(),
    )
    math_suite = Suite(
        description="math",
        kind="describe",
        depth=0,
        verdict=Verdict.OK,
        start_ms=1.31,
        end_ms=1.42,
        suites=(addition,),
        tests=(),
        logs=(),
    )
    assert parse_report(EXAMPLE_PAYLOAD) == (math_suite,)


def test_parse_report_accepts_head_payload_without_coverage() -> None:
    with_coverage = parse_report(EXAMPLE_PAYLOAD)
    document = json.loads(EXAMPLE_PAYLOAD)
    del document["coverage"]
    assert parse_report(json.dumps(document).encode()) == with_coverage


def test_parse_report_accepts_a_bare_array_as_the_suites_list() -> None:
    suites = json.loads(EXAMPLE_PAYLOAD)["suites"]
    assert parse_report(json.dumps(suites).encode()) == parse_report(EXAMPLE_PAYLOAD)


@pytest.mark.parametrize("document", [{}, {"suites": "x"}, {"suites": None}, 5, "text", True])
def test_truthy_documents_without_a_suites_list_have_no_suites(document: object) -> None:
    assert parse_report(json.dumps(document).encode()) == ()


def test_missing_suite_fields_take_the_javascript_defaults() -> None:
    (suite,) = parse_report(b'{"suites":[{}]}')
    assert suite == Suite(
        description="unknown",  # what the CLI's failure listing shows for a missing description
        kind="",
        depth=0,
        verdict=Verdict.NONE,
        start_ms=0.0,
        end_ms=0.0,
        suites=(),
        tests=(),
        logs=(),
    )


def test_a_number_past_any_double_is_read_as_javascript_reads_it() -> None:
    # JSON holds integers of any size: JavaScript reads this one as Infinity, no depth.
    (suite,) = parse_report(b'[{"depth": ' + b"9" * 400 + b', "time": {"start": 1}}]')
    assert (suite.depth, suite.start_ms) == (0, 1.0)


def test_missing_expectation_fields_take_the_javascript_defaults() -> None:
    (suite,) = parse_report(b'{"suites":[{"tests":[{}]}]}')
    assert suite.tests == (
        Expectation(
            order=0,
            verdict=Verdict.NONE,
            instr="",
            message="",
            location="",
            left=None,
            right=None,
            kind="",
        ),
    )


def test_odd_field_types_are_coerced_like_string_and_number() -> None:
    payload = {
        "suites": [
            {
                "description": 12,
                "kind": ["test"],
                "depth": "2",
                "verdict": "ok",
                "time": {"start": " 1.5 ", "end": "0x10"},
                "suites": "not a list",
                "tests": [
                    {"order": True, "instr": None, "message": 1.0, "location": [13, 5]},
                    "not an object",
                ],
                "logs": [{"order": 0, "depth": 1, "text": "hello"}, "raw"],
            }
        ]
    }
    (suite,) = parse_report(json.dumps(payload).encode())
    assert (suite.description, suite.kind, suite.depth) == ("12", "test", 2)
    assert (suite.start_ms, suite.end_ms) == (1.5, 16.0)
    assert suite.suites == ()
    first, second = suite.tests
    assert (first.order, first.instr, first.message, first.location) == (1, "", "1", "13,5")
    assert second.verdict is Verdict.NONE and second.instr == ""
    assert suite.logs == ("hello", "raw")


def test_unparseable_times_become_nan_as_in_javascript() -> None:
    (suite,) = parse_report(b'{"suites":[{"time":{"start":"soon","end":{}}}]}')
    assert math.isnan(suite.start_ms) and math.isnan(suite.end_ms)
    assert math.isnan(count((suite,)).time_ms)


def test_non_object_time_reads_as_zero() -> None:
    (suite,) = parse_report(b'{"suites":[{"time":"1.5"}]}')
    assert (suite.start_ms, suite.end_ms) == (0.0, 0.0)


@pytest.mark.parametrize(
    ("raw", "text"),
    [
        ("4", "4"),
        ("1.0", "1"),  # the guest writes f64 1 as 1.0; JSON.stringify shows 1
        ("1e21", "1e+21"),
        ("0.0000001", "1e-7"),
        ('"a\\"b"', '"a\\"b"'),
        ('"h\\u00e9"', '"h\u00e9"'),
        ("[1, [2.50, null]]", "[1,[2.5,null]]"),
        ('{"b": 1, "2": true, "a": {"x": "y"}}', '{"2":true,"b":1,"a":{"x":"y"}}'),
        ("false", "false"),
        ("null", None),
        ("1e400", None),  # Infinity, which JSON.stringify writes as null
    ],
)
def test_left_and_right_are_re_serialised_as_compact_json(raw: str, text: str | None) -> None:
    payload = f'{{"suites":[{{"tests":[{{"left":{raw},"right":{raw}}}]}}]}}'
    (suite,) = parse_report(payload.encode())
    assert (suite.tests[0].left, suite.tests[0].right) == (text, text)


@pytest.mark.parametrize(
    ("payload", "problem"),
    [
        (b"", "not valid JSON"),
        (b"{suites: []}", "not valid JSON"),
        (b'{"suites":[]} trailing', "not valid JSON"),
        (b'\xef\xbb\xbf{"suites":[]}', "not valid JSON"),  # JSON.parse rejects a BOM too
        (b'{"suites":[{"time":{"start":NaN}}]}', "not valid JSON"),
        (b"null", "not a report object"),
        (b"false", "not a report object"),
        (b"0", "not a report object"),
        (b'""', "not a report object"),
        (b'{"suites":[null]}', "null suite"),
        (b'{"suites":[{"suites":[null]}]}', "null suite"),
        (b'{"suites":[{"tests":[null]}]}', "null expectation"),
        (b"[" * 5000 + b"]" * 5000, "nested too deeply"),
    ],
)
def test_unreadable_payloads_raise_report_error(payload: bytes, problem: str) -> None:
    with pytest.raises(ReportError, match=problem):
        parse_report(payload)


def test_payload_bytes_are_decoded_as_the_cli_and_the_guest_mean_them() -> None:
    # A WTF-8 lone surrogate (String.UTF8.encode's form) stays that surrogate; any other bad
    # byte is U+FFFD, as the CLI's Buffer.toString("utf8") reads it, not a lost report.
    payload = b'{"suites":[{"description":"a\xed\xa0\x80 \xff","logs":["\\udc00"]}]}'
    (suite,) = parse_report(payload)
    assert suite.description == "a\ud800 \ufffd"
    assert suite.logs == ("\udc00",)


# ---- any JSON ------------------------------------------------------------------------------------


_json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
    | st.sampled_from(["ok", "fail", "skip", "test", "describe", "suites", "tests", "time"]),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                ["suites", "tests", "time", "start", "end", "verdict", "kind", "left", "logs", "x"]
            ),
            children,
            max_size=5,
        )
    ),
    max_leaves=30,
)


@settings(max_examples=200, deadline=None)
@given(_json_values)
def test_parse_report_returns_or_raises_report_error_for_any_json(value: object) -> None:
    payload = json.dumps(value).encode()
    try:
        suites = parse_report(payload)
    except ReportError:
        return
    assert all(isinstance(suite, Suite) for suite in suites)
    # Whatever was read, the counting walks it without raising either.
    assert isinstance(count(suites), Counts)


# ---- the fast paths for big reports: each must give what the general rules give ------------------


_plain_values = st.one_of(
    st.none(),
    st.text(max_size=12),
    st.integers(min_value=-(2**60), max_value=2**60),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.lists(st.integers(), max_size=2),
)


_entries = st.fixed_dictionaries(
    {},
    optional={
        "order": st.one_of(
            st.integers(min_value=-(2**60), max_value=2**60),
            st.floats(allow_nan=False, allow_infinity=False),
        ),
        "verdict": st.sampled_from(["ok", "fail", "skip", "none", "", "OK", 1]),
        "instr": st.one_of(st.text(max_size=8), st.none(), st.integers()),
        "message": st.one_of(st.text(max_size=8), st.none()),
        "location": st.one_of(
            st.just("13:7"), st.none(), st.floats(allow_nan=False, allow_infinity=False)
        ),
        "type": st.one_of(st.just(""), st.just("runtime-error"), st.none()),
        "left": _plain_values,
        "right": _plain_values,
    },
)


@given(_entries)
@settings(max_examples=400)
def test_usual_expectations_read_exactly_as_field_by_field(entry: dict[str, object]) -> None:
    fast = report_module._usual_expectation(entry)
    general = report_module._expectation_by_fields(entry)
    if fast is not None:
        assert fast == general
    assert parse_report(json.dumps([{"tests": [entry]}]).encode())[0].tests[0] == general


def test_a_guest_written_expectation_takes_the_fast_path() -> None:
    entry = {"order": 3, "type": "", "verdict": "ok", "left": 9007199252740985, "right": -2.5}
    entry |= {"instr": "toBe", "message": "", "location": "13:7"}
    fast = report_module._usual_expectation(entry)
    assert fast == Expectation(3, Verdict.OK, "toBe", "", "13:7", "9007199252740985", "-2.5", "")
