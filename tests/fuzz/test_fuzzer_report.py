"""Reading a fuzz build's report: as-test 1.0.7's shape, and the broken ones it can send."""

from __future__ import annotations

import json

import pytest

from astest_tasks.core.records import decode, encode
from astest_tasks.fuzz.fuzzer_report import FuzzerOutcome, FuzzReportError, parse_fuzz_report

# As FuzzerResult.serialize writes it (as-test 1.0.7, assembly/src/fuzz.ts).
REPORT = (
    b'{"fuzzers":[{"name":"clamp keeps values","runs":200,"passed":198,"failed":2,"crashed":0,'
    b'"skipped":0,"time":{"start":10.5,"end":61.0},"failure":{"instr":"toBe","left":"89",'
    b'"right":"98","message":""},"failures":[{"run":17,"seed":18446744073709551615,'
    b'"input":[98]},{"run":35,"seed":790229826,"input":null}]},'
    b'{"name":"ok","runs":50,"passed":50,"failed":0,"crashed":0,"skipped":0,'
    b'"time":{"start":0,"end":1},"failure":{"instr":"","left":"","right":"","message":""},'
    b'"failures":[]}]}'
)


def test_a_real_shaped_report() -> None:
    failing, passing = parse_fuzz_report(REPORT)
    assert (failing.name, failing.runs, failing.passed, failing.failed) == (
        "clamp keeps values",
        200,
        198,
        2,
    )
    assert not failing.ok and passing.ok
    assert failing.time_ms == pytest.approx(50.5)
    assert (failing.assertion.left, failing.assertion.right) == ("89", "98")
    first, second = failing.failures
    assert first.seed == 2**64 - 1, "a u64 seed survives exactly"
    assert first.input == "[98]" and second.input == ""


def test_a_round_trip_through_the_result_file_keeps_everything() -> None:
    for outcome in parse_fuzz_report(REPORT):
        stored = json.loads(json.dumps(encode(outcome)))
        assert list(stored)[-2:] == ["failure", "failures"]  # as-test's key for the assertion
        assert decode(FuzzerOutcome, stored) == outcome


@pytest.mark.parametrize(
    ("payload", "says"),
    [
        # as-test writes names unescaped: a quote in a name breaks the document
        (b'{"fuzzers":[{"name":"say "hi"","runs":1}]}', "not valid JSON"),
        (b"\xff\xfe", "not valid JSON"),  # bad bytes read as U+FFFD, as Node reads them
        (b'{"suites":[]}', 'no "fuzzers" list'),
        (b"[1,2]", 'no "fuzzers" list'),
    ],
)
def test_broken_reports_are_named(payload: bytes, says: str) -> None:
    with pytest.raises(FuzzReportError, match=says):
        parse_fuzz_report(payload)


def test_odd_fields_fall_back_to_defaults() -> None:
    (outcome,) = parse_fuzz_report(
        b'{"fuzzers":[{"name":3,"runs":"x","failed":true,"time":[],"failure":null,'
        b'"failures":[{"seed":1.5e300},7]},"junk"]}'
    )
    assert outcome.name == "3" and outcome.runs == 0 and outcome.failed == 1
    assert outcome.time_ms == 0.0 and outcome.assertion.message == ""
    assert len(outcome.failures) == 1 and outcome.failures[0].run == 0


def test_numbers_past_any_float_fall_back_to_defaults() -> None:
    (outcome,) = parse_fuzz_report(
        json.dumps(
            {"fuzzers": [{"name": "f", "runs": 10**400, "time": {"start": 1, "end": 10**400}}]}
        ).encode()
    )
    assert outcome.time_ms == 0.0  # a count stays an integer, of any size
    assert outcome.runs == 10**400
