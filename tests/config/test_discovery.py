"""discover_specs: which files the input globs select, and the readable unique ids they get."""

from __future__ import annotations

import posixpath
import re
import urllib.parse
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from astest_tasks.config import discovery, input_exclusions
from astest_tasks.config.discovery import Spec, discover_specs, glob_base, task_name_safe
from astest_tasks.config.input_exclusions import expand_braces
from astest_tasks.core.lazy_pattern import LazyPattern

TESTS_GLOB = "assembly/__tests__/**/*.spec.ts"


def make(root: Path, *paths: str) -> None:
    for path in paths:
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("// spec\n", encoding="utf-8")


def ids(specs: list[Spec]) -> dict[str, str]:
    return {spec.path: spec.spec_id for spec in specs}


def test_ids_are_relative_to_the_glob_base(tmp_path: Path) -> None:
    make(tmp_path, "assembly/__tests__/math.spec.ts")
    assert discover_specs(tmp_path, [TESTS_GLOB]) == [
        Spec(path="assembly/__tests__/math.spec.ts", spec_id="math")
    ]


def test_nested_folders_keep_their_relative_path_in_the_id(tmp_path: Path) -> None:
    make(tmp_path, "assembly/__tests__/nested/deeper/array.spec.ts")
    specs = discover_specs(tmp_path, [TESTS_GLOB])
    assert ids(specs) == {"assembly/__tests__/nested/deeper/array.spec.ts": "nested/deeper/array"}
    assert specs[0].basename == "array.spec.ts"


def test_duplicate_basenames_in_different_folders_get_distinct_ids(tmp_path: Path) -> None:
    make(
        tmp_path,
        "assembly/__tests__/array.spec.ts",
        "assembly/__tests__/nested/array.spec.ts",
        "assembly/__tests__/other/array.spec.ts",
    )
    assert ids(discover_specs(tmp_path, [TESTS_GLOB])) == {
        "assembly/__tests__/array.spec.ts": "array",
        "assembly/__tests__/nested/array.spec.ts": "nested/array",
        "assembly/__tests__/other/array.spec.ts": "other/array",
    }


def test_brace_alternatives_are_expanded(tmp_path: Path) -> None:
    make(tmp_path, "assembly/__tests__/a.spec.ts", "assembly/__tests__/b.spec.ts")
    make(tmp_path, "assembly/__tests__/c.spec.ts")
    specs = discover_specs(tmp_path, ["assembly/__tests__/{a,b}.spec.ts"])
    assert ids(specs) == {
        "assembly/__tests__/a.spec.ts": "a",
        "assembly/__tests__/b.spec.ts": "b",
    }


def test_expand_braces_handles_several_and_nested_groups() -> None:
    assert expand_braces("x/{a,b}/{c,d}.ts") == ["x/a/c.ts", "x/a/d.ts", "x/b/c.ts", "x/b/d.ts"]
    assert sorted(expand_braces("{a,{b,c}}.ts")) == ["a.ts", "a.ts", "b.ts", "c.ts"]
    assert expand_braces("plain/*.ts") == ["plain/*.ts"]


def test_plain_spec_patterns_are_read_without_compiling_a_pattern(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    braces = LazyPattern(input_exclusions._BRACES.source)
    monkeypatch.setattr(input_exclusions, "_BRACES", braces)
    make(tmp_path, "assembly/__tests__/a.spec.ts")
    assert ids(discover_specs(tmp_path, [TESTS_GLOB])) == {"assembly/__tests__/a.spec.ts": "a"}
    assert braces._compiled is None, "every call reads the patterns (issue 40)"
    assert expand_braces("x/{a,b}.ts") == ["x/a.ts", "x/b.ts"] and braces._compiled is not None


@given(st.text(alphabet="ab/*?[]{}.-_ ", max_size=24))
def test_glob_base_finds_glob_characters_as_the_pattern_it_replaced_did(pattern: str) -> None:
    parts = []
    for part in pattern.split("/")[:-1]:
        if re.search(r"[*?\[\]{}]", part):
            break
        parts.append(part)
    assert glob_base(pattern) == (posixpath.normpath("/".join(parts)) if parts else ".")


def test_glob_base_stops_at_the_first_component_with_glob_characters() -> None:
    assert glob_base("assembly/__tests__/**/*.spec.ts") == "assembly/__tests__"
    assert glob_base("assembly/__tests__/math.spec.ts") == "assembly/__tests__"
    assert glob_base("assembly/{a,b}/x.spec.ts") == "assembly"
    assert glob_base("*.spec.ts") == "."
    assert glob_base("./tests/*.spec.ts") == "tests"


def test_files_that_are_not_specs_are_ignored(tmp_path: Path) -> None:
    make(
        tmp_path,
        "assembly/__tests__/math.spec.ts",
        "assembly/__tests__/helpers.ts",
        "assembly/__tests__/notes.md",
        "assembly/__tests__/math.spec.ts.bak",
    )
    (tmp_path / "assembly/__tests__/dir.spec.ts").mkdir()
    specs = discover_specs(tmp_path, ["assembly/__tests__/**/*"])
    assert [spec.path for spec in specs] == ["assembly/__tests__/math.spec.ts"]


def test_specs_are_sorted_by_path_and_deduplicated(tmp_path: Path) -> None:
    make(
        tmp_path,
        "assembly/__tests__/zeta.spec.ts",
        "assembly/__tests__/alpha.spec.ts",
        "assembly/__tests__/mid/beta.spec.ts",
    )
    specs = discover_specs(tmp_path, [TESTS_GLOB, "assembly/__tests__/*.spec.ts"])
    assert [spec.path for spec in specs] == [
        "assembly/__tests__/alpha.spec.ts",
        "assembly/__tests__/mid/beta.spec.ts",
        "assembly/__tests__/zeta.spec.ts",
    ]


def test_first_pattern_decides_the_base_of_a_spec_matched_twice(tmp_path: Path) -> None:
    make(tmp_path, "assembly/__tests__/nested/x.spec.ts")
    patterns = ["assembly/**/*.spec.ts", TESTS_GLOB]
    assert ids(discover_specs(tmp_path, patterns)) == {
        "assembly/__tests__/nested/x.spec.ts": "__tests__/nested/x"
    }


def test_colliding_ids_from_different_bases_fall_back_to_full_paths(tmp_path: Path) -> None:
    make(tmp_path, "unit/__tests__/math.spec.ts", "e2e/__tests__/math.spec.ts")
    make(tmp_path, "unit/__tests__/solo.spec.ts")
    specs = discover_specs(tmp_path, ["unit/__tests__/*.spec.ts", "e2e/__tests__/*.spec.ts"])
    assert ids(specs) == {
        "e2e/__tests__/math.spec.ts": "e2e/__tests__/math",
        "unit/__tests__/math.spec.ts": "unit/__tests__/math",
        "unit/__tests__/solo.spec.ts": "solo",
    }


def test_fallback_ids_never_collide_with_other_short_ids(tmp_path: Path) -> None:
    make(tmp_path, "a/x.spec.ts", "b/x.spec.ts", "c/a/x.spec.ts")
    specs = discover_specs(tmp_path, ["a/*.spec.ts", "b/*.spec.ts", "c/**/*.spec.ts"])
    spec_ids = [spec.spec_id for spec in specs]
    assert len(set(spec_ids)) == len(spec_ids) == 3


def test_pattern_matching_nothing_gives_no_specs(tmp_path: Path) -> None:
    make(tmp_path, "assembly/__tests__/math.spec.ts")
    assert discover_specs(tmp_path, ["nowhere/**/*.spec.ts"]) == []
    assert discover_specs(tmp_path, []) == []


def test_dot_slash_prefix_and_backslashes_are_normalised(tmp_path: Path) -> None:
    make(tmp_path, "assembly/__tests__/math.spec.ts")
    for pattern in ["./assembly/__tests__/*.spec.ts", "assembly\\__tests__\\*.spec.ts"]:
        assert discover_specs(tmp_path, [pattern]) == [
            Spec(path="assembly/__tests__/math.spec.ts", spec_id="math")
        ]


def test_result_does_not_depend_on_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make(tmp_path / "project", "assembly/__tests__/math.spec.ts")
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    assert discover_specs(tmp_path / "project", [TESTS_GLOB]) == [
        Spec(path="assembly/__tests__/math.spec.ts", spec_id="math")
    ]


def test_absolute_pattern_inside_the_project_gets_a_base_relative_id(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    make(project, "assembly/__tests__/math.spec.ts")
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    pattern = f"{project.as_posix()}/assembly/__tests__/*.spec.ts"
    assert discover_specs(project, [pattern]) == [
        Spec(path="assembly/__tests__/math.spec.ts", spec_id="math")
    ]


def test_fuzz_targets_are_found_by_their_own_suffix(tmp_path: Path) -> None:
    make(
        tmp_path,
        "assembly/__fuzz__/math.fuzz.ts",
        "assembly/__fuzz__/deep/math.fuzz.ts",
        "assembly/__fuzz__/helper.ts",
        "assembly/__fuzz__/odd.spec.ts",
    )
    found = discover_specs(tmp_path, ["assembly/__fuzz__/**/*.ts"], ".fuzz.ts")
    assert ids(found) == {
        "assembly/__fuzz__/deep/math.fuzz.ts": "deep/math",
        "assembly/__fuzz__/math.fuzz.ts": "math",
    }


def test_what_a_task_name_must_not_hold_is_percent_encoded_in_the_id(tmp_path: Path) -> None:
    make(
        tmp_path,
        "assembly/__tests__/a=b.spec.ts",
        "assembly/__tests__/##[group]g.spec.ts",
        "assembly/__tests__/50%.spec.ts",
        "assembly/__tests__/tab\there.spec.ts",
        "assembly/__tests__/new\nline.spec.ts",
        "assembly/__tests__/plain-name_1 (copy).spec.ts",
    )
    assert ids(discover_specs(tmp_path, [TESTS_GLOB])) == {
        "assembly/__tests__/##[group]g.spec.ts": "##%5Bgroup]g",
        "assembly/__tests__/50%.spec.ts": "50%25",
        "assembly/__tests__/a=b.spec.ts": "a%3Db",
        "assembly/__tests__/new\nline.spec.ts": "new%0Aline",
        "assembly/__tests__/plain-name_1 (copy).spec.ts": "plain-name_1 (copy)",  # as before
        "assembly/__tests__/tab\there.spec.ts": "tab%09here",
    }


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.text(st.sampled_from(["a", "%", "=", "#", "[", "]", ":", "\n", "\r", "\x1b", "\x85"])),
        max_size=6,
        unique=True,
    )
)
def test_task_name_safe_ids_are_reversible_and_so_never_collide(names: list[str]) -> None:
    encoded = [task_name_safe(name) for name in names]
    assert [urllib.parse.unquote(e) for e in encoded] == names
    assert len(set(encoded)) == len(names)
    for name in encoded:
        assert "=" not in name and "##[" not in name
        assert not any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in name)


@given(st.text(alphabet=st.characters(max_codepoint=0x7F)))
def test_an_ascii_id_is_encoded_as_the_pattern_encodes_it(spec_id: str) -> None:
    by_pattern = discovery._NOT_IN_TASK_NAME.compiled.sub(
        lambda match: "".join(f"%{byte:02X}" for byte in match.group().encode("utf-8")), spec_id
    )
    assert task_name_safe(spec_id) == by_pattern


def test_a_plain_id_needs_no_pattern(monkeypatch: pytest.MonkeyPatch) -> None:
    fresh = LazyPattern(discovery._NOT_IN_TASK_NAME.source)
    monkeypatch.setattr(discovery, "_NOT_IN_TASK_NAME", fresh)
    assert task_name_safe("lib/math-v2_final.spec#1") == "lib/math-v2_final.spec#1"
    assert fresh._compiled is None
    assert task_name_safe("a##[b=c") == "a##%5Bb%3Dc"
