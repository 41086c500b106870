"""Source lines as the report shows them: the character at each coverage point's column marked,
a line marked by whether all its points ran, and the line a failure points at."""

from __future__ import annotations

from pathlib import Path

from astest_tasks.coverage.model import CoveragePoint, FileCoverage
from astest_tasks.coverage.points import SourceLines
from astest_tasks.output.html.source_view import (
    Mark,
    Segment,
    code_line,
    file_source,
    pointed_line,
)


def point(line: int, column: int, executed: bool, kind: str = "Block") -> CoveragePoint:
    return CoveragePoint(f"h{line}.{column}", "src/calc.ts", line, column, kind, executed)


def test_an_uncovered_point_marks_its_character_and_its_line() -> None:
    line = code_line(3, "  if (x < 0) return -1;", [point(3, 3, True), point(3, 15, False)])
    assert line.mark is Mark.MISS
    assert line.segments == (
        Segment("  ", Mark.NONE),
        Segment("i", Mark.HIT),
        Segment("f (x < 0) r", Mark.NONE),
        Segment("e", Mark.MISS),
        Segment("turn -1;", Mark.NONE),
    )
    assert "Block 3:15 never ran" in line.points
    assert "".join(segment.text for segment in line.segments) == "  if (x < 0) return -1;"


def test_a_line_whose_points_all_ran_is_covered_and_a_missed_point_wins_its_column() -> None:
    assert code_line(1, "abc", [point(1, 1, True)]).mark is Mark.HIT
    shared = code_line(1, "abc", [point(1, 2, True), point(1, 2, False, "Function")])
    assert Segment("b", Mark.MISS) in shared.segments


def test_a_line_without_points_is_plain_and_a_point_past_the_end_still_shows() -> None:
    assert code_line(2, "// note", []).segments == (Segment("// note", Mark.NONE),)
    stale = code_line(2, "ab", [point(2, 9, False)])
    assert stale.segments[-1] == Segment(" ", Mark.MISS)


def test_a_file_is_shown_whole_within_the_room_left(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "calc.ts").write_text("export function f(): i32 {\n  return 1;\n}\n")
    coverage = FileCoverage("src/calc.ts", (point(1, 8, True), point(2, 3, False)))
    source = file_source(SourceLines(tmp_path), coverage, room=100)
    assert [line.number for line in source.lines] == [1, 2, 3]
    assert [line.mark for line in source.lines] == [Mark.HIT, Mark.MISS, Mark.NONE]
    assert source.unavailable is False
    full = file_source(SourceLines(tmp_path), coverage, room=2)
    assert (full.lines, full.unavailable) == ((), False)
    missing = FileCoverage("src/gone.ts", coverage.points)
    gone = file_source(SourceLines(tmp_path), missing, room=100)
    assert (gone.lines, gone.unavailable) == ((), True)


def test_a_file_outside_the_project_is_not_available(tmp_path: Path) -> None:
    """A coverage point or failure naming a file outside the project (its name came from a
    spec's report) shows nothing of it, also through a symlink inside the project."""
    project = tmp_path / "project"
    project.mkdir()
    (tmp_path / "secret.ts").write_text("const token = 'SECRET';\n")
    (project / "env.ts").symlink_to(tmp_path / "secret.ts")
    sources = SourceLines(project)
    for name in ("../secret.ts", str(tmp_path / "secret.ts"), "env.ts"):
        coverage = FileCoverage(name, (point(1, 1, False),))
        shown = file_source(sources, coverage, room=100)
        assert (shown.lines, shown.unavailable) == ((), True), name
        assert pointed_line(sources, name, "1:1") is None, name


def test_the_line_a_failure_points_at(tmp_path: Path) -> None:
    (tmp_path / "a.spec.ts").write_text('test("x", () => {\n  expect(1).toBe(2);\n});\n')
    sources = SourceLines(tmp_path)
    line = pointed_line(sources, "a.spec.ts", "2:13")
    assert line is not None
    assert (line.number, line.before, line.at, line.after) == (2, "  expect(1).", "t", "oBe(2);")
    assert pointed_line(sources, "a.spec.ts", "") is None
    assert pointed_line(sources, "a.spec.ts", "99:1") is None
    assert pointed_line(sources, "gone.spec.ts", "1:1") is None
