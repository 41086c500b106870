"""coverage_gaps.py: the uncovered points listed as as-test 1.8's --show-coverage lists them."""

from __future__ import annotations

from pathlib import Path

from astest_tasks.coverage.model import CoveragePoint, CoverageSummary, FileCoverage
from astest_tasks.coverage.points import SourceLines
from astest_tasks.output.coverage_gaps import coverage_gap_lines
from astest_tasks.output.terminal import Palette

CALC = """\
export function add(a: i32, b: i32): i32 {
  return a + b;
}

export function neverCalled(value: i32): i32 {
\tconst doubled = value * 2;
  return doubled + 1;
}
"""


def _point(file: str, line: int, column: int, kind: str, executed: bool) -> CoveragePoint:
    return CoveragePoint(f"{line}:{column}:{kind}", file, line, column, kind, executed)


def test_rows_per_file_with_label_location_and_source(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "calc.ts").write_text(CALC)
    (tmp_path / "src" / "all.ts").write_text("export const x = 1;\n")
    calc = FileCoverage(
        file="src/calc.ts",
        points=(
            _point("src/calc.ts", 7, 10, "Return", False),
            _point("src/calc.ts", 1, 1, "Function", True),
            _point("src/calc.ts", 5, 1, "Function", False),
        ),
    )
    covered = FileCoverage(file="src/all.ts", points=(_point("src/all.ts", 1, 1, "Block", True),))
    summary = CoverageSummary(files=(covered, calc))

    lines = coverage_gap_lines(summary, SourceLines(tmp_path), Palette(enabled=False))

    assert lines == [
        "",
        "Coverage Gaps",
        "  src/calc.ts (2 uncovered)",
        "    ├─Function      src/calc.ts:5:1         "
        "export function neverCalled(value: i32): i32 {",
        "    └─Return        src/calc.ts:7:10        return doubled + 1;",
    ]


def test_nothing_when_every_point_ran(tmp_path: Path) -> None:
    file = FileCoverage(file="a.ts", points=(_point("a.ts", 1, 1, "Block", True),))
    summary = CoverageSummary(files=(file,))
    assert coverage_gap_lines(summary, SourceLines(tmp_path), Palette(enabled=False)) == []


def test_a_long_line_is_cut_around_the_point(tmp_path: Path) -> None:
    long_line = "  " + "x = f(" + "a, " * 40 + "target(1));"
    (tmp_path / "long.ts").write_text(long_line + "\n")
    column = long_line.index("target") + 1
    file = FileCoverage(file="long.ts", points=(_point("long.ts", 1, column, "Call", False),))
    (row,) = coverage_gap_lines(
        CoverageSummary(files=(file,)), SourceLines(tmp_path), Palette(enabled=False)
    )[3:]
    snippet = row.split("long.ts:1:", 1)[1].split("  ", 1)[1].strip()
    assert snippet.startswith("...") and "target(1));" in snippet
    assert len(snippet) <= 72 + 3


def _detailed(
    line: int, column: int, kind: str, executed: bool, hash: str, parent: str = "", depth: int = 0
) -> CoveragePoint:
    return CoveragePoint(
        hash,
        "src/calc.ts",
        line,
        column,
        kind,
        executed,
        parent_hash=parent,
        scope_kind="Function" if kind == "Function" else "",
        depth=depth,
    )


DETAILED = CoverageSummary(
    files=(
        FileCoverage(
            file="src/calc.ts",
            points=(
                # add() ran, but a block inside it did not: add() heads its uncovered child
                _detailed(1, 1, "Function", True, "f-add"),
                _detailed(2, 3, "Block", False, "b-add", parent="f-add", depth=1),
                # neverCalled() did not run, nor anything inside it
                _detailed(5, 1, "Function", False, "f-never"),
                _detailed(6, 2, "Expression", False, "e-double", parent="f-never", depth=1),
                _detailed(7, 10, "Return", False, "r-never", parent="f-never", depth=1),
            ),
        ),
    )
)


def test_nested_points_fold_into_their_uncovered_function(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "calc.ts").write_text(CALC)

    lines = coverage_gap_lines(DETAILED, SourceLines(tmp_path), Palette(enabled=False))

    assert lines == [
        "",
        "Coverage Gaps",
        "  src/calc.ts (4 uncovered)",
        "    ├─Function      src/calc.ts:1:1         export function add(a: i32, b: i32): i32 {",
        "    │ └─Block         src/calc.ts:2:3         return a + b;",
        "    └─Function      src/calc.ts:5:1         "
        "export function neverCalled(value: i32): i32 {",
        "      └─(+2 nested uncovered points)",
        "",
        "  Run with --show-coverage=all to expand nested coverage gaps.",
    ]


def test_all_lists_the_nested_points_beneath_their_function(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "calc.ts").write_text(CALC)

    lines = coverage_gap_lines(
        DETAILED, SourceLines(tmp_path), Palette(enabled=False), expand_nested=True
    )

    assert lines[-3:] == [
        "    └─Function      src/calc.ts:5:1         "
        "export function neverCalled(value: i32): i32 {",
        "      ├─Variable      src/calc.ts:6:2         const doubled = value * 2;",
        "      └─Return        src/calc.ts:7:10        return doubled + 1;",
    ]
    assert not any("--show-coverage=all" in line for line in lines)


def test_labels_follow_the_installed_as_tests_guess(tmp_path: Path) -> None:
    (tmp_path / "shapes.ts").write_text(
        "  scaled(factor: f64): Rect {\n    return new Rect(this.width * factor, 1);\n"
    )
    file = FileCoverage(file="shapes.ts", points=(_point("shapes.ts", 2, 12, "Return", False),))
    summary = CoverageSummary(files=(file,))
    rows = {
        typed: coverage_gap_lines(
            summary, SourceLines(tmp_path), Palette(enabled=False), typed_points=typed
        )[3]
        for typed in (False, True)
    }
    assert rows[False].startswith("    └─Call   ")  # as-test 1.0.7 to 1.1.2
    assert rows[True].startswith("    └─Return   ")  # from 1.1.3
