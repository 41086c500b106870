"""Tests for astest_tasks.model.guest_report: the report's types, verdicts and the host-made
failure suite.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from astest_tasks.model.guest_report import (
    Counts,
    Expectation,
    ReportError,
    Verdict,
    merge_verdicts,
    normalize_verdict,
    quick_expectation,
    runtime_error_suite,
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


# ---- types ---------------------------------------------------------------------------------------


def test_report_error_is_a_value_error() -> None:
    assert issubclass(ReportError, ValueError)


def test_counts_add_field_by_field_and_zero_is_neutral() -> None:
    a = Counts(1, 2, 3, 4, 5, 6, 1.5)
    b = Counts(10, 20, 30, 40, 50, 60, 2.0)
    assert a + b == Counts(11, 22, 33, 44, 55, 66, 3.5)
    assert a + Counts.zero() == a


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
