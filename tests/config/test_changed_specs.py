"""Which specs a set of changed files selects (--changed), from hand-made dependency data."""

from __future__ import annotations

from pathlib import Path

import pytest

from astest_tasks.config.changed_specs import (
    ChangedSelection,
    SpecInputs,
    argument_paths,
    project_paths,
    project_wide_change,
    select_changed,
)
from astest_tasks.config.discovery import Spec
from astest_tasks.config.git_changes import project_relative

VECTOR = Spec("assembly/__tests__/vector.spec.ts", "vector")
MATRIX = Spec("assembly/__tests__/matrix.spec.ts", "matrix")
PARSE = Spec("assembly/__tests__/parse.spec.ts", "parse")
RUNNER = ".as-test/runners/default.wasi.py"


def inputs(mode: str, spec: Spec, *files: str, folders: tuple[str, ...] = ()) -> SpecInputs:
    """A pair's inputs as the tasks gather them: the spec, its imports and the rest."""
    return SpecInputs(mode, spec, frozenset({spec.path, *files}), frozenset(folders))


# The import graph: vector -> lib/vec -> lib/math; matrix -> lib/mat -> lib/vec -> lib/math;
# parse -> lib/text. Each spec has its snapshot and the mode's runner.
GRAPH = [
    inputs(
        "wasi",
        VECTOR,
        "assembly/lib/vec.ts",
        "assembly/lib/math.ts",
        ".as-test/snapshots/vector.spec.snap",
        RUNNER,
    ),
    inputs(
        "wasi",
        MATRIX,
        "assembly/lib/mat.ts",
        "assembly/lib/vec.ts",
        "assembly/lib/math.ts",
        ".as-test/snapshots/matrix.spec.snap",
        RUNNER,
    ),
    inputs("wasi", PARSE, "assembly/lib/text.ts", ".as-test/snapshots/parse.spec.snap", RUNNER),
]


def chosen(changed: set[str], candidates: list[SpecInputs] = GRAPH) -> list[str]:
    selection = select_changed(candidates, frozenset(changed), "HEAD", "as-test.config.json")
    return sorted(f"{mode}:{path.rsplit('/', 1)[-1]}" for mode, path in selection.selected)


@pytest.mark.parametrize(
    ("changed", "expected"),
    [
        ({"assembly/lib/math.ts"}, ["wasi:matrix.spec.ts", "wasi:vector.spec.ts"]),
        ({"assembly/lib/mat.ts"}, ["wasi:matrix.spec.ts"]),
        ({"assembly/lib/text.ts"}, ["wasi:parse.spec.ts"]),
        ({"assembly/__tests__/parse.spec.ts"}, ["wasi:parse.spec.ts"]),
        ({".as-test/snapshots/vector.spec.snap"}, ["wasi:vector.spec.ts"]),
        ({RUNNER}, ["wasi:matrix.spec.ts", "wasi:parse.spec.ts", "wasi:vector.spec.ts"]),
        ({"README.md", "docs/guide.md", "assembly/lib/unused.ts"}, []),
        (set(), []),
    ],
)
def test_a_changed_file_selects_the_specs_that_depend_on_it(
    changed: set[str], expected: list[str]
) -> None:
    assert chosen(changed) == expected


def test_each_mode_is_selected_on_its_own_inputs() -> None:
    """A mode's asconfig or runner is that mode's alone."""
    both = [
        inputs("wasi", VECTOR, "asconfig.wasi.json", RUNNER),
        inputs(
            "bindings", VECTOR, "asconfig.bindings.json", ".as-test/runners/default.bindings.py"
        ),
    ]
    assert chosen({"asconfig.bindings.json"}, both) == ["bindings:vector.spec.ts"]
    assert chosen({"assembly/__tests__/vector.spec.ts"}, both) == [
        "bindings:vector.spec.ts",
        "wasi:vector.spec.ts",
    ]


def test_a_renamed_module_selects_the_specs_that_still_import_its_old_name() -> None:
    """git lists a rename as the old path and the new one (--no-renames). A spec that imports
    the old name no longer finds it: the import scan lists that missing path among its inputs,
    and the build must run to report the broken import."""
    stale = inputs("wasi", PARSE, "assembly/lib/text.ts", "assembly/lib/text/index.ts")
    moved_along = inputs("wasi", VECTOR, "assembly/lib/strings.ts")
    untouched = inputs("wasi", MATRIX, "assembly/lib/mat.ts")
    rename = {"assembly/lib/text.ts", "assembly/lib/strings.ts"}
    assert chosen(rename, [stale, moved_along, untouched]) == [
        "wasi:parse.spec.ts",
        "wasi:vector.spec.ts",
    ]


def test_a_renamed_spec_is_selected_under_its_new_name() -> None:
    renamed = Spec("assembly/__tests__/vectors.spec.ts", "vectors")
    changed = {"assembly/__tests__/vector.spec.ts", "assembly/__tests__/vectors.spec.ts"}
    assert chosen(changed, [inputs("wasi", renamed), inputs("wasi", MATRIX)]) == [
        "wasi:vectors.spec.ts"
    ]


def test_a_moved_submodule_selects_the_specs_that_import_a_file_inside_it() -> None:
    """git lists a submodule whose checkout moved as its folder, not the files in it."""
    vendored = inputs("wasi", VECTOR, "vendor/linalg/assembly/vec.ts")
    outside = inputs("wasi", MATRIX, "../vendor/linalg/vec.ts")
    assert chosen({"vendor/linalg"}, [vendored, inputs("wasi", PARSE)]) == ["wasi:vector.spec.ts"]
    assert chosen({"../vendor/linalg"}, [outside]) == ["wasi:matrix.spec.ts"]
    assert chosen({"vendor/linalg-old"}, [vendored]) == []


def test_a_folder_named_by_the_build_arguments_selects_on_any_file_inside() -> None:
    with_lib = inputs("wasi", VECTOR, folders=("vendor/lib",))
    assert chosen({"vendor/lib/deep/alloc.ts"}, [with_lib]) == ["wasi:vector.spec.ts"]
    assert chosen({"vendor/library.ts"}, [with_lib]) == []


@pytest.mark.parametrize(
    "changed",
    [
        "as-test.config.json",
        "package.json",
        "package-lock.json",
        "../../pnpm-lock.yaml",  # a monorepo's lock file, above a project in a subfolder
        ".env",
        "config/.env.test",
        "pyproject.toml",
        "dodo.py",
    ],
)
def test_a_project_wide_file_selects_every_spec(changed: str) -> None:
    selection = select_changed(GRAPH, frozenset({changed}), "main", "as-test.config.json")
    assert len(selection.selected) == 3
    assert selection.everything_because == changed
    assert selection.note == (
        f"--changed=main: {changed} differs from main, and every spec depends on it: all 3 run"
    )


@pytest.mark.parametrize(
    "changed",
    ["assembly/package.json", "../sibling/package.json", "../sibling/.env", "docs/dodo.py"],
)
def test_the_same_names_elsewhere_are_not_project_wide(changed: str) -> None:
    assert project_wide_change({changed}, "as-test.config.json") is None


def test_a_config_in_a_subfolder_is_matched_by_its_path() -> None:
    assert project_wide_change({"ci/as-test.ci.json"}, "./ci/as-test.ci.json") == (
        "ci/as-test.ci.json"
    )
    assert project_wide_change({"as-test.config.json"}, "ci/as-test.ci.json") is None


def test_the_notes_say_what_was_chosen() -> None:
    some = select_changed(GRAPH, frozenset({"assembly/lib/mat.ts"}), "origin/main", "c.json")
    assert some.note == (
        "--changed=origin/main: 1 of 3 specs differ from origin/main, or depend on a file that does"
    )
    none = ChangedSelection(ref="HEAD", selected=frozenset(), specs_total=3)
    assert none.note == (
        "no spec changed since HEAD (nor any file they depend on): nothing to run (--changed=HEAD)"
    )


def test_a_spec_selected_in_two_modes_counts_once() -> None:
    both = [inputs("wasi", VECTOR), inputs("bindings", VECTOR), inputs("wasi", PARSE)]
    selection = select_changed(both, frozenset({VECTOR.path}), "HEAD", "as-test.config.json")
    assert selection.keeps("wasi", VECTOR) and selection.keeps("bindings", VECTOR)
    assert not selection.keeps("wasi", PARSE)
    assert selection.note.startswith("--changed=HEAD: 1 of 2 specs")


@pytest.mark.parametrize(
    ("prefix", "repo_paths", "expected"),
    [
        ("", ["assembly/lib/math.ts"], ["assembly/lib/math.ts"]),
        ("packages/geo/", ["packages/geo/assembly/a.ts"], ["assembly/a.ts"]),
        ("packages/geo/", ["packages/shared/vec.ts"], ["../shared/vec.ts"]),
        ("packages/geo/", ["package-lock.json"], ["../../package-lock.json"]),
    ],
)
def test_git_paths_are_made_relative_to_a_project_in_a_subfolder(
    prefix: str, repo_paths: list[str], expected: list[str]
) -> None:
    assert project_relative(repo_paths, prefix) == expected


def test_a_subfolder_project_importing_a_module_outside_it_is_selected() -> None:
    """The import scan names a module outside the project ``../shared/vec.ts``; git's path for
    it, made relative to the project, is the same."""
    changed = project_relative(["packages/shared/vec.ts"], "packages/geo/")
    uses_shared = inputs("wasi", VECTOR, "../shared/vec.ts")
    assert chosen(set(changed), [uses_shared, inputs("wasi", PARSE)]) == ["wasi:vector.spec.ts"]


def test_task_paths_become_project_relative(tmp_path: Path) -> None:
    paths = [str(tmp_path / "asconfig.json"), "./assembly/lib/../lib/vec.ts", "x\\y.ts"]
    assert project_paths(tmp_path, paths) == {"asconfig.json", "assembly/lib/vec.ts", "x/y.ts"}


def test_build_arguments_name_files_and_folders_that_exist(tmp_path: Path) -> None:
    (tmp_path / "transform").mkdir()
    (tmp_path / "transform" / "index.js").write_text("export default class {}\n")
    (tmp_path / "vendor").mkdir()
    arguments = [
        "--transform ./transform/index.js",
        "--lib=./vendor",
        "--enable simd",
        "--path .",
        "--use ./missing.ts",
    ]
    files, folders = argument_paths(tmp_path, arguments)
    assert files == {"transform/index.js"}
    assert folders == {"vendor"}
