"""coverage/model.py: reading a report's coverage block, and merging points across specs and
modes."""

from __future__ import annotations

import json
from dataclasses import replace

from astest_tasks.core.records import decode, encode
from astest_tasks.coverage.model import (
    CoveragePoint,
    ReportCoverage,
    coverage_from_dict,
    coverage_from_payload,
    merge_points,
    percent_of,
)


def point(
    hash_: str, file: str = "assembly/src/a.ts", line: int = 1, executed: bool = False
) -> CoveragePoint:
    return CoveragePoint(hash_, file, line, 3, "Block", executed)


def payload(coverage: object) -> bytes:
    return json.dumps({"suites": [], "coverage": coverage}).encode()


def test_reads_the_1_0_7_shape() -> None:
    raw = {
        "total": 2,
        "covered": 1,
        "uncovered": 1,
        "percent": 50,
        "points": [
            {
                "hash": "a1",
                "file": "assembly/src/a.ts",
                "line": 4,
                "column": 9,
                "type": "Block",
                "executed": True,
            },
            {
                "hash": "b2",
                "file": "assembly/src/a.ts",
                "line": 7,
                "column": 2,
                "type": "Expression",
                "executed": False,
            },
        ],
    }
    coverage = coverage_from_payload(payload(raw))
    assert coverage is not None
    assert (coverage.total, coverage.covered, coverage.uncovered, coverage.percent) == (2, 1, 1, 50)
    assert coverage.points == (
        CoveragePoint("a1", "assembly/src/a.ts", 4, 9, "Block", True),
        CoveragePoint("b2", "assembly/src/a.ts", 7, 2, "Expression", False),
    )


def test_reads_loosely_like_normalize_coverage() -> None:
    # covered defaults to total - uncovered, percent to covered/total; points without a file, or
    # that are not objects, are dropped; odd field types are converted, not fatal.
    coverage = coverage_from_dict(
        {
            "total": "4",
            "uncovered": 1,
            "points": [
                {"hash": 12, "file": "x.ts", "line": "3", "column": None, "executed": 1},
                {"hash": "no-file", "line": 2},
                "garbage",
                None,
            ],
        }
    )
    assert coverage is not None
    assert (coverage.total, coverage.covered, coverage.percent) == (4, 3, 75.0)
    assert coverage.points == (CoveragePoint("12", "x.ts", 3, 0, "", True),)


def test_no_readable_report_is_no_coverage() -> None:
    assert coverage_from_payload(None) is None
    assert coverage_from_payload(b"not json") is None
    assert coverage_from_payload(b"\xff\xfe") is None
    assert coverage_from_payload(b"[]") is None  # a bare suites array has no coverage
    assert coverage_from_payload(json.dumps({"suites": []}).encode()) is None  # HEAD builds


def test_stored_form_round_trips() -> None:
    coverage = coverage_from_dict(
        {"total": 1, "covered": 0, "uncovered": 1, "percent": 0, "points": [encode(point("h"))]}
    )
    assert coverage is not None
    assert coverage_from_dict(encode(coverage)) == coverage
    assert decode(ReportCoverage, json.loads(json.dumps(encode(coverage)))) == coverage


def test_a_point_is_stored_in_as_test_s_shape_with_its_detail_only_when_set() -> None:
    plain = point("h", executed=True)
    assert json.dumps(encode(plain)) == (
        '{"hash": "h", "file": "assembly/src/a.ts", "line": 1, "column": 3, "type": "Block", '
        '"executed": true}'
    )
    detailed = replace(plain, parent_hash="p", scope_kind="Function", scope_name="f", depth=2)
    assert list(encode(detailed))[6:] == ["parentHash", "scopeKind", "scopeName", "depth"]
    assert decode(CoveragePoint, encode(detailed)) == detailed
    assert decode(CoveragePoint, encode(plain)) == plain


def test_merge_ors_executed_by_file_and_hash_and_keeps_the_first_fields() -> None:
    spec_one = [point("h1", line=1), point("h2", line=2, executed=True)]
    spec_two = [CoveragePoint("h1", "assembly/src/a.ts", 99, 1, "Function", True), point("h2")]
    summary = merge_points([spec_one, spec_two], lambda p: True)
    (file,) = summary.files
    assert [(p.hash, p.line, p.type, p.executed) for p in file.points] == [
        ("h1", 1, "Block", True),
        ("h2", 2, "Block", True),
    ]
    assert (summary.total, summary.covered, summary.uncovered, summary.percent) == (2, 2, 0, 100)


def test_same_hash_in_two_files_is_two_points() -> None:
    summary = merge_points(
        [[point("h", "b.ts"), point("h", "a.ts", executed=True)]], lambda p: True
    )
    assert [f.file for f in summary.files] == ["a.ts", "b.ts"]
    assert (summary.total, summary.covered) == (2, 1)


def test_points_are_sorted_by_line_column_type_hash_and_filtered() -> None:
    points = [
        CoveragePoint("z", "a.ts", 5, 1, "Block", False),
        CoveragePoint("b", "a.ts", 2, 8, "Expression", False),
        CoveragePoint("a", "a.ts", 2, 8, "Block", False),
        CoveragePoint("x", "skip.ts", 1, 1, "Block", True),
    ]
    summary = merge_points([points], lambda p: p.file != "skip.ts")
    assert [p.hash for f in summary.files for p in f.points] == ["a", "b", "z"]
    assert summary.files[0].percent == 0.0


def test_nothing_counted_is_one_hundred_percent_like_as_test() -> None:
    assert merge_points([], lambda p: True).percent == 100.0
    assert percent_of(1, 3) == 100 / 3


def test_numbers_past_any_float_are_read_as_zero() -> None:
    huge = 10**400
    coverage = coverage_from_dict(
        {"total": huge, "uncovered": 1, "percent": huge, "points": [{"file": "x.ts", "line": huge}]}
    )
    assert coverage is not None
    assert (coverage.total, coverage.percent) == (0, 0.0)
    assert coverage.points[0].line == 0
