"""JUnit XML and TAP reports, built from the same result files as the summary (cached ones too).

Both list the same points: the spec's test cases (see test_cases.py: a block of expectations
each, carrying its expectation counts and every failing expectation's details), or one failing
point for a spec that failed before it could report (a compile error, a crash). The expectation
totals, which are the summary's ``tests:`` counts, are in each JUnit ``<testsuite>``'s properties
and in TAP's closing comment.
"""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from collections.abc import Sequence

from astest_tasks.core.guest_text import one_line_text, xml_text, yaml_double_quoted
from astest_tasks.model.guest_report import Verdict
from astest_tasks.model.results import SpecResult, Status
from astest_tasks.model.test_cases import TestCase as Point
from astest_tasks.model.test_cases import test_cases


def points(result: SpecResult) -> list[Point]:
    """The result's test cases; a spec that failed before it could report is one failing point."""
    found = test_cases(result.suites)
    if not found and result.status is Status.FAILED:
        # No report to list (a build failure): the spec itself is the failing point.
        detail = result.failures[0].message if result.failures else result.error
        found.append(
            Point(name=result.error or "failed", verdict=Verdict.FAIL, details=detail, failed=1)
        )
    return found


def _status(point: Point) -> Status:
    if point.verdict is Verdict.FAIL:
        return Status.FAILED
    if point.verdict is Verdict.OK:
        return Status.PASSED
    return Status.SKIPPED


# -- JUnit -----------------------------------------------------------------------------------------
def junit_xml(
    results: Sequence[SpecResult], known_points: Sequence[Sequence[Point]] | None = None
) -> str:
    """One <testsuite> per spec and mode, one <testcase> per point; ``known_points`` are the
    results' points when the caller has them already (the summary keeps them between runs)."""
    root = ElementTree.Element("testsuites", name="astest")
    totals = {"tests": 0, "failures": 0, "skipped": 0}
    total_time = 0.0
    for position, result in enumerate(results):
        spec_points = points(result) if known_points is None else known_points[position]
        failed = sum(1 for p in spec_points if p.verdict is Verdict.FAIL)
        skipped = sum(1 for p in spec_points if _status(p) is Status.SKIPPED)
        suite = ElementTree.SubElement(
            root,
            "testsuite",
            name=f"{result.mode}:{result.spec_id}",
            tests=str(len(spec_points)),
            failures=str(failed),
            errors="0",
            skipped=str(skipped),
            time=f"{result.duration_s:.6f}",
            file=result.spec,
        )
        properties = ElementTree.SubElement(suite, "properties")
        for key, value in _expectation_totals(spec_points).items():
            ElementTree.SubElement(properties, "property", name=key, value=str(value))
        totals["tests"] += len(spec_points)
        totals["failures"] += failed
        totals["skipped"] += skipped
        total_time += result.duration_s
        for point in spec_points:
            case = ElementTree.SubElement(
                suite,
                "testcase",
                classname=f"{result.mode}.{result.spec_id}",
                name=xml_text(point.name),
                file=result.spec,
                time="0",
            )
            if point.verdict is Verdict.FAIL:
                failure = ElementTree.SubElement(
                    case, "failure", message=xml_text(point.message), type=point.matcher or "error"
                )
                where = f"{result.spec}:{point.location}\n" if point.location else ""
                failure.text = xml_text(where + point.details)
            elif _status(point) is Status.SKIPPED:
                ElementTree.SubElement(case, "skipped")
        if result.output:
            ElementTree.SubElement(suite, "system-out").text = xml_text(result.output)
    for key, value in totals.items():
        root.set(key, str(value))
    root.set("errors", "0")
    root.set("time", f"{total_time:.6f}")
    ElementTree.indent(root)
    document = ElementTree.tostring(root, encoding="unicode", xml_declaration=True)
    # A parser reads a raw CR in text as LF; ElementTree escapes it in attributes only, and markup
    # has none, so every CR left is text that must stay a CR.
    return document.replace("\r", "&#13;") + "\n"


def _expectation_totals(spec_points: Sequence[Point]) -> dict[str, int]:
    """The spec's expectations by outcome: the summary's per-spec test counts."""
    return {
        "expectations.passed": sum(p.passed for p in spec_points),
        "expectations.failed": sum(p.failed for p in spec_points),
        "expectations.skipped": sum(p.skipped for p in spec_points),
    }


# -- TAP -------------------------------------------------------------------------------------------
def tap_document(
    results: Sequence[SpecResult], known_points: Sequence[Sequence[Point]] | None = None
) -> str:
    """A TAP 13 stream, a point per test case (names prefixed with mode and file, as as-test's
    TAP reporter does), closed by comments with the expectation totals."""
    lines = ["TAP version 13"]
    body: list[str] = []
    counts = {Status.PASSED: 0, Status.FAILED: 0, Status.SKIPPED: 0}
    expectations = {Status.PASSED: 0, Status.FAILED: 0, Status.SKIPPED: 0}
    number = 0
    for position, result in enumerate(results):
        for point in points(result) if known_points is None else known_points[position]:
            number += 1
            counts[_status(point)] += 1
            expectations[Status.PASSED] += point.passed
            expectations[Status.FAILED] += point.failed
            expectations[Status.SKIPPED] += point.skipped
            name = _tap_name(f"{result.mode} {result.spec} > {point.name}")
            if point.verdict is Verdict.FAIL:
                body.append(f"not ok {number} - {name}")
                body.extend(_yaml_block(result, point))
            elif _status(point) is Status.SKIPPED:
                body.append(f"ok {number} - {name} # SKIP")
            else:
                body.append(f"ok {number} - {name}")
    lines.append(f"1..{number}")
    lines.extend(body)
    lines.append(f"# tests {number}")
    lines.append(f"# pass {counts[Status.PASSED]}")
    if counts[Status.SKIPPED]:
        lines.append(f"# skip {counts[Status.SKIPPED]}")
    lines.append(f"# fail {counts[Status.FAILED]}")
    lines.append(
        f"# expectations {expectations[Status.PASSED]} passed, "
        f"{expectations[Status.FAILED]} failed, {expectations[Status.SKIPPED]} skipped"
    )
    return "\n".join(lines) + "\n"


def _tap_name(text: str) -> str:
    # One line: line breaks (and other whitespace) become single spaces.
    return one_line_text(" ".join(text.split()).replace("#", "\\#"))


def _yaml_block(result: SpecResult, point: Point) -> list[str]:
    line, _, column = point.location.partition(":")
    fields = {
        "message": point.message or point.details,
        "file": result.spec,
        "line": line,
        "column": column,
        "matcher": point.matcher,
        "failures": point.details if point.failed > 1 else "",  # each failing expectation
    }
    block = ["  ---"]
    for key, value in fields.items():
        if value:
            block.append(f"  {key}: {yaml_double_quoted(value)}")
    block.append("  ...")
    return block
