"""specs_of_mode: the specs each mode runs, by the installed as-test's rules for "input" (the base
input's specs in every mode from 1.0.14; "!" patterns per mode from 1.5.0, in the base from
1.5.2), and the warnings for what that as-test would not act on."""

from __future__ import annotations

from pathlib import Path

from astest_tasks.config.mode_specs import exclusion_note, specs_of_mode
from astest_tasks.config.project_config import ProjectConfig, load_config
from tests.conftest import ProjectBuilder

ALL = "./assembly/__tests__/**/*.spec.ts"
SPECS = {
    f"assembly/__tests__/{name}.spec.ts": "// spec\n"
    for name in ("01-a", "02-b", "03-c", "sub/04-d")
}
CONFIG = {
    "input": [ALL, "!**/02-*"],
    "modes": {
        "x": {"input": [ALL, "!**/02-*", "!03-*"]},
        "y": {},
    },
}


def load(tmp_project: ProjectBuilder, as_test: str, config: object = CONFIG) -> ProjectConfig:
    root = tmp_project(config, as_test=as_test, files=SPECS)  # type: ignore[arg-type]
    return load_config(root / "as-test.config.json", root)


def ids_by_mode(config: ProjectConfig) -> dict[str, list[str]]:
    root = Path.cwd()
    return {
        name: [spec.spec_id for spec in specs_of_mode(root, config, mode).specs]
        for name, mode in config.modes.items()
    }


def test_as_test_18_excludes_by_the_base_everywhere_and_by_a_mode_in_that_mode(
    tmp_project: ProjectBuilder,
) -> None:
    config = load(tmp_project, "1.8.0")
    assert ids_by_mode(config) == {"x": ["01-a", "sub/04-d"], "y": ["01-a", "03-c", "sub/04-d"]}
    excluded = specs_of_mode(Path.cwd(), config, config.modes["x"]).excluded
    assert [(e.spec.spec_id, e.pattern) for e in excluded] == [("03-c", "!03-*")]
    assert not config.warnings


def test_a_spec_picked_by_name_runs_although_the_base_excludes_it(
    tmp_project: ProjectBuilder,
) -> None:
    config = load(tmp_project, "1.8.0")
    mode = config.modes["y"]
    picked = specs_of_mode(Path.cwd(), config, mode, base_exclusions=False).specs
    assert "02-b" in [spec.spec_id for spec in picked]
    own = specs_of_mode(Path.cwd(), config, config.modes["x"], base_exclusions=False).specs
    assert "03-c" not in [spec.spec_id for spec in own]  # a mode's own "!" still holds


def test_as_test_150_and_151_exclude_per_mode_only(tmp_project: ProjectBuilder) -> None:
    config = load(tmp_project, "1.5.1")
    assert ids_by_mode(config) == {
        "x": ["01-a", "02-b", "sub/04-d"],
        "y": ["01-a", "02-b", "03-c", "sub/04-d"],
    }
    assert any('input: "!**/02-*" excludes nothing' in w for w in config.warnings)


def test_before_150_no_pattern_excludes_and_both_are_named(tmp_project: ProjectBuilder) -> None:
    config = load(tmp_project, "1.4.1")
    every = ["01-a", "02-b", "03-c", "sub/04-d"]
    assert ids_by_mode(config) == {"x": every, "y": every}
    assert any("modes.x.input" in w and "1.5.0" in w for w in config.warnings)


def test_from_1014_a_modes_own_globs_select_nothing(tmp_project: ProjectBuilder) -> None:
    narrowed = {"input": [ALL], "modes": {"x": {"input": ["./assembly/__tests__/01-*.spec.ts"]}}}
    config = load(tmp_project, "1.8.0", narrowed)
    assert ids_by_mode(config) == {"x": ["01-a", "02-b", "03-c", "sub/04-d"]}
    (warning,) = config.warnings
    assert "modes.x.input" in warning and "select nothing" in warning and "fix:" in warning


def test_as_test_107_keeps_the_modes_own_input_and_no_exclusion(
    tmp_project: ProjectBuilder,
) -> None:
    narrowed = {"input": [ALL, "!**/02-*"], "modes": {"x": {"input": ["./**/01-*.spec.ts"]}}}
    config = load(tmp_project, "1.0.7", narrowed)
    assert ids_by_mode(config) == {"x": ["assembly/__tests__/01-a"]}
    base = specs_of_mode(Path.cwd(), config, config.base).specs
    assert [spec.spec_id for spec in base] == ["01-a", "02-b", "03-c", "sub/04-d"]
    assert any('"!**/02-*" excludes nothing under as-test 1.0.7' in w for w in config.warnings)


def test_fuzz_input_exclusions_are_named_as_doing_nothing(tmp_project: ProjectBuilder) -> None:
    config = load(tmp_project, "1.8.0", {"fuzz": {"input": ["./f/*.fuzz.ts", "!**/x*"]}})
    (warning,) = config.warnings
    assert 'fuzz.input: "!**/x*" excludes nothing' in warning


def test_the_note_names_each_modes_left_out_specs(tmp_project: ProjectBuilder) -> None:
    config = load(tmp_project, "1.8.0")
    found = {name: specs_of_mode(Path.cwd(), config, mode) for name, mode in config.modes.items()}
    assert exclusion_note(found) == 'not run in mode x (its input\'s "!03-*"): 03-c'
