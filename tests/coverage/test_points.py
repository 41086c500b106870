"""coverage_points.py: the label and name as-test 1.0.7 derives from a point's source line."""

from __future__ import annotations

from pathlib import Path

import pytest

from astest_tasks.coverage.points import PointInfo, SourceLines, describe_point

SOURCE = """\
export function add<T>(a: T, b: T): T {
class Rect {
  constructor(public width: f64) {}
  private constructor (x: i32) {}
  static area(): f64 {
  readonly width: f64 = 1;
export class Shape {
enum Colour { Red }
export namespace geo {
const LIMIT = 3;
\tif (value > 0) return compute(value);
    total += 1;

  if (x) {
"""


@pytest.fixture
def sources(tmp_path: Path) -> SourceLines:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.ts").write_text(SOURCE)
    return SourceLines(tmp_path)


@pytest.mark.parametrize(
    ("line", "column", "label", "name"),
    [
        (1, 40, "Function", "add"),
        (2, 1, "Class", "Rect"),
        (3, 34, "Constructor", "constructor"),
        (4, 1, "Constructor", "constructor"),
        (5, 22, "Method", "area"),
        (6, 3, "Property", "width"),
        (7, 1, "Class", "Shape"),
        (8, 1, "Enum", "Colour"),
        (9, 1, "Namespace", "geo"),
        (10, 1, "Variable", "LIMIT"),
        (11, 30, "Call", "compute"),  # nearest call to the column; `if (` is never a call
        (12, 5, "Block", ""),  # no declaration, no call: the transform's own type
        (15, 9, "Block", ""),
    ],
)
def test_labels_and_names_follow_as_test(
    sources: SourceLines, line: int, column: int, label: str, name: str
) -> None:
    info = describe_point(sources, "src/a.ts", line, column, "Block")
    assert (info.label, info.name) == (label, name)


def test_snippet_is_the_line_without_indentation(sources: SourceLines) -> None:
    info = describe_point(sources, "src/a.ts", 11, 5, "Expression")
    assert info.snippet == "if (value > 0) return compute(value);"


def test_an_unreadable_or_blank_line_keeps_the_transform_type(sources: SourceLines) -> None:
    assert describe_point(sources, "src/a.ts", 13, 1, "Expression") == PointInfo(
        "Expression", "", ""
    )
    assert describe_point(sources, "src/a.ts", 999, 1, "Block") == PointInfo("Block", "", "")
    assert describe_point(sources, "missing.ts", 1, 1, "Function") == PointInfo("Function", "", "")
