"""JUnit XML and TAP from result data, validated by the parsers CI tools use."""

from __future__ import annotations

import dataclasses
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import junitparser
from tap.parser import Parser as TapParser

from astest_tasks.model.guest_report import Expectation, FailureDetail, Suite, Verdict
from astest_tasks.model.results import SpecResult, Stage, Status
from astest_tasks.output.ci_reports import points
from astest_tasks.output.formats.junit import junit_xml
from astest_tasks.output.formats.tap import tap_document
from astest_tasks.output.text_caps import MAX_NAME, MAX_TEXT
from tests.conftest import make_spec_result


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


def result(
    spec_id: str,
    status: Status,
    suites: tuple[Suite, ...],
    *,
    stage: Stage = Stage.RUN,
    error: str = "",
    failures: tuple[FailureDetail, ...] = (),
    output: str = "",
) -> SpecResult:
    return make_spec_result(
        spec_id,
        status,
        suites=suites,
        stage=stage,
        failure_list=failures,
        duration_s=0.5,
        build_command="",
        error=error,
        output=output,
    )


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


def test_a_spec_that_could_not_report_is_one_failing_point() -> None:
    (point,) = points(BROKEN)
    assert (point.name, point.verdict, point.failed) == ("build failed", Verdict.FAIL, 1)
    assert [p.name for p in points(MATH)] == ["math > adds", "math > later"]


def test_junit_parses_with_junitparser_and_counts_agree(tmp_path: Path) -> None:
    path = tmp_path / "junit.xml"
    path.write_text(junit_xml([MATH, BROKEN, PASSING]), encoding="utf-8")
    xml = junitparser.JUnitXml.fromfile(str(path))
    suites = list(xml)
    assert [s.name for s in suites] == ["wasi:math", "wasi:broken", "wasi:text"]
    assert (suites[0].tests, suites[0].failures, suites[0].skipped) == (2, 1, 1)
    expectations = {p.name: p.value for p in suites[0].properties()}  # type: ignore[no-untyped-call]
    assert expectations == {
        "expectations.passed": "1",
        "expectations.failed": "1",
        "expectations.skipped": "1",
    }
    cases = list(suites[0])
    failed = cases[0]
    assert failed.name == "math > adds"
    assert not failed.is_passed
    assert "off by one" in failed.result[0].message
    assert "4:7" in (failed.result[0].text or "")
    assert cases[1].is_skipped
    broken_case = next(iter(suites[1]))
    assert "ERROR TS2322: <bad> & worse" in (broken_case.result[0].text or "")
    assert (xml.tests, xml.failures, xml.skipped) == (4, 2, 1)


def test_tap_parses_with_tap_py(tmp_path: Path) -> None:
    text = tap_document([MATH, BROKEN, PASSING])
    lines = list(TapParser().parse_text(text))
    plans = [line for line in lines if line.category == "plan"]
    tests = [line for line in lines if line.category == "test"]
    assert plans[0].expected_tests == len(tests) == 4
    assert [t.ok for t in tests] == [False, True, False, True]
    assert tests[1].skip
    assert tests[0].yaml_block is not None
    assert tests[0].yaml_block["message"] == "off by one # really\x00"  # YAML's escapes hold it
    assert tests[0].yaml_block["line"] == "4"
    assert not [line for line in lines if line.category == "unknown" and line.text.strip()], [
        line.text for line in lines if line.category == "unknown"
    ]
    # A spec that did not build is a failing test case but counts no expectation, as in the
    # summary's tests line.
    assert "# expectations 2 passed, 1 failed, 1 skipped" in text.splitlines()
    # as-test escapes "#" in names (TAP 13's "\#"), so no name can turn into a SKIP or TODO.
    assert not tests[0].skip and not tests[0].todo
    hashed = result("hash", Status.PASSED, (suite("adds #2", "test", expectation(Verdict.OK)),))
    assert "adds \\#2" in tap_document([hashed])


def test_a_tap_point_with_several_failures_carries_them_all() -> None:
    failing = suite(
        "table", "test", expectation(Verdict.FAIL, "row 1"), expectation(Verdict.FAIL, "row 2")
    )
    lines = list(TapParser().parse_text(tap_document([result("t", Status.FAILED, (failing,))])))
    (test,) = [line for line in lines if line.category == "test"]
    assert test.yaml_block is not None
    assert "message: row 2" in test.yaml_block["failures"]


def test_a_huge_test_name_is_cut_in_junit_and_tap_saying_how_much(tmp_path: Path) -> None:
    """A spec may name a test with 4 MB; CI's reports keep the first ``MAX_NAME`` characters."""
    name = "n" * 4_000_000
    huge = result("huge", Status.FAILED, (suite(name, "test", expectation(Verdict.FAIL)),))
    shown = f"{'n' * MAX_NAME}… ({4_000_000 - MAX_NAME} more characters)"
    path = tmp_path / "junit.xml"
    path.write_text(junit_xml([huge]), encoding="utf-8")
    assert path.stat().st_size < 10_000
    (case,) = list(next(iter(junitparser.JUnitXml.fromfile(str(path)))))
    assert case.name == shown
    text = tap_document([huge])
    assert len(text) < 10_000
    (test,) = [line for line in TapParser().parse_text(text) if line.category == "test"]
    assert test.description == f"- wasi {huge.spec} > {shown}"


def test_huge_messages_values_and_output_are_cut_in_junit_and_tap_saying_where_the_rest_is(
    tmp_path: Path,
) -> None:
    """A 4 MB message and expected value and 20 MiB of output: CI's reports keep MAX_TEXT
    characters of each (the output's end, where a failure shows); report.json keeps all."""
    big = 4_000_000
    huge = Expectation(0, Verdict.FAIL, "toBe", "m" * big, "4:7", "5", "v" * big, "")
    second = Expectation(1, Verdict.FAIL, "toBe", "second", "5:7", "5", "4", "")
    output = "o" * (20 * 1024 * 1024) + "THE-END"
    failed = result("big", Status.FAILED, (suite("big", "test", huge, second),), output=output)
    path = tmp_path / "junit.xml"
    path.write_text(junit_xml([failed]), encoding="utf-8")
    assert path.stat().st_size < 20 * MAX_TEXT
    (junit_suite,) = list(junitparser.JUnitXml.fromfile(str(path)))
    (case,) = list(junit_suite)
    (failure,) = case.result
    assert failure.message.endswith("more characters in report.json)")
    assert len(failure.message) < MAX_TEXT + 100
    assert failure.text is not None and "more characters in report.json" in failure.text
    system_out = ElementTree.parse(path).getroot().findtext("testsuite/system-out")
    assert system_out is not None and system_out.strip().endswith("THE-END")
    assert system_out.startswith(f"({len(output) - MAX_TEXT} characters before, in report.json)")
    text = tap_document([failed])
    assert len(text) < 20 * MAX_TEXT
    (test,) = [line for line in TapParser().parse_text(text) if line.category == "test"]
    assert test.yaml_block is not None
    for field in ("message", "failures"):
        assert test.yaml_block[field].endswith("more characters in report.json)"), field


def test_expectation_totals_are_the_summarys_counts_not_the_test_cases() -> None:
    """From as-test 1.4.0 on a skipped ``xtest`` counts as a skipped suite, not a skipped test:
    the counts the result was made with say so, and junit.xml and the TAP stream repeat them, as
    the summary's tests line and report.json do (the test cases alone would say 1 skipped)."""
    skipping = result("later", Status.PASSED, (suite("later", "test", expectation(Verdict.SKIP)),))
    as_18_counts = dataclasses.replace(skipping.counts, tests_skipped=0)
    counted = dataclasses.replace(skipping, counts=as_18_counts)
    assert sum(point.skipped for point in points(counted)) == 1
    xml = junit_xml([counted])
    assert '<property name="expectations.skipped" value="0" />' in xml
    assert tap_document([counted]).splitlines()[-1].endswith(", 0 skipped")
