"""Reports for the tests of the guest report's modules: the JSON a spec sends, and the typed
suites it is read into (times zero, so counts compare exactly).
"""

from __future__ import annotations

import json
from typing import Any

from astest_tasks.model.guest_report import Expectation, Suite, Verdict
from astest_tasks.model.report_parsing import parse_report

# A report payload with its coverage object (HEAD builds omit it).
EXAMPLE_PAYLOAD = (
    b'{"suites":[{"file":"example.spec.ts","order":2,"time":{"start":1.31,"end":1.42},'
    b'"description":"math","depth":0,"suites":[{"order":1,"time":{"start":1.42,"end":1.52},'
    b'"description":"addition","depth":1,"suites":[],"tests":[{"order":0,"type":"",'
    b'"verdict":"ok","left":4,"right":4,"instr":"toBe","message":"","location":"13:5"}],'
    b'"logs":[],"kind":"test","verdict":"ok"}],"tests":[],"logs":[],"kind":"describe",'
    b'"verdict":"ok"}],"coverage":{"total":0,"covered":0,"uncovered":0,"percent":100,"points":[]}}'
)


def expectation_json(verdict: str = "ok", **fields: Any) -> dict[str, Any]:
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


def suite_json(
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


def parse_suites(*suites: dict[str, Any]) -> tuple[Suite, ...]:
    return parse_report(json.dumps({"suites": list(suites)}).encode())


def plain_expectation(
    verdict: Verdict, left: str | None = "1", right: str | None = "2"
) -> Expectation:
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


def plain_suite(
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
