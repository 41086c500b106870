"""JUnit XML and TAP from result data, validated by the parsers CI tools use."""

from __future__ import annotations

from pathlib import Path

import junitparser
from tap.parser import Parser as TapParser

from astest_tasks.ci_reports import junit_xml, points, tap_document
from astest_tasks.report import Counts, Expectation, FailureDetail, Suite, Verdict
from astest_tasks.results import SpecResult, Stage, Status


def expectation(verdict: Verdict, message: str = "", location: str = "4:7") -> Expectation:
    return Expectation(
        order=0,
        verdict=verdict,
        instr="toBe",
        message=message,
        location=location,
        left="5",
        right="4",
        kind="",
    )


def suite(
    description: str, kind: str, *tests: Expectation, children: tuple[Suite, ...] = ()
) -> Suite:
    verdict = Verdict.FAIL if any(t.verdict is Verdict.FAIL for t in tests) else Verdict.OK
    if kind.startswith("x"):
        verdict = Verdict.SKIP  # as the guest reports a disabled test
    return Suite(description, kind, 0, verdict, 0.0, 1.0, children, tests, ())


def result(spec_id: str, status: Status, suites: tuple[Suite, ...], **extra: object) -> SpecResult:
    fields: dict[str, object] = {
        "spec": f"assembly/__tests__/{spec_id}.spec.ts",
        "spec_id": spec_id,
        "mode": "wasi",
        "target": "wasi",
        "status": status,
        "stage": Stage.RUN,
        "counts": Counts(1, 0, 0, 1, 0, 0, 1.0),
        "failures": (),
        "suites": suites,
        "duration_s": 0.5,
        "session": "s",
        "build_command": "",
    }
    fields.update(extra)
    return SpecResult(**fields)  # type: ignore[arg-type]


MATH = result(
    "math",
    Status.FAILED,
    (
        suite(
            "math",
            "describe",
            children=(
                suite(
                    "adds",
                    "test",
                    expectation(Verdict.OK),
                    expectation(Verdict.FAIL, "off by one # really\x00"),
                ),
                suite("later", "xtest"),
            ),
        ),
    ),
    output="log line with \x1b[31mcolour\x1b[0m and \x07 bell",
)
BROKEN = result(
    "broken",
    Status.FAILED,
    (),
    stage=Stage.BUILD,
    error="build failed",
    failures=(FailureDetail("build failed", "", "", None, None, "ERROR TS2322: <bad> & worse"),),
)
PASSING = result("text", Status.PASSED, (suite("text", "test", expectation(Verdict.OK)),))


def test_points_follow_as_tests_tap_naming() -> None:
    names = [(p.name, p.status) for p in points(MATH)]
    assert names == [
        ("math > adds #1", Status.PASSED),
        ("math > adds #2", Status.FAILED),
        ("math > later", Status.SKIPPED),
    ]
    assert [p.name for p in points(BROKEN)] == ["build failed"]


def test_junit_parses_with_junitparser_and_counts_agree(tmp_path: Path) -> None:
    path = tmp_path / "junit.xml"
    path.write_text(junit_xml([MATH, BROKEN, PASSING]), encoding="utf-8")
    xml = junitparser.JUnitXml.fromfile(str(path))
    suites = list(xml)
    assert [s.name for s in suites] == ["wasi:math", "wasi:broken", "wasi:text"]
    assert (suites[0].tests, suites[0].failures, suites[0].skipped) == (3, 1, 1)
    cases = list(suites[0])
    failed = cases[1]
    assert failed.name == "math > adds #2"
    assert not failed.is_passed
    assert "off by one" in failed.result[0].message
    assert "4:7" in (failed.result[0].text or "")
    assert cases[2].is_skipped
    broken_case = next(iter(suites[1]))
    assert "ERROR TS2322: <bad> & worse" in (broken_case.result[0].text or "")
    assert (xml.tests, xml.failures, xml.skipped) == (5, 2, 1)


def test_tap_parses_with_tap_py(tmp_path: Path) -> None:
    lines = list(TapParser().parse_text(tap_document([MATH, BROKEN, PASSING])))
    plans = [line for line in lines if line.category == "plan"]
    tests = [line for line in lines if line.category == "test"]
    assert plans[0].expected_tests == len(tests) == 5
    assert [t.ok for t in tests] == [True, False, True, False, True]
    assert tests[2].skip
    assert tests[1].yaml_block is not None
    assert tests[1].yaml_block["message"] == "off by one # really\x00"  # YAML's escapes hold it
    assert tests[1].yaml_block["line"] == "4"
    assert not [line for line in lines if line.category == "unknown" and line.text.strip()], [
        line.text for line in lines if line.category == "unknown"
    ]
    # as-test escapes "#" in names (TAP 13's "\#"), so no name can turn into a SKIP or TODO.
    assert not tests[1].skip and not tests[1].todo
    assert "adds \\#2" in tap_document([MATH])
