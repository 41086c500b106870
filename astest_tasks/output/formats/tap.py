"""reports/report.tap (where as-test's TAP reporter puts it): a TAP 13 stream, one point per test
case (see ci_reports.points), closed by comments with the expectation totals."""

from __future__ import annotations

from collections.abc import Sequence

from astest_tasks.core.guest_text import inert_field, one_line_text, yaml_double_quoted
from astest_tasks.model.guest_report import Verdict
from astest_tasks.model.results import SpecResult, Status
from astest_tasks.model.test_cases import TestCase as Point
from astest_tasks.output.ci_reports import point_status, points
from astest_tasks.output.formats.base import TextFormat
from astest_tasks.output.report_input import ReportInput
from astest_tasks.output.text_caps import cut_name, first_part


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
        # The summary's counts, made for the spec's as-test version (see junit.py).
        expectations[Status.PASSED] += result.counts.tests_passed
        expectations[Status.FAILED] += result.counts.tests_failed
        expectations[Status.SKIPPED] += result.counts.tests_skipped
        for point in points(result) if known_points is None else known_points[position]:
            number += 1
            counts[point_status(point)] += 1
            name = _tap_name(f"{result.mode} {result.spec} > {cut_name(point.name)}")
            if point.verdict is Verdict.FAIL:
                body.append(f"not ok {number} - {name}")
                body.extend(_yaml_block(result, point))
            elif point_status(point) is Status.SKIPPED:
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
    """A test line's description: one line (line breaks and other whitespace become single
    spaces), escaped as TAP reads a description, where ``\\\\`` is a backslash and ``\\#`` a hash
    and an unescaped ``#`` starts a directive. Both must be escaped: a name with a backslash
    before a ``#`` (``adds \\# TODO``) would otherwise be written ``adds \\\\# TODO``, a backslash
    and a TODO directive, and a TAP consumer does not count a failing TODO as a failure. Then
    control characters and lone surrogates show as their escapes (``\\x1b``, ``\\ud800``): a
    backslash and a letter, no TAP escape, so a reader shows them as written."""
    escaped = " ".join(text.split()).replace("\\", "\\\\").replace("#", "\\#")
    return one_line_text(inert_field(escaped))


def _yaml_block(result: SpecResult, point: Point) -> list[str]:
    line, _, column = point.location.partition(":")
    # Messages and values are a spec's text of any size: their start, saying what was left out.
    fields = {
        "message": first_part(point.message or point.details),
        "file": result.spec,
        "line": cut_name(line),
        "column": cut_name(column),
        "matcher": cut_name(point.matcher),
        "failures": first_part(point.details) if point.failed > 1 else "",  # each one
    }
    block = ["  ---"]
    for key, value in fields.items():
        if value:
            block.append(f"  {key}: {yaml_double_quoted(value)}")
    block.append("  ...")
    return block


def _render(reports: ReportInput) -> str:
    return tap_document(reports.results, reports.spec_points)


FORMAT = TextFormat(name="tap", file_name="reports/report.tap", render=_render)
