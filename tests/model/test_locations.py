"""A failure's ``line:col`` has one reader, and the annotation and the HTML page agree on it."""

from __future__ import annotations

from pathlib import Path

from astest_tasks.coverage.points import SourceLines
from astest_tasks.model.locations import parse_location
from astest_tasks.output.html.source_view import pointed_line


def test_locations_read_as_as_tests_parse_location() -> None:
    assert parse_location("12:7") == (12, 7)
    assert parse_location(" 12 ") == (12, 0)
    assert parse_location("") == parse_location("a:b") == (0, 0)
    assert parse_location("12:x") == parse_location("12:") == parse_location(":7") == (0, 0)


def test_the_page_marks_a_line_only_where_the_annotation_names_one(tmp_path: Path) -> None:
    (tmp_path / "a.spec.ts").write_text("let x = 1;\nexpect(x).toBe(2);\n")
    sources = SourceLines(tmp_path)
    for location in ("2:8", "2", "12:x", "x:2", "2:x", ""):
        line, _ = parse_location(location)
        pointed = pointed_line(sources, "a.spec.ts", location)
        assert (pointed is not None) == (line == 2), location


def test_a_guests_location_too_long_or_in_other_digits_names_no_place() -> None:
    assert parse_location("9" * 5000) == (0, 0)  # int() would refuse it: no exception here
    assert parse_location("\u0661\u0662") == (0, 0)  # Arabic-Indic "12": not parseLocation's
    assert parse_location("123456789:1") == (123456789, 1)
