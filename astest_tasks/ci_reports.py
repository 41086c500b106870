"""JUnit XML and TAP reports, built from the same result files as the summary (cached ones too).

Both list the same points: one per test case, that is per block that holds expectations (a
``test``/``it``, or a ``describe`` with expectations of its own), named by its suite path; one for
a test with no expectations; and one for a spec that failed before it could report (a compile
error, a crash). as-test counts every expectation as a test, and a spec that loops over a table
holds tens of thousands: a ``<testcase>`` per expectation would make reports of hundreds of
thousands of lines that no CI page shows usefully. So a point carries its expectation counts, a
failing point lists every failing expectation with all its details, and the expectation totals
(which are the summary's ``tests:`` counts) are in each JUnit ``<testsuite>``'s properties and in
TAP's closing comments.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from astest_tasks.report import Expectation, Suite, Verdict
from astest_tasks.results import SpecResult, Status

_TEST_KINDS = frozenset({"test", "it", "xtest", "xit", "only", "xonly", "todo"})
# Characters XML 1.0 cannot carry at all, even escaped: spec output may contain any byte.
_NOT_XML = re.compile("[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


@dataclass(frozen=True)
class Point:
    """One reported test case, with how many of its expectations passed, failed and skipped."""

    name: str
    status: Status
    message: str = ""
    details: str = ""  # every failing expectation, when the point failed
    location: str = ""  # the first failing expectation's
    matcher: str = ""  # the first failing expectation's
    passed: int = 0
    failed: int = 0
    skipped: int = 0

    def to_list(self) -> list[object]:
        return [
            self.name,
            self.status.value,
            self.message,
            self.details,
            self.location,
            self.matcher,
            self.passed,
            self.failed,
            self.skipped,
        ]

    @classmethod
    def from_list(cls, data: Sequence[object]) -> Point:
        name, status, message, details, location, matcher, passed, failed, skipped = data
        return cls(
            name=str(name),
            status=Status(str(status)),
            message=str(message),
            details=str(details),
            location=str(location),
            matcher=str(matcher),
            passed=int(passed),  # type: ignore[call-overload]
            failed=int(failed),  # type: ignore[call-overload]
            skipped=int(skipped),  # type: ignore[call-overload]
        )


def points(result: SpecResult) -> list[Point]:
    found = list(_suite_points(result.suites, ()))
    if not found and result.status is Status.FAILED:
        # No report to list (a build failure): the spec itself is the failing point.
        detail = result.failures[0].message if result.failures else result.error
        found.append(
            Point(name=result.error or "failed", status=Status.FAILED, details=detail, failed=1)
        )
    return found


def _suite_points(suites: Sequence[Suite], path: tuple[str, ...]) -> Iterator[Point]:
    for suite in suites:
        suite_path = (*path, suite.description)
        name = " > ".join(suite_path)
        if suite.tests:
            yield _block_point(name, suite.tests)
        elif not suite.suites and suite.kind in _TEST_KINDS:
            status = _status(suite.verdict)
            yield Point(
                name=name,
                status=status,
                passed=status is Status.PASSED,
                failed=status is Status.FAILED,
                # as-test does not count an empty test with no verdict at all
                skipped=status is Status.SKIPPED and suite.verdict is not Verdict.NONE,
            )
        yield from _suite_points(suite.suites, suite_path)


def _block_point(name: str, tests: Sequence[Expectation]) -> Point:
    passed = failed = 0
    failing: list[tuple[int, Expectation]] = []
    for index, test in enumerate(tests, start=1):
        verdict = test.verdict
        if verdict is Verdict.OK:
            passed += 1
        elif verdict is Verdict.FAIL:
            failed += 1
            failing.append((index, test))
    skipped = len(tests) - passed - failed
    if not failing:
        status = Status.PASSED if passed else Status.SKIPPED
        return Point(name=name, status=status, passed=passed, skipped=skipped)
    first = failing[0][1]
    message = first.message or f"{first.instr} expected {first.right} but received {first.left}"
    if len(failing) > 1:
        message = f"{len(failing)} of {len(tests)} expectations failed; #{failing[0][0]}: {message}"
        details = "\n\n".join(
            f"expectation #{index}{f' at {test.location}' if test.location else ''}\n"
            + _failure_text(test.instr, test.right, test.left, test.message)
            for index, test in failing
        )
    else:
        details = _failure_text(first.instr, first.right, first.left, first.message)
    return Point(
        name=name,
        status=Status.FAILED,
        message=message,
        details=details,
        location=first.location,
        matcher=first.instr,
        passed=passed,
        failed=failed,
        skipped=skipped,
    )


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
                name=_xml_text(point.name),
                file=result.spec,
                time="0",
            )
            if point.status is Status.FAILED:
                failure = ElementTree.SubElement(
                    case, "failure", message=_xml_text(point.message), type=point.matcher or "error"
                )
                where = f"{result.spec}:{point.location}\n" if point.location else ""
                failure.text = _xml_text(where + point.details)
            elif point.status is Status.SKIPPED:
                ElementTree.SubElement(case, "skipped")
        if result.output:
            ElementTree.SubElement(suite, "system-out").text = _xml_text(result.output)
    for key, value in totals.items():
        root.set(key, str(value))
    root.set("errors", "0")
    root.set("time", f"{total_time:.6f}")
    ElementTree.indent(root)
    return ElementTree.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def _expectation_totals(spec_points: Sequence[Point]) -> dict[str, int]:
    """The spec's expectations by outcome: the summary's per-spec test counts."""
    return {
        "expectations.passed": sum(p.passed for p in spec_points),
        "expectations.failed": sum(p.failed for p in spec_points),
        "expectations.skipped": sum(p.skipped for p in spec_points),
    }


def _xml_text(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


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
            counts[point.status] += 1
            expectations[Status.PASSED] += point.passed
            expectations[Status.FAILED] += point.failed
            expectations[Status.SKIPPED] += point.skipped
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
    lines.append(
        f"# expectations {expectations[Status.PASSED]} passed, "
        f"{expectations[Status.FAILED]} failed, {expectations[Status.SKIPPED]} skipped"
    )
    return "\n".join(lines) + "\n"


def _tap_name(text: str) -> str:
    return " ".join(text.split()).replace("#", "\\#")


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
            block.append(f"  {key}: {_yaml_scalar(value)}")
    block.append("  ...")
    return block


def _yaml_scalar(value: str) -> str:
    # A double-quoted YAML scalar with JSON escapes is valid YAML and keeps every character.
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    escaped = escaped.replace("\r", "\\r").replace("\t", "\\t")
    return f'"{_NOT_XML.sub(chr(0xFFFD), escaped)}"'
