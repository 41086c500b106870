"""coverage/files.py: as-test's coverage JSON and the LCOV tracefile."""

from __future__ import annotations

import json
from pathlib import Path

from astest_tasks.coverage.files import coverage_log_json, lcov_document
from astest_tasks.coverage.model import CoveragePoint, merge_points
from astest_tasks.coverage.points import SourceLines

CALC = """\
export function add(a: i32, b: i32): i32 {
  if (a > b) {
    return a;
  }
  return a + b;
}
export function unused(): void {
}
"""


def calc_points() -> list[CoveragePoint]:
    return [
        CoveragePoint("f1", "src/calc.ts", 1, 42, "Block", True),
        CoveragePoint("b1", "src/calc.ts", 2, 14, "Block", False),
        CoveragePoint("e1", "src/calc.ts", 2, 7, "Expression", True),
        CoveragePoint("f2", "src/calc.ts", 7, 33, "Block", False),
        CoveragePoint("x1", "src/other.ts", 1, 1, "Function", True),
    ]


def test_json_has_as_test_shape_and_whole_numbers_stay_whole() -> None:
    summary = merge_points([calc_points()], lambda p: True)
    document = json.loads(coverage_log_json(summary))
    assert list(document) == [
        "enabled", "showPoints", "total", "covered", "uncovered", "percent", "files",
    ]  # fmt: skip
    assert (document["total"], document["covered"], document["uncovered"]) == (5, 3, 2)
    assert document["percent"] == 60 and isinstance(document["percent"], int)
    calc = document["files"][0]
    assert calc["file"] == "src/calc.ts"
    assert (calc["total"], calc["covered"], calc["uncovered"], calc["percent"]) == (4, 2, 2, 50)
    assert calc["points"][0] == {
        "hash": "f1", "file": "src/calc.ts", "line": 1, "column": 42, "type": "Block",
        "executed": True,
    }  # fmt: skip
    assert [p["hash"] for p in calc["points"]] == ["f1", "e1", "b1", "f2"]  # line, then column


def test_lcov_lines_functions_and_records(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "calc.ts").write_text(CALC)
    summary = merge_points([calc_points()], lambda p: True)

    text = lcov_document(summary, SourceLines(tmp_path), test_name="wasi")

    records = text.split("end_of_record\n")
    assert records[-1] == ""
    calc, other = records[0].splitlines(), records[1].splitlines()
    assert calc[:2] == ["TN:wasi", "SF:src/calc.ts"]
    assert [line for line in calc if line.startswith(("FN:", "FNDA:", "FNF", "FNH"))] == [
        "FN:1,add",
        "FN:7,unused",
        "FNDA:1,add",
        "FNDA:0,unused",
        "FNF:2",
        "FNH:1",
    ]
    # Line 2 has a run and an unrun point: the line ran.
    assert [line for line in calc if line.startswith(("DA:", "LF:", "LH:"))] == [
        "DA:1,1",
        "DA:2,1",
        "DA:7,0",
        "LF:3",
        "LH:2",
    ]
    # A transform "Function" point is a function even where the source cannot be read.
    assert "FN:1,(anonymous 1:1)" in other and "FNDA:1,(anonymous 1:1)" in other


def test_lcov_function_names_are_unique_within_a_file(tmp_path: Path) -> None:
    (tmp_path / "a.ts").write_text("  area(): f64 {\n  area(): f64 {\n")
    points = [
        CoveragePoint("a", "a.ts", 1, 15, "Block", True),
        CoveragePoint("b", "a.ts", 2, 15, "Block", False),
    ]
    text = lcov_document(merge_points([points], lambda p: True), SourceLines(tmp_path))
    assert "FN:1,area\n" in text and "FN:2,area (2:15)\n" in text
    assert "FNDA:0,area (2:15)\n" in text


def test_no_files_is_an_empty_tracefile(tmp_path: Path) -> None:
    assert lcov_document(merge_points([], lambda p: True), SourceLines(tmp_path)) == ""


def test_a_file_name_from_the_report_cannot_end_its_record_or_forge_another(
    tmp_path: Path,
) -> None:
    forged = "src/a.ts\nend_of_record\nSF:src/forged.ts\nDA:1,1\x1b]0;t\x07"
    points = [CoveragePoint("a", forged, 1, 1, "Function", False)]

    text = lcov_document(merge_points([points], lambda p: True), SourceLines(tmp_path))

    assert text.endswith("end_of_record\n") and len(text.split("end_of_record\n")) == 2
    sf = [line for line in text.splitlines() if line.startswith("SF:")]
    assert sf == ["SF:src/a.ts\\nend_of_record\\nSF:src/forged.ts\\nDA:1,1\\x1b]0;t\\x07"]
    assert "\x1b" not in text and "\x07" not in text
