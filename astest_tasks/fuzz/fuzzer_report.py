"""The report a fuzz build sends, ``{"fuzzers": [...]}``, read loosely.

Its shape is docs/design/host-contract.md §4.7.

as-test writes each fuzzer's name into the JSON unescaped, so a name with a quote breaks the
document; that is reported as an unreadable report, never a traceback. Every other field is
read with a default, as as-test's own host does.
"""

from __future__ import annotations

import json
from dataclasses import field
from typing import Any

from astest_tasks.core.frozen import frozen
from astest_tasks.core.guest_text import decode_guest_utf8
from astest_tasks.core.json_text import finite_number, parse_json
from astest_tasks.core.records import stored_as


@frozen
class FuzzFailure:
    """One failing iteration: replaying ``seed`` with one run repeats it."""

    run: int
    seed: int
    input: str  # the JSON array of the arguments the generator passed to run(), or ""


@frozen
class FuzzAssertion:
    """The first failed expectation of a fuzzer (empty for a ``false`` return)."""

    instr: str = ""
    left: str = ""
    right: str = ""
    message: str = ""


@frozen
class FuzzerOutcome:
    name: str
    runs: int
    passed: int
    failed: int
    crashed: int
    skipped: int
    time_ms: float
    # stored as "failure", the key of as-test's report it is read from
    assertion: FuzzAssertion = field(metadata=stored_as("failure"))
    failures: tuple[FuzzFailure, ...]

    @property
    def ok(self) -> bool:
        return self.failed == 0 and self.crashed == 0


class FuzzReportError(ValueError):
    """The payload is not a fuzz report; the message says what was wrong."""


def parse_fuzz_report(payload: bytes) -> tuple[FuzzerOutcome, ...]:
    try:
        document = parse_json(decode_guest_utf8(payload))
    except ValueError as exc:
        raise FuzzReportError(f"the fuzz report is not valid JSON ({exc})") from None
    if not isinstance(document, dict) or not isinstance(document.get("fuzzers"), list):
        raise FuzzReportError('the report has no "fuzzers" list: was this built as a fuzz target?')
    return tuple(_fuzzer(item) for item in document["fuzzers"] if isinstance(item, dict))


def _fuzzer(raw: dict[str, Any]) -> FuzzerOutcome:
    time = raw.get("time") if isinstance(raw.get("time"), dict) else {}
    assert isinstance(time, dict)
    failure = raw.get("failure") if isinstance(raw.get("failure"), dict) else {}
    assert isinstance(failure, dict)
    failures = raw.get("failures") if isinstance(raw.get("failures"), list) else []
    assert isinstance(failures, list)
    return FuzzerOutcome(
        name=str(raw.get("name", "")),
        runs=_int(raw.get("runs")),
        passed=_int(raw.get("passed")),
        failed=_int(raw.get("failed")),
        crashed=_int(raw.get("crashed")),
        skipped=_int(raw.get("skipped")),
        time_ms=max(0.0, _float(time.get("end")) - _float(time.get("start"))),
        assertion=FuzzAssertion(
            instr=_text(failure.get("instr")),
            left=_text(failure.get("left")),
            right=_text(failure.get("right")),
            message=_text(failure.get("message")),
        ),
        failures=tuple(_failure(item) for item in failures if isinstance(item, dict)),
    )


def _failure(raw: dict[str, Any]) -> FuzzFailure:
    value = raw.get("input")
    shown = "" if value is None else json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return FuzzFailure(run=_int(raw.get("run")), seed=_int(raw.get("seed")), input=shown)


def _int(value: object) -> int:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value == value and abs(value) != float("inf"):
        return int(value)
    return 0


def _float(value: object) -> float:
    number = finite_number(value)  # an integer past any float, NaN, a bool: none
    return 0.0 if number is None else number


def _text(value: object) -> str:
    return "" if value is None else str(value)
