"""Tests for astest_tasks.model.guest_report: as-test 1.0.7 reports, counted as its CLI does."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from astest_tasks.model import report_parsing as report_module
from astest_tasks.model.counting import count, failures, file_verdict
from astest_tasks.model.guest_report import (
    Counts,
    Expectation,
    FailureDetail,
    ReportError,
    Suite,
    Verdict,
    merge_verdicts,
    normalize_verdict,
    quick_expectation,
    runtime_error_suite,
)
from astest_tasks.model.report_parsing import parse_report
from astest_tasks.model.report_rows import (
    counts_from_dict,
    counts_to_dict,
    failure_from_dict,
    failure_to_dict,
    suite_from_dict,
    suite_to_dict,
)

EXAMPLE_PAYLOAD = (
    b'{"suites":[{"file":"example.spec.ts","order":2,"time":{"start":1.31,"end":1.42},'
    b'"description":"math","depth":0,"suites":[{"order":1,"time":{"start":1.42,"end":1.52},'
    b'"description":"addition","depth":1,"suites":[],"tests":[{"order":0,"type":"",'
    b'"verdict":"ok","left":4,"right":4,"instr":"toBe","message":"","location":"13:5"}],'
    b'"logs":[],"kind":"test","verdict":"ok"}],"tests":[],"logs":[],"kind":"describe",'
    b'"verdict":"ok"}],"coverage":{"total":0,"covered":0,"uncovered":0,"percent":100,"points":[]}}'
)


# ---- helpers building report JSON and typed suites -----------------------------------------------


def _test_json(verdict: str = "ok", **fields: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "order": 0,
        "type": "",
        "verdict": verdict,
        "left": 1,
        "right": 1,
        "instr": "toBe",
        "message": "",
        "location": "1:1",
    }
    entry.update(fields)
    return entry


def _suite_json(
    description: str,
    kind: str,
    verdict: str,
    suites: list[dict[str, Any]] | None = None,
    tests: list[dict[str, Any]] | None = None,
    start: float = 0.0,
    end: float = 0.0,
) -> dict[str, Any]:
    return {
        "order": 0,
        "time": {"start": start, "end": end},
        "description": description,
        "depth": 0,
        "suites": suites or [],
        "tests": tests or [],
        "logs": [],
        "kind": kind,
        "verdict": verdict,
    }


def _parse(*suites: dict[str, Any]) -> tuple[Suite, ...]:
    return parse_report(json.dumps({"suites": list(suites)}).encode())


def _expectation(verdict: Verdict, left: str | None = "1", right: str | None = "2") -> Expectation:
    return Expectation(
        order=0,
        verdict=verdict,
        instr="toBe",
        message="",
        location="3:4",
        left=left,
        right=right,
        kind="",
    )


def _suite(
    description: str,
    kind: str = "describe",
    verdict: Verdict = Verdict.OK,
    suites: tuple[Suite, ...] = (),
    tests: tuple[Expectation, ...] = (),
) -> Suite:
    return Suite(
        description=description,
        kind=kind,
        depth=0,
        verdict=verdict,
        start_ms=0.0,
        end_ms=0.0,
        suites=suites,
        tests=tests,
        logs=(),
    )


# ---- verdicts ------------------------------------------------------------------------------------

_STRENGTH = [Verdict.NONE, Verdict.SKIP, Verdict.OK, Verdict.FAIL]


@pytest.mark.parametrize("a", _STRENGTH)
@pytest.mark.parametrize("b", _STRENGTH)
def test_merge_verdicts_keeps_the_stronger_of_fail_ok_skip_none(a: Verdict, b: Verdict) -> None:
    expected = _STRENGTH[max(_STRENGTH.index(a), _STRENGTH.index(b))]
    assert merge_verdicts(a, b) is expected
    assert merge_verdicts(b, a) is expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("ok", Verdict.OK),
        ("fail", Verdict.FAIL),
        ("skip", Verdict.SKIP),
        ("none", Verdict.NONE),
        (None, Verdict.NONE),
        ("FAIL", Verdict.NONE),
        ("passed", Verdict.NONE),
        (1, Verdict.NONE),
        (["fail"], Verdict.FAIL),  # String(["fail"]) is "fail" in JavaScript
    ],
)
def test_normalize_verdict_follows_string_coercion(raw: object, expected: Verdict) -> None:
    assert normalize_verdict(raw) is expected


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


def test_report_error_is_a_value_error() -> None:
    assert issubclass(ReportError, ValueError)


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


# ---- counting ------------------------------------------------------------------------------------


def test_each_expectation_counts_as_one_test() -> None:
    suites = _parse(
        _suite_json(
            "math",
            "describe",
            "fail",
            tests=[_test_json("ok"), _test_json("fail"), _test_json("skip"), _test_json("none")],
        )
    )
    counts = count(suites)
    assert (counts.tests_passed, counts.tests_failed, counts.tests_skipped) == (1, 1, 2)
    assert (counts.suites_passed, counts.suites_failed, counts.suites_skipped) == (0, 1, 0)


def test_a_test_case_with_expectations_is_not_itself_a_test_or_a_suite() -> None:
    suites = _parse(
        _suite_json("adds", "it", "ok", tests=[_test_json("ok"), _test_json("ok")]),
    )
    assert count(suites) == Counts(0, 0, 0, 2, 0, 0, 0.0)


@pytest.mark.parametrize("kind", ["test", "it", "only", "xtest", "xit", "xonly", "todo"])
@pytest.mark.parametrize(
    ("verdict", "tests"),
    [("ok", (1, 0, 0)), ("fail", (0, 1, 0)), ("skip", (0, 0, 1)), ("none", (0, 0, 0))],
)
def test_an_empty_test_case_counts_as_one_test_unless_its_verdict_is_none(
    kind: str, verdict: str, tests: tuple[int, int, int]
) -> None:
    counts = count(_parse(_suite_json("case", kind, verdict)))
    assert (counts.tests_passed, counts.tests_failed, counts.tests_skipped) == tests
    assert (counts.suites_passed, counts.suites_failed, counts.suites_skipped) == (0, 0, 0)


@pytest.mark.parametrize(
    ("verdict", "suites"), [("ok", (1, 0, 0)), ("fail", (0, 1, 0)), ("none", (0, 0, 1))]
)
def test_describe_suites_count_as_suites(verdict: str, suites: tuple[int, int, int]) -> None:
    counts = count(_parse(_suite_json("group", "describe", verdict)))
    assert (counts.suites_passed, counts.suites_failed, counts.suites_skipped) == suites
    assert (counts.tests_passed, counts.tests_failed, counts.tests_skipped) == (0, 0, 0)


def test_nested_describes_each_count_and_a_failure_propagates_upwards() -> None:
    inner = _suite_json(
        "inner",
        "describe",
        "ok",
        suites=[_suite_json("x", "test", "ok", tests=[_test_json("fail")])],
    )
    sibling = _suite_json("sibling", "describe", "ok", tests=[_test_json("ok")])
    outer = _suite_json("outer", "describe", "ok", suites=[inner, sibling])
    suites = _parse(outer)
    # The reported "ok" verdicts are overridden by the failing expectation two levels down.
    assert count(suites) == Counts(
        suites_passed=1,
        suites_failed=2,
        suites_skipped=0,
        tests_passed=1,
        tests_failed=1,
        tests_skipped=0,
        time_ms=0.0,
    )
    assert file_verdict(suites) is Verdict.FAIL


def test_empty_nested_describe_from_the_nesting_bug_counts_as_skipped_suite() -> None:
    # as-test 1.1.0 leaves the inner describe empty with verdict "none" (AS-TEST-HOST.md 4.6).
    outer = _suite_json(
        "outer",
        "describe",
        "ok",
        suites=[
            _suite_json("inner", "describe", "none"),
            _suite_json("t", "test", "ok", tests=[_test_json("ok")]),
        ],
    )
    counts = count(_parse(outer))
    assert (counts.suites_passed, counts.suites_skipped, counts.tests_passed) == (1, 1, 1)


def test_xdescribe_with_skipped_children_counts_as_skipped() -> None:
    skipped = _suite_json(
        "later",
        "xdescribe",
        "skip",
        suites=[_suite_json("a", "xtest", "skip"), _suite_json("b", "test", "skip")],
        tests=[_test_json("skip")],
    )
    suites = _parse(skipped)
    assert count(suites) == Counts(0, 0, 1, 0, 0, 3, 0.0)
    assert file_verdict(suites) is Verdict.SKIP


def test_runtime_error_suite_counts_as_a_failed_suite_and_a_failed_test() -> None:
    passing = _parse(_suite_json("ok", "describe", "ok", tests=[_test_json("ok")]))
    crashed = (*passing, runtime_error_suite("a.spec.ts", "boom", "", "", ""))
    assert count(crashed) == Counts(1, 1, 0, 1, 1, 0, 0.0)
    assert file_verdict(passing) is Verdict.OK
    assert file_verdict(crashed) is Verdict.FAIL


def test_time_is_the_sum_of_end_minus_start_over_every_suite() -> None:
    suites = _parse(
        _suite_json(
            "a",
            "describe",
            "ok",
            start=1.0,
            end=5.0,
            suites=[_suite_json("b", "test", "ok", start=2.0, end=3.5)],
        ),
        _suite_json("c", "describe", "ok", start=10.0, end=10.25),
    )
    assert count(suites).time_ms == pytest.approx(4.0 + 1.5 + 0.25)


def test_file_verdict_of_nothing_is_none() -> None:
    assert file_verdict(()) is Verdict.NONE
    assert count(()) == Counts.zero()


def test_file_verdict_merges_top_level_suites() -> None:
    suites = _parse(
        _suite_json("a", "describe", "skip"),
        _suite_json("b", "test", "ok"),
        _suite_json("c", "describe", "none"),
    )
    assert file_verdict(suites) is Verdict.OK


def test_counts_add_field_by_field_and_zero_is_neutral() -> None:
    a = Counts(1, 2, 3, 4, 5, 6, 1.5)
    b = Counts(10, 20, 30, 40, 50, 60, 2.0)
    assert a + b == Counts(11, 22, 33, 44, 55, 66, 3.5)
    assert a + Counts.zero() == a


# ---- runtime-error suite -------------------------------------------------------------------------


def test_runtime_error_suite_has_the_shape_append_runtime_failure_report_builds() -> None:
    suite = runtime_error_suite(
        "crash.spec.ts", "test runtime failed with exit code 1", "details", "out", "err"
    )
    assert (suite.description, suite.kind, suite.depth, suite.verdict) == (
        "crash.spec.ts",
        "runtime-error",
        0,
        Verdict.FAIL,
    )
    assert (suite.start_ms, suite.end_ms, suite.suites, suite.logs) == (0.0, 0.0, (), ())
    assert suite.tests == (
        Expectation(
            order=0,
            verdict=Verdict.FAIL,
            instr="test runtime failed with exit code 1",
            message="details\n\nstderr:\nerr\n\nstdout:\nout",
            location="",
            left=None,
            right=None,
            kind="runtime-error",
        ),
    )


@pytest.mark.parametrize(
    ("details", "stdout", "stderr", "message"),
    [
        ("", "", "", ""),
        ("  child exited\r\nwith 1 \n", "", "", "child exited\nwith 1"),
        ("abort: kaboom", "", "abort: kaboom\n", "abort: kaboom"),  # stderr equal to details
        ("", "", "abort\r\n", "stderr:\nabort"),
        ("", " log line \n", "", "stdout:\nlog line"),
        ("\ufeff\u00a0d\u2028", "", "", "d"),  # JavaScript's trim() whitespace set
    ],
)
def test_runtime_failure_message_is_formatted_like_the_cli(
    details: str, stdout: str, stderr: str, message: str
) -> None:
    suite = runtime_error_suite("x.spec.ts", "title", details, stdout, stderr)
    assert suite.tests[0].message == message


# ---- failure listing -----------------------------------------------------------------------------


def test_failure_titles_join_the_suite_path_and_number_the_expectation() -> None:
    suites = (
        _suite(
            "math",
            verdict=Verdict.FAIL,
            tests=(_expectation(Verdict.FAIL, "1", "2"),),
            suites=(
                _suite(
                    "addition",
                    kind="test",
                    tests=(
                        _expectation(Verdict.OK),
                        _expectation(Verdict.FAIL, "3", "4"),
                        _expectation(Verdict.SKIP),
                        _expectation(Verdict.FAIL, '"a"', '"b"'),
                    ),
                ),
                _suite(
                    "deep",
                    suites=(
                        _suite("er", kind="it", tests=(_expectation(Verdict.FAIL, "5", "6"),)),
                    ),
                ),
            ),
        ),
        _suite("other", tests=(_expectation(Verdict.FAIL, "7", "8"),)),
    )
    assert [(f.title, f.actual, f.expected) for f in failures(suites)] == [
        ("math#1", "1", "2"),
        ("math > addition#2", "3", "4"),
        ("math > addition#4", '"a"', '"b"'),
        ("math > deep > er#1", "5", "6"),
        ("other#1", "7", "8"),
    ]


def test_failure_detail_carries_location_matcher_and_message() -> None:
    failing = Expectation(
        order=3,
        verdict=Verdict.FAIL,
        instr="toEqual",
        message="custom",
        location="13:5",
        left="[1]",
        right="[2]",
        kind="",
    )
    assert failures((_suite("s", tests=(failing,)),)) == [
        FailureDetail(
            title="s#1",
            location="13:5",
            matcher="toEqual",
            expected="[2]",
            actual="[1]",
            message="custom",
        )
    ]


def test_failures_with_the_same_title_values_and_message_are_listed_once() -> None:
    twin = _suite("same", kind="test", tests=(_expectation(Verdict.FAIL, "1", "2"),))
    different = _suite("same", kind="test", tests=(_expectation(Verdict.FAIL, "1", "3"),))
    listed = failures((_suite("group", suites=(twin, twin, different)),))
    assert [(f.title, f.expected) for f in listed] == [
        ("group > same#1", "2"),
        ("group > same#1", "3"),
    ]


def test_runtime_error_failure_has_no_values() -> None:
    (detail,) = failures((runtime_error_suite("a.spec.ts", "boom", "why", "", ""),))
    assert detail == FailureDetail(
        title="a.spec.ts#1", location="", matcher="boom", expected=None, actual=None, message="why"
    )


def test_passing_report_has_no_failures() -> None:
    assert failures(parse_report(EXAMPLE_PAYLOAD)) == []


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
        tests=(_expectation(Verdict.FAIL, left=None, right='{"a":[1]}'),),
        logs=("one", "two"),
    )
    stored = json.loads(json.dumps(suite_to_dict(nested)))
    assert suite_from_dict(stored) == nested


def test_counts_round_trip_through_json_text() -> None:
    counts = Counts(1, 2, 3, 4, 5, 6, 7.25)
    assert counts_from_dict(json.loads(json.dumps(counts_to_dict(counts)))) == counts


def test_integral_stored_time_reads_back_as_float() -> None:
    stored = counts_to_dict(Counts.zero()) | {"time_ms": 3}
    restored = counts_from_dict(stored)
    assert restored.time_ms == 3.0 and isinstance(restored.time_ms, float)


def test_failure_round_trips_through_json_text() -> None:
    detail = FailureDetail(
        title="a > b#2", location="1:2", matcher="toBe", expected=None, actual='"x"', message="m"
    )
    assert failure_from_dict(json.loads(json.dumps(failure_to_dict(detail)))) == detail


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"verdict": "passed"}, "'verdict' should be one of"),
        ({"depth": "0"}, "'depth' should be an integer"),
        ({"depth": True}, "'depth' should be an integer"),
        ({"start_ms": None}, "'start_ms' should be a number"),
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
    stored = suite_to_dict(_suite("s")) | change
    with pytest.raises(ReportError, match=problem):
        suite_from_dict(stored)


def test_missing_stored_fields_raise_report_error() -> None:
    stored = failure_to_dict(FailureDetail("t#1", "", "toBe", None, None, ""))
    del stored["expected"]
    with pytest.raises(ReportError, match="no 'expected' field"):
        failure_from_dict(stored)
    with pytest.raises(ReportError, match="no 'suites_failed' field"):
        counts_from_dict({"suites_passed": 0})


# ---- counting from as-test 1.4.0 (every block a suite, every expect() a test) -------------------


def _skips_spec_report() -> tuple[Suite, ...]:
    """What a spec with one passing test beside an xtest, an xit and a todo reports."""
    return _parse(
        _suite_json(
            "parser",
            "describe",
            "ok",
            suites=[
                _suite_json("parses", "test", "ok", tests=[_test_json("ok")]),
                _suite_json("later", "xtest", "skip"),
                _suite_json("someday", "xit", "skip"),
                _suite_json("streams", "todo", "skip"),
            ],
        )
    )


def test_skipped_test_cases_are_skipped_tests_before_1_4_and_skipped_suites_from_it() -> None:
    suites = _skips_spec_report()
    # as-test 1.0.7: "Suites: 1 total, Tests: 1 passed, 3 skipped".
    assert count(suites) == Counts(1, 0, 0, 1, 0, 3, 0.0)
    # as-test 1.8.0: "Suites: 1 skipped... 5 total, Tests: 0 skipped, 1 total" (3 skipped blocks).
    assert count(suites, every_block_is_suite=True) == Counts(2, 0, 3, 1, 0, 0, 0.0)


@pytest.mark.parametrize("kind", ["describe", "test", "it", "only", "xtest", "xit", "todo"])
@pytest.mark.parametrize(
    ("verdict", "suites"),
    [("ok", (1, 0, 0)), ("fail", (0, 1, 0)), ("skip", (0, 0, 1)), ("none", (0, 0, 1))],
)
def test_from_1_4_an_empty_block_of_any_kind_is_one_suite_and_no_test(
    kind: str, verdict: str, suites: tuple[int, int, int]
) -> None:
    counts = count(_parse(_suite_json("case", kind, verdict)), every_block_is_suite=True)
    assert (counts.suites_passed, counts.suites_failed, counts.suites_skipped) == suites
    assert (counts.tests_passed, counts.tests_failed, counts.tests_skipped) == (0, 0, 0)


def test_from_1_4_a_test_case_with_expectations_is_a_suite_and_its_expectations_tests() -> None:
    suites = _parse(_suite_json("adds", "it", "ok", tests=[_test_json("ok"), _test_json("fail")]))
    assert count(suites, every_block_is_suite=True) == Counts(0, 1, 0, 1, 1, 0, 0.0)


def test_the_runtime_error_suite_counts_the_same_under_both_rules() -> None:
    suites = (runtime_error_suite("a.spec.ts", "boom", "", "", ""),)
    assert (
        count(suites) == count(suites, every_block_is_suite=True) == Counts(0, 1, 0, 0, 1, 0, 0.0)
    )


# -- the fast paths for big reports: each must give what the general rules give -----------------
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


@given(
    st.integers(),
    st.sampled_from(list(Verdict)),
    st.text(max_size=5),
    st.none() | st.text(max_size=5),
)
def test_quick_expectation_equals_the_dataclass_constructor(
    order: int, verdict: Verdict, text: str, value: str | None
) -> None:
    quick = quick_expectation(order, verdict, text, text, text, value, value, text)
    made = Expectation(order, verdict, text, text, text, value, value, text)
    assert quick == made and repr(quick) == repr(made) and hash(quick) == hash(made)
    with pytest.raises(AttributeError):
        quick.order = 1  # type: ignore[misc]
