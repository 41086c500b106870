"""JUnit XML and TAP reports, built from the same result files as the summary (cached ones too).

Both list the same points, after as-test's TAP reporter (AS-TEST-HOST.md §8.3): one per
expectation, named by its suite path (with ` #k` when the suite has several), one for a test with
no expectations, and one for a spec that failed before it could report (a compile error, a crash).
"""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from astest_tasks.guest_text import one_line_text, xml_text, yaml_double_quoted
from astest_tasks.report import Suite, Verdict
from astest_tasks.results import SpecResult, Status

_TEST_KINDS = frozenset({"test", "it", "xtest", "xit", "only", "xonly", "todo"})


@dataclass(frozen=True)
class Point:
    """One reported test: as-test counts every expectation as a test."""

    name: str
    status: Status
    message: str = ""
    details: str = ""
    location: str = ""
    matcher: str = ""


def points(result: SpecResult) -> list[Point]:
    found = list(_suite_points(result.suites, ()))
    if not found and result.status is Status.FAILED:
        # No report to list (a build failure): the spec itself is the failing point.
        detail = result.failures[0].message if result.failures else result.error
        found.append(Point(name=result.error or "failed", status=Status.FAILED, details=detail))
    return found


def _suite_points(suites: Sequence[Suite], path: tuple[str, ...]) -> Iterator[Point]:
    for suite in suites:
        suite_path = (*path, suite.description)
        name = " > ".join(suite_path)
        several = len(suite.tests) > 1
        for index, test in enumerate(suite.tests, start=1):
            point_name = f"{name} #{index}" if several else name
            status = _status(test.verdict)
            message = ""
            if status is Status.FAILED:
                message = (
                    test.message or f"{test.instr} expected {test.right} but received {test.left}"
                )
            yield Point(
                name=point_name,
                status=status,
                message=message,
                details=_failure_text(test.instr, test.right, test.left, test.message),
                location=test.location,
                matcher=test.instr,
            )
        if not suite.tests and not suite.suites and suite.kind in _TEST_KINDS:
            yield Point(name=name, status=_status(suite.verdict))
        yield from _suite_points(suite.suites, suite_path)


def _status(verdict: Verdict) -> Status:
    if verdict is Verdict.FAIL:
        return Status.FAILED
    if verdict is Verdict.OK:
        return Status.PASSED
    return Status.SKIPPED


def _failure_text(matcher: str, expected: str | None, actual: str | None, message: str) -> str:
    lines = [f"matcher: {matcher}", f"expected: {expected}", f"received: {actual}"]
    if message:
        lines.append(f"message: {message}")
    return "\n".join(lines)


# -- JUnit -----------------------------------------------------------------------------------------
def junit_xml(results: Sequence[SpecResult]) -> str:
    """One <testsuite> per spec and mode, one <testcase> per point."""
    root = ElementTree.Element("testsuites", name="astest")
    totals = {"tests": 0, "failures": 0, "skipped": 0}
    total_time = 0.0
    for result in results:
        spec_points = points(result)
        failed = sum(1 for p in spec_points if p.status is Status.FAILED)
        skipped = sum(1 for p in spec_points if p.status is Status.SKIPPED)
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
            if point.status is Status.FAILED:
                failure = ElementTree.SubElement(
                    case, "failure", message=xml_text(point.message), type=point.matcher or "error"
                )
                where = f"{result.spec}:{point.location}\n" if point.location else ""
                failure.text = xml_text(where + point.details)
            elif point.status is Status.SKIPPED:
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


# -- TAP -------------------------------------------------------------------------------------------
def tap_document(results: Sequence[SpecResult]) -> str:
    """A TAP 13 stream, as as-test's TAP reporter writes it (names prefixed with mode and file)."""
    lines = ["TAP version 13"]
    body: list[str] = []
    counts = {Status.PASSED: 0, Status.FAILED: 0, Status.SKIPPED: 0}
    number = 0
    for result in results:
        for point in points(result):
            number += 1
            counts[point.status] += 1
            name = _tap_name(f"{result.mode} {result.spec} > {point.name}")
            if point.status is Status.FAILED:
                body.append(f"not ok {number} - {name}")
                body.extend(_yaml_block(result, point))
            elif point.status is Status.SKIPPED:
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
    }
    block = ["  ---"]
    for key, value in fields.items():
        if value:
            block.append(f"  {key}: {yaml_double_quoted(value)}")
    block.append("  ...")
    return block
