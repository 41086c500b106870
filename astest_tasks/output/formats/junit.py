"""junit.xml: one ``<testsuite>`` per spec and mode, one ``<testcase>`` per test case (see
ci_reports.points); each suite's properties carry its expectation totals, the summary's
``tests:`` counts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from astest_tasks.core.guest_text import xml_text
from astest_tasks.model.guest_report import Verdict
from astest_tasks.model.results import SpecResult, Status
from astest_tasks.model.test_cases import TestCase as Point
from astest_tasks.output.ci_reports import point_status, points
from astest_tasks.output.formats.base import TextFormat
from astest_tasks.output.report_input import ReportInput
from astest_tasks.output.text_caps import cut_name, first_part, last_part

if TYPE_CHECKING:
    from xml.etree.ElementTree import Element


def junit_xml(
    results: Sequence[SpecResult], known_points: Sequence[Sequence[Point]] | None = None
) -> str:
    """One <testsuite> per spec and mode, one <testcase> per point; ``known_points`` are the
    results' points when the caller has them already (the summary keeps them between runs)."""
    import xml.etree.ElementTree as ElementTree  # only when written: a no-change run loads no XML

    root = ElementTree.Element("testsuites", name="astest")
    totals = {"tests": 0, "failures": 0, "skipped": 0}
    total_time = 0.0
    for position, result in enumerate(results):
        spec_points = points(result) if known_points is None else known_points[position]
        failed = sum(1 for p in spec_points if p.verdict is Verdict.FAIL)
        skipped = sum(1 for p in spec_points if point_status(p) is Status.SKIPPED)
        suite = _element(
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
        properties = _element(suite, "properties")
        for key, value in _expectation_totals(result).items():
            _element(properties, "property", name=key, value=str(value))
        totals["tests"] += len(spec_points)
        totals["failures"] += failed
        totals["skipped"] += skipped
        total_time += result.duration_s
        for point in spec_points:
            _add_case(suite, result, point)
        if result.output:
            # Its end, where a failure shows: all of it (a spec may print 64 MiB) is report.json's.
            _element(suite, "system-out").text = xml_text(last_part(result.output))
    for key, value in totals.items():
        root.set(key, str(value))
    root.set("errors", "0")
    root.set("time", f"{total_time:.6f}")
    ElementTree.indent(root)
    document = ElementTree.tostring(root, encoding="unicode", xml_declaration=True)
    # A parser reads a raw CR in text as LF; ElementTree escapes it in attributes only, and markup
    # has none, so every CR left is text that must stay a CR.
    return document.replace("\r", "&#13;") + "\n"


def _add_case(suite: Element, result: SpecResult, point: Point) -> None:
    case = _element(
        suite,
        "testcase",
        classname=f"{result.mode}.{result.spec_id}",
        name=cut_name(point.name),
        file=result.spec,
        time="0",
    )
    if point.verdict is Verdict.FAIL:
        failure = _element(
            case,
            "failure",
            message=first_part(point.message),
            type=cut_name(point.matcher or "error"),
        )
        where = f"{result.spec}:{cut_name(point.location)}\n" if point.location else ""
        failure.text = xml_text(where + first_part(point.details))
    elif point_status(point) is Status.SKIPPED:
        _element(case, "skipped")


def _element(parent: Element, tag: str, **attributes: str) -> Element:
    """A child of ``parent`` whose every attribute is ``xml_text``: a spec's file name, its
    tests' names and matchers, a mode's name may hold what XML cannot (ElementTree writes a
    control character as it is, and the document no parser reads)."""
    from xml.etree.ElementTree import SubElement

    return SubElement(parent, tag, {key: xml_text(value) for key, value in attributes.items()})


def _expectation_totals(result: SpecResult) -> dict[str, int]:
    """The spec's expectations by outcome: the summary's per-spec test counts, from the result's
    counts (made for its as-test version: from 1.4.0 on a skipped ``xtest`` is a skipped suite,
    which the test cases would count as a skipped expectation)."""
    counts = result.counts
    return {
        "expectations.passed": counts.tests_passed,
        "expectations.failed": counts.tests_failed,
        "expectations.skipped": counts.tests_skipped,
    }


def _render(reports: ReportInput) -> str:
    return junit_xml(reports.results, reports.spec_points)


FORMAT = TextFormat(name="junit", file_name="junit.xml", render=_render)
