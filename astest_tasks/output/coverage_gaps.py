"""``--show-coverage[=all]``: the uncovered points under the coverage summary, as as-test 1.8
lists them.

``renderCoveragePoints`` in as-test 1.8's ``bin/render/renderer.js``: a ``Coverage Gaps`` heading,
then per file (sorted by path) ``<file> (N uncovered)`` and the uncovered points as a tree, sorted
by line, column, depth, type and hash: ``├─<label>  <file:line:col>  <source line>``, the label and
location padded to the widest uncovered row plus six, the source line cut to 72 characters around
the point. Under --show-coverage the run asks the guest for detailed points (``coverage:detail``),
which name their parent: an uncovered point's uncovered children are folded into a
``(+N nested uncovered points)`` line, or listed beneath it with ``=all``; a covered function that
holds uncovered points is shown as a dim header above them. A guest that sends plain points (as-test
before 1.8) gives no parents, so every uncovered point is a root and both forms are one flat list.
"""

from __future__ import annotations

from pathlib import Path

from astest_tasks.core.frozen import frozen
from astest_tasks.coverage.model import CoveragePoint, CoverageSummary
from astest_tasks.coverage.points import SourceLines, describe_point
from astest_tasks.output.ansi import Style
from astest_tasks.output.terminal import Palette

SNIPPET_WIDTH = 72
_MIN_LABEL_WIDTH = 5
_PADDING = 6
EXPAND_HINT = "  Run with --show-coverage=all to expand nested coverage gaps."


@frozen
class GapListing:
    """--show-coverage's ask: where the sources are, and whether nested points are listed."""

    root: Path
    expand_nested: bool = False
    typed_points: bool = False  # label points as as-test 1.1.3+ does (coverage/points.py)


@frozen
class _Layout:
    label_width: int
    location_width: int


class _Tree:
    """One file's points by parent, drawn as ``renderCoveragePointTree`` draws them."""

    def __init__(
        self,
        points: list[CoveragePoint],
        sources: SourceLines,
        palette: Palette,
        layout: _Layout,
        expand_nested: bool,
        typed_points: bool,
    ) -> None:
        self.sources, self.palette, self.layout = sources, palette, layout
        self.expand_nested, self.typed_points = expand_nested, typed_points
        hashes = {point.hash for point in points}
        self.children: dict[str, list[CoveragePoint]] = {}
        self.roots: list[CoveragePoint] = []
        for point in points:
            if point.parent_hash and point.parent_hash in hashes:
                self.children.setdefault(point.parent_hash, []).append(point)
            else:
                self.roots.append(point)
        self.lines: list[str] = []
        self._below: dict[str, int] = {}  # a point's hash -> uncovered points beneath it

    def draw(self) -> int:
        """Draw every visible root; the count of points folded or drawn below a root."""
        roots = [point for point in self.roots if self._visible(point)]
        return sum(
            self._draw(point, (), index == len(roots) - 1) for index, point in enumerate(roots)
        )

    def _draw(self, point: CoveragePoint, ancestors: tuple[bool, ...], is_last: bool) -> int:
        children = sorted(
            (child for child in self.children.get(point.hash, []) if self._visible(child)),
            key=_gap_order,
        )
        nested = self._nested_uncovered(children)
        below = (*ancestors, not is_last)
        if not point.executed:
            self._row(point, ancestors, is_last, header=False)
            if nested == 0:
                return 0
            if not self.expand_nested:
                text = f"(+{nested} nested uncovered point{'' if nested == 1 else 's'})"
                self.lines.append(f"    {self._prefix(below, True)}{self.palette.dim(text)}")
                return nested
            return 1 + self._draw_all(children, below)
        if nested == 0:
            return 0
        self._row(point, ancestors, is_last, header=True)
        return self._draw_all(children, below)

    def _draw_all(self, children: list[CoveragePoint], ancestors: tuple[bool, ...]) -> int:
        return sum(
            self._draw(child, ancestors, index == len(children) - 1)
            for index, child in enumerate(children)
        )

    def _visible(self, point: CoveragePoint) -> bool:
        return not point.executed or self._uncovered_below(point) > 0

    def _nested_uncovered(self, points: list[CoveragePoint]) -> int:
        return sum((0 if point.executed else 1) + self._uncovered_below(point) for point in points)

    def _uncovered_below(self, point: CoveragePoint) -> int:
        """Counted once per point: a deep tree would otherwise be walked again at every level."""
        if point.hash not in self._below:
            self._below[point.hash] = self._nested_uncovered(self.children.get(point.hash, []))
        return self._below[point.hash]

    def _row(
        self, point: CoveragePoint, ancestors: tuple[bool, ...], is_last: bool, *, header: bool
    ) -> None:
        guessed = _label(self.sources, point, self.typed_points)
        label = (point.scope_kind or guessed) if header else guessed
        meta = label.ljust(self.layout.label_width + _PADDING) + _location(point).ljust(
            self.layout.location_width + _PADDING
        )
        snippet = _snippet(self.sources.line(point.file, point.line), point.column)
        shown = self.palette.dim(snippet) if header else snippet
        prefix = self._prefix(ancestors, is_last)
        self.lines.append(f"    {prefix}{self.palette.dim(meta)}  {shown}")

    def _prefix(self, ancestors: tuple[bool, ...], is_last: bool) -> str:
        rails = "".join("│ " if has_next else "  " for has_next in ancestors)
        return self.palette.dim(rails + ("└─" if is_last else "├─"))


def coverage_gap_lines(
    summary: CoverageSummary,
    sources: SourceLines,
    palette: Palette,
    expand_nested: bool = False,
    typed_points: bool = False,
) -> list[str]:
    """The block's lines (after a blank one), or none when every point ran."""
    files = sorted((f for f in summary.files if f.uncovered), key=lambda f: f.file)
    if not files:
        return []
    missing = [point for file in files for point in file.points if not point.executed]
    layout = _Layout(
        label_width=max(
            max(len(_label(sources, point, typed_points)) for point in missing),
            _MIN_LABEL_WIDTH,
        ),
        location_width=max(len(_location(point)) for point in missing),
    )
    lines = ["", palette.paint("Coverage Gaps", Style.BRIGHT)]
    folded = 0
    for index, file in enumerate(files):
        if index:
            lines.append("")
        uncovered = sum(1 for point in file.points if not point.executed)
        count = palette.dim(f"({uncovered} uncovered)")
        lines.append(f"  {palette.paint(file.file, Style.BRIGHT)} {count}")
        points = sorted(file.points, key=_gap_order)
        tree = _Tree(points, sources, palette, layout, expand_nested, typed_points)
        folded += tree.draw()
        lines.extend(tree.lines)
    if not expand_nested and folded > 0:
        lines += ["", palette.dim(EXPAND_HINT)]
    return lines


def _label(sources: SourceLines, point: CoveragePoint, typed_points: bool) -> str:
    return describe_point(
        sources, point.file, point.line, point.column, point.type, typed_points=typed_points
    ).label


def _gap_order(point: CoveragePoint) -> tuple[int, int, int, str, str]:
    return point.line, point.column, point.depth, point.type, point.hash


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
