"""coverage/rules.py: which points count, by as-test's file, glob and ignore rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from astest_tasks.core.records import decode, encode
from astest_tasks.coverage.model import CoveragePoint
from astest_tasks.coverage.points import SourceLines
from astest_tasks.coverage.rules import (
    CoverageRules,
    glob_regex,
    is_ignored_file,
    is_ignored_point,
)


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("assembly/**/*.ts", "assembly/a.ts", True),  # **/ may match no folder at all
        ("assembly/**/*.ts", "assembly/x/y/a.ts", True),
        ("assembly/*.ts", "assembly/x/a.ts", False),  # * stays within one folder name
        ("assembly/src/**", "assembly/src/x/y.ts", True),
        ("a?.ts", "ab.ts", True),
        ("a?.ts", "a/.ts", False),
        ("a.ts", "abts", False),  # the dot is literal
        ("(x)+[y]{z}|$^.ts", "(x)+[y]{z}|$^.ts", True),  # regex characters are literal
        ("a.ts", "a.ts\n", False),  # anchored at the very end
        ("src", "src/a.ts", False),
        ("*x*", "a\nx", True),  # a * is [^/], which takes line breaks in JavaScript too ...
        ("**x", "a\nx", False),  # ... while ** is JavaScript's `.`, which takes none
        ("**x", "a\u2028x", False),
    ],
)
def test_globs_become_anchored_regexes(pattern: str, path: str, matches: bool) -> None:
    assert (glob_regex(pattern).match(path) is not None) is matches


@pytest.mark.parametrize(
    "file",
    [
        "assembly/src/a.js",
        "node_modules/lib/a.ts",
        "assembly/node_modules/lib/a.ts",
        "~lib/array.ts",
        "x/~lib/array.ts",
        "assemblyscript/std/assembly/array.ts",
        "assembly/__tests__/a.spec.ts",
    ],
)
def test_files_as_test_never_counts(file: str) -> None:
    assert is_ignored_file(file, CoverageRules())


def test_sources_count_by_default_in_either_extension_and_separator() -> None:
    assert not is_ignored_file("assembly/src/a.ts", CoverageRules())
    assert not is_ignored_file("assembly/src/a.AS", CoverageRules())
    assert not is_ignored_file("assembly\\src\\a.ts", CoverageRules(include=("assembly/**",)))


def test_include_specs_include_and_exclude() -> None:
    assert not is_ignored_file("t/a.spec.ts", CoverageRules(include_specs=True))
    rules = CoverageRules(include=("assembly/src/**/*.ts",), exclude=("assembly/src/gen/**",))
    assert not is_ignored_file("assembly/src/a.ts", rules)
    assert is_ignored_file("assembly/lib/a.ts", rules)  # misses every include
    assert is_ignored_file("assembly/src/gen/t.ts", rules)  # exclude wins over include
    # A blank include pattern matches nothing, yet makes the include list non-empty.
    assert is_ignored_file("assembly/lib/a.ts", CoverageRules(include=("  ",)))


@pytest.fixture
def sources(tmp_path: Path) -> SourceLines:
    (tmp_path / "a.ts").write_text(
        "export function debugDump(v: i32): void {\n  Panic.now(v);\n  let x = 1;\n  x += 2;\n"
    )
    return SourceLines(tmp_path)


def at(line: int, column: int = 3) -> CoveragePoint:
    return CoveragePoint("h", "a.ts", line, column, "Block", False)


def test_no_ignore_lists_ignores_nothing(sources: SourceLines) -> None:
    assert not is_ignored_point(at(1), CoverageRules(), sources)


def test_ignore_by_label_name_and_snippet_is_case_insensitive(sources: SourceLines) -> None:
    assert is_ignored_point(at(1), CoverageRules(ignore_labels=("FUNCTION",)), sources)
    assert is_ignored_point(at(1), CoverageRules(ignore_names=("debug*",)), sources)
    assert is_ignored_point(at(2, 5), CoverageRules(ignore_labels=("call",)), sources)
    assert is_ignored_point(at(2, 5), CoverageRules(ignore_names=("NOW",)), sources)
    assert is_ignored_point(at(3), CoverageRules(ignore_snippets=("LET X*",)), sources)
    assert is_ignored_point(at(3), CoverageRules(ignore_names=("X",)), sources)  # a Variable
    assert not is_ignored_point(at(4), CoverageRules(ignore_names=("*",)), sources)  # no name
    assert not is_ignored_point(at(1), CoverageRules(ignore_names=("debug",)), sources)


def test_ignore_by_location_is_case_sensitive(sources: SourceLines) -> None:
    assert is_ignored_point(at(2, 5), CoverageRules(ignore_locations=("a.ts:2:*",)), sources)
    assert is_ignored_point(at(2, 5), CoverageRules(ignore_locations=("a.ts:2:5",)), sources)
    assert not is_ignored_point(at(2, 5), CoverageRules(ignore_locations=("A.TS:2:5",)), sources)


def test_ignore_matches_the_label_and_name_of_the_installed_as_tests_guess(
    tmp_path: Path,
) -> None:
    # A 1.8 Return point on a line with a call: 1.0.7's rules call it `Call Rect`, 1.1.3's
    # `Return`, so `labels: ["Call"]` and `names: ["Rect"]` drop it only under the old rules.
    (tmp_path / "shapes.ts").write_text(
        "  scaled(factor: f64): Rect {\n    return new Rect(this.width * factor, 1);\n"
    )
    sources = SourceLines(tmp_path)
    point = CoveragePoint("h", "shapes.ts", 2, 12, "Return", False)
    for typed in (False, True):
        for rules in (
            CoverageRules(ignore_labels=("Call",), typed_points=typed),
            CoverageRules(ignore_names=("rect",), typed_points=typed),
        ):
            assert is_ignored_point(point, rules, sources) is not typed, rules
    assert is_ignored_point(
        point, CoverageRules(ignore_labels=("return",), typed_points=True), sources
    )


def test_rules_round_trip_through_plain_data() -> None:
    rules = CoverageRules(True, ("a/**",), ("b",), ("Call",), ("n",), ("l",), ("s",))
    assert decode(CoverageRules, json.loads(json.dumps(encode(rules)))) == rules
    typed = CoverageRules(ignore_labels=("Call",), typed_points=True)
    assert decode(CoverageRules, encode(typed)) == typed
    assert decode(CoverageRules, {}) == CoverageRules()
