"""Source lines as the HTML report shows them: a coverage file with each point marked where it
stands, and the line a failure points at.

A line is cut into segments of plain text and marked characters (the character at a point's
column, 1-based as ``file:line:col`` counts it); the template escapes each segment, so source
text is always shown as text.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from astest_tasks.core.frozen import frozen
from astest_tasks.coverage.model import CoveragePoint, FileCoverage
from astest_tasks.coverage.points import SourceLines
from astest_tasks.model.locations import parse_location
from astest_tasks.output.text_caps import cut_name

MAX_POINTS_DESCRIBED = 20  # points a line's tooltip names (a spec may put thousands on one)


class Mark(StrEnum):
    NONE = ""
    HIT = "hit"  # every point on the line ran
    MISS = "miss"  # a point on the line never ran


@frozen
class Segment:
    text: str
    mark: Mark


@frozen
class CodeLine:
    number: int
    mark: Mark
    segments: tuple[Segment, ...]
    points: str  # the line's points, for the tooltip: "Function 3:1 ran, Block 3:20 never ran"


@frozen
class FileSource:
    file: str
    lines: tuple[CodeLine, ...]  # () when the file could not be read, or the page is full
    # Not one of the project's own readable files (core/project_source.py): never read.
    unavailable: bool


def file_source(sources: SourceLines, coverage: FileCoverage, room: int) -> FileSource:
    """The file's lines, each point marked; none when it cannot be read or has more than
    ``room`` lines (the page's budget of source lines left)."""
    text_lines = sources.lines(coverage.file)
    if text_lines is None:
        return FileSource(coverage.file, (), unavailable=True)
    if len(text_lines) > room:
        return FileSource(coverage.file, (), unavailable=False)
    if text_lines and text_lines[-1] == "":
        text_lines = text_lines[:-1]  # the newline that ends the file opens no line
    by_line: dict[int, list[CoveragePoint]] = {}
    for point in coverage.points:
        by_line.setdefault(point.line, []).append(point)
    lines = tuple(
        code_line(number, text, by_line.get(number, ()))
        for number, text in enumerate(text_lines, start=1)
    )
    return FileSource(coverage.file, lines, unavailable=False)


def code_line(number: int, text: str, points: Sequence[CoveragePoint]) -> CodeLine:
    """One source line with the character at each point's column marked."""
    if not points:
        return CodeLine(number, Mark.NONE, (Segment(text, Mark.NONE),), "")
    mark = Mark.HIT if all(point.executed for point in points) else Mark.MISS
    marks: dict[int, Mark] = {}
    for point in points:
        column = max(0, point.column - 1)
        if marks.get(column) is not Mark.MISS:  # a missed point wins a shared column
            marks[column] = Mark.HIT if point.executed else Mark.MISS
    segments: list[Segment] = []
    start = 0
    for column in sorted(marks):
        if column >= len(text):
            break
        if column > start:
            segments.append(Segment(text[start:column], Mark.NONE))
        segments.append(Segment(text[column], marks[column]))
        start = column + 1
    segments.append(Segment(text[start:], Mark.NONE))
    past_end = [column for column in marks if column >= len(text)]
    if past_end:  # a point beyond the line's text (a stale file): shown after it
        segments.append(Segment(" ", marks[min(past_end)]))
    described = ", ".join(
        f"{cut_name(point.type)} {point.line}:{point.column} "
        f"{'ran' if point.executed else 'never ran'}"
        for point in points[:MAX_POINTS_DESCRIBED]
    )
    if len(points) > MAX_POINTS_DESCRIBED:
        described += f" and {len(points) - MAX_POINTS_DESCRIBED} more points"
    return CodeLine(number, mark, tuple(segments), described)


@frozen
class PointedLine:
    """The source line a failure's ``line:col`` names, with that column marked."""

    number: int
    before: str
    at: str
    after: str


def pointed_line(sources: SourceLines, file: str, location: str) -> PointedLine | None:
    """The line of ``file`` that ``location`` ("line:col") names; None when there is none."""
    number, column_number = parse_location(location)
    if number == 0:
        return None
    text = sources.line(file, number)
    if not text.strip():
        return None
    column = column_number - 1 if column_number > 0 else 0
    column = min(column, max(0, len(text) - 1))
    return PointedLine(number, text[:column], text[column : column + 1], text[column + 1 :])
