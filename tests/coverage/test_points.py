"""coverage/points.py: the label and name as-test derives from a point's source line, by 1.0.7's
rules (up to 1.1.2) and by 1.1.3's (``typed_points``, what 1.8.0 still does)."""

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
    info = describe_point(sources, "src/a.ts", line, column, "Block", typed_points=False)
    assert (info.label, info.name) == (label, name)
    # From 1.1.3 a Block point still names the declaration on its line, but never a call.
    typed = describe_point(sources, "src/a.ts", line, column, "Block", typed_points=True)
    assert (typed.label, typed.name) == (("Block", "") if label == "Call" else (label, name))


def test_snippet_is_the_line_without_indentation(sources: SourceLines) -> None:
    info = describe_point(sources, "src/a.ts", 11, 5, "Expression", typed_points=False)
    assert info.snippet == "if (value > 0) return compute(value);"


@pytest.mark.parametrize("typed_points", [False, True])
def test_an_unreadable_or_blank_line_keeps_the_transform_type(
    sources: SourceLines, typed_points: bool
) -> None:
    def describe(file: str, line: int, fallback: str) -> PointInfo:
        return describe_point(sources, file, line, 1, fallback, typed_points=typed_points)

    assert describe("src/a.ts", 13, "Expression") == PointInfo("Expression", "", "")
    assert describe("src/a.ts", 999, "Block") == PointInfo("Block", "", "")
    assert describe("missing.ts", 1, "Parameter") == PointInfo("Parameter", "", "")


# Lines of a real-looking library, with the point types as-test 1.8's transform emits on them
# (the column is where its point sits). Each case: (line, column, type, 1.0.7's guess, 1.8's).
TYPED_SOURCE = """export function clamp(value: i32, low: i32 = 0, high: i32 = 100): i32 {
  const limited = value > high ? high : max(value, low);
  if (isNaN(value)) return 0;
  const inside = value >= low && isInteger(value);
  this.total += sizeOf(item);
  return new Rect(this.width * factor, this.height * factor);
  throw new RangeError("index out of range");
  scale: f64 = 1.0,
  constructor(public width: f64, public height: f64) {}
  : fallback(value);
  store<u8>(ptr + offset, value);
  static area(): f64 {
  for (let i = 0; i < count; i++) {
  items[index] = normalize(value);
  offset: i32,
"""
TYPED_CASES = [
    # Parameter detector, tried first for every type: the `name: Type [= value]` at the column.
    (1, 23, "Parameter", ("Function", "clamp"), ("Parameter", "value")),
    (1, 46, "DefaultValue", ("Function", "clamp"), ("DefaultValue", "low")),
    (1, 35, "Block", ("Function", "clamp"), ("Property", "low")),  # inside (): a "Property"
    (1, 1, "Function", ("Function", "clamp"), ("Function", "clamp")),  # at `export`: not inside
    (8, 16, "DefaultValue", ("Property", "scale"), ("DefaultValue", "scale")),  # a line of its own
    (15, 3, "Parameter", ("Property", "offset"), ("Parameter", "offset")),
    (9, 22, "Parameter", ("Constructor", "constructor"), ("Parameter", "width")),
    # Ternary and LogicalBranch: their own type, when the line has a `?` (a ternary's) ...
    (2, 34, "Ternary", ("Variable", "limited"), ("Ternary", "")),
    (4, 32, "LogicalBranch", ("Variable", "inside"), ("LogicalBranch", "")),
    # ... else a LogicalBranch is neither a declaration nor a call: still its own type.
    (10, 5, "Ternary", ("Call", "fallback"), ("Ternary", "")),
    # IfBranch: a line that starts with `if (`.
    (3, 7, "IfBranch", ("Call", "isNaN"), ("IfBranch", "")),
    # Assignment: a line with an assignment operator.
    (5, 17, "Assignment", ("Call", "sizeOf"), ("Assignment", "")),
    (14, 18, "Assignment", ("Call", "normalize"), ("Assignment", "")),
    # Gating: a Return, Throw or Loop is never a call nor a declaration (shapes.ts:16:12).
    (6, 10, "Return", ("Call", "Rect"), ("Return", "")),
    (7, 9, "Throw", ("Call", "RangeError"), ("Throw", "")),
    (13, 3, "Loop", ("Loop", ""), ("Loop", "")),
    # Types that still guess: an Expression is a call, a Block a declaration, in both.
    (11, 3, "Expression", ("Call", "store"), ("Call", "store")),
    (12, 3, "Block", ("Method", "area"), ("Method", "area")),
    (2, 3, "Variable", ("Variable", "limited"), ("Variable", "limited")),
    (11, 3, "Call", ("Call", "store"), ("Call", "store")),
]


@pytest.fixture
def typed_sources(tmp_path: Path) -> SourceLines:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "lib.ts").write_text(TYPED_SOURCE)
    return SourceLines(tmp_path)


@pytest.mark.parametrize(("line", "column", "fallback", "old", "new"), TYPED_CASES)
def test_each_as_test_generation_guesses_by_its_own_rules(
    typed_sources: SourceLines,
    line: int,
    column: int,
    fallback: str,
    old: tuple[str, str],
    new: tuple[str, str],
) -> None:
    for typed_points, expected in ((False, old), (True, new)):
        info = describe_point(
            typed_sources, "src/lib.ts", line, column, fallback, typed_points=typed_points
        )
        assert (info.label, info.name) == expected, f"typed_points={typed_points}"
        assert info.snippet == TYPED_SOURCE.splitlines()[line - 1].strip()


def test_white_space_is_javascripts(tmp_path: Path) -> None:
    # JavaScript's \s and trim() know U+FEFF and U+00A0; \w stays ASCII (`é` is no word char).
    (tmp_path / "a.ts").write_text("\ufeffexport function\u00a0run(): void {\n  café(x);\n")
    sources = SourceLines(tmp_path)
    first = describe_point(sources, "a.ts", 1, 1, "Function", typed_points=True)
    assert (first.label, first.name) == ("Function", "run")
    second = describe_point(sources, "a.ts", 2, 3, "Expression", typed_points=False)
    assert (second.label, second.name) == ("Expression", "")


def test_a_point_in_a_file_outside_the_project_reads_nothing_of_it(tmp_path: Path) -> None:
    """A point's file is named by the spec's report: outside the project (directly or through
    a symlink) its line is never read, so neither its label, name nor snippet come from it."""
    project = tmp_path / "project"
    project.mkdir()
    (tmp_path / "secret.ts").write_text("export function TOKEN_abc123(): void {\n")
    (project / "env.ts").symlink_to(tmp_path / "secret.ts")
    sources = SourceLines(project)
    for name in ("../secret.ts", str(tmp_path / "secret.ts"), "env.ts"):
        assert sources.lines(name) is None, name
        info = describe_point(sources, name, 1, 1, "Function", typed_points=True)
        assert info == PointInfo(label="Function", name="", snippet=""), name
