"""``--show-coverage``: the uncovered points under the coverage summary, as as-test 1.8 lists them.

``renderCoveragePoints`` in as-test 1.8's ``bin/render/renderer.js``: a ``Coverage Gaps`` heading,
then per file (sorted by path) ``<file> (N uncovered)`` and one row per uncovered point, sorted by
line, column, type and hash: ``├─<label>  <file:line:col>  <source line>``, the label and location
padded to the widest of all rows plus six, the source line cut to 72 characters around the point.
1.8 nests points under the function that holds them when its guest streams detailed points; our
host asks for the plain ones (``coverage:detail`` is answered 0), which carry no parent, so every
row is a root as in 1.8 without detail, and ``all`` shows the same rows as the plain form.
"""

from __future__ import annotations

from colorama import Style

from astest_tasks.coverage.model import CoveragePoint, CoverageSummary
from astest_tasks.coverage.points import SourceLines, describe_point
from astest_tasks.output.terminal import Palette

SNIPPET_WIDTH = 72
_MIN_LABEL_WIDTH = 5
_PADDING = 6


def coverage_gap_lines(
    summary: CoverageSummary, sources: SourceLines, palette: Palette
) -> list[str]:
    """The block's lines (after a blank one), or none when every point ran."""
    files = sorted((f for f in summary.files if f.uncovered), key=lambda f: f.file)
    if not files:
        return []
    rows = {
        file.file: [
            (point, describe_point(sources, point.file, point.line, point.column, point.type))
            for point in sorted(file.points, key=_gap_order)
            if not point.executed
        ]
        for file in files
    }
    every = [row for file_rows in rows.values() for row in file_rows]
    label_width = max(max(len(info.label) for _, info in every), _MIN_LABEL_WIDTH)
    location_width = max(len(_location(point)) for point, _ in every)
    lines = ["", palette.paint("Coverage Gaps", Style.BRIGHT)]
    for index, file in enumerate(files):
        if index:
            lines.append("")
        missing = rows[file.file]
        count = palette.dim(f"({len(missing)} uncovered)")
        lines.append(f"  {palette.paint(file.file, Style.BRIGHT)} {count}")
        for place, (point, info) in enumerate(missing):
            branch = "└─" if place == len(missing) - 1 else "├─"
            meta = info.label.ljust(label_width + _PADDING) + _location(point).ljust(
                location_width + _PADDING
            )
            snippet = _snippet(sources.line(point.file, point.line), point.column)
            lines.append(f"    {palette.dim(branch)}{palette.dim(meta)}  {snippet}")
    return lines


def _gap_order(point: CoveragePoint) -> tuple[int, int, str, str]:
    return point.line, point.column, point.type, point.hash


def _location(point: CoveragePoint) -> str:
    return f"{point.file}:{point.line}:{point.column}"


def _snippet(source_line: str, column: int) -> str:
    """The line without its indentation, cut to 72 characters around the point's column."""
    expanded = source_line.replace("\t", "  ")
    visible = expanded.lstrip()
    indent = len(expanded) - len(visible)
    visible = visible.rstrip()
    if len(visible) <= SNIPPET_WIDTH:
        return visible
    focus = max(0, min(len(visible) - 1, column - 1 - indent))
    start = max(0, min(len(visible) - SNIPPET_WIDTH, focus - SNIPPET_WIDTH // 2))
    end = min(len(visible), start + SNIPPET_WIDTH)
    prefix = "..." if start > 0 else ""
    suffix = "..." if end < len(visible) else ""
    return f"{prefix}{visible[start:end]}{suffix}"
