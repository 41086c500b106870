"""coverage_console.py: the coverage block as as-test 1.0.7's console lays it out."""

from __future__ import annotations

import pytest

from astest_tasks.coverage.model import CoveragePoint, CoverageSummary, FileCoverage, merge_points
from astest_tasks.output.coverage_console import coverage_bar, coverage_lines
from astest_tasks.output.terminal import Palette

PLAIN = Palette(enabled=False)


def file_with(name: str, covered: int, total: int) -> list[CoveragePoint]:
    return [CoveragePoint(f"h{i}", name, i + 1, 1, "Block", i < covered) for i in range(total)]


def test_block_matches_as_test_layout() -> None:
    summary = merge_points(
        [file_with("assembly/src/calc.ts", 7, 8), file_with("assembly/src/shapes.ts", 4, 5)],
        lambda p: True,
    )
    assert coverage_lines(summary, PLAIN) == [
        "Coverage",
        "  84.62% [==========--] (11/13 covered, 2 points missing, 2 files)",
        "  File Breakdown",
        "     80.00%  assembly/src/shapes.ts               4/5 covered, 1 missing",
        "     87.50%  assembly/src/calc.ts                 7/8 covered, 1 missing",
    ]


def test_singulars_full_coverage_and_the_eight_file_limit() -> None:
    groups = [file_with(f"f{index:02}.ts", 1, 1) for index in range(10)]
    lines = coverage_lines(merge_points(groups, lambda p: True), PLAIN)
    assert lines[1] == "  100.00% [============] (10/10 covered, 0 points missing, 10 files)"
    assert (
        lines[3] == "    100.00%  f00.ts                               1/1 covered, fully covered"
    )
    assert len(lines) == 3 + 8 + 1
    assert lines[-1] == "    ... 2 more files"
    one = coverage_lines(merge_points([file_with("a.ts", 0, 1)], lambda p: True), PLAIN)
    assert one[1] == "  0.00% [------------] (0/1 covered, 1 point missing, 1 file)"


def test_nothing_tracked() -> None:
    assert coverage_lines(CoverageSummary(()), PLAIN) == [
        "Coverage",
        "  No eligible source files were tracked for coverage.",
    ]


@pytest.mark.parametrize(
    ("percent", "bar"),
    [
        (0, "[------------]"),
        (4.1, "[------------]"),
        (37.5, "[=====-------]"),  # 4.5 slots: Math.round goes up, Python round() down
        (50, "[======------]"),
        (100, "[" + "=" * 12 + "]"),
        (140, "[" + "=" * 12 + "]"),
    ],
)
def test_bar_has_twelve_slots_rounded_half_up(percent: float, bar: str) -> None:
    assert coverage_bar(percent) == bar


def test_colour_only_with_an_enabled_palette() -> None:
    summary = CoverageSummary((FileCoverage("a.ts", tuple(file_with("a.ts", 9, 10))),))
    coloured = "\n".join(coverage_lines(summary, Palette(enabled=True)))
    assert "\x1b[92m90.00%" in coloured  # bright green from 90
    assert "\x1b[" not in "\n".join(coverage_lines(summary, PLAIN))
    low = CoverageSummary((FileCoverage("a.ts", tuple(file_with("a.ts", 3, 4))),))
    assert "\x1b[93m75.00%" in "\n".join(coverage_lines(low, Palette(enabled=True)))
