"""`init` scaffolding: every file from a template, nothing existing ever overwritten."""

from __future__ import annotations

import json
from pathlib import Path

from astest_tasks.commands.init_pins import choose_pins
from astest_tasks.commands.scaffold import (
    EXAMPLE_SPEC,
    NPM_PACKAGES,
    InitChoices,
    npm_package_name,
    scaffold_project,
)
from astest_tasks.config.project_config import load_config, select_modes
from astest_tasks.output.formats import report_file_names
from astest_tasks.output.report_state import STATE_FILE
from astest_tasks.plan.options import OPTIONS

REPO = Path(__file__).resolve().parents[2]


def test_an_empty_folder_gets_a_whole_project(tmp_path: Path) -> None:
    report = scaffold_project(tmp_path / "My Project")
    root = tmp_path / "My Project"
    assert report.skipped == []
    assert sorted(report.created) == sorted(
        [
            ".as-test/runners/default.wasi.py",
            ".gitignore",
            "as-test.config.json",
            EXAMPLE_SPEC,
            "dodo.py",
            "package.json",
        ]
    )
    package = json.loads((root / "package.json").read_text())
    assert package["type"] == "module"
    assert package["name"] == "my-project"
    assert package["devDependencies"] == dict(NPM_PACKAGES)
    config = load_config(root / "as-test.config.json", root)
    assert config.base.target == "wasi"
    assert config.warnings == ()
    assert config.modes == {}, "as-test 1.0.7 would run every declared mode in a plain run"
    compile((root / "dodo.py").read_text(), "dodo.py", "exec")


def test_the_only_runner_written_is_the_one_the_config_runs(tmp_path: Path) -> None:
    for target in ("wasi", "bindings"):
        root = tmp_path / target
        scaffold_project(root, InitChoices(target=target))
        config = load_config(root / "as-test.config.json", root)
        runners = sorted(path.name for path in (root / ".as-test/runners").iterdir())
        assert runners == [f"default.{mode.target}.py" for mode in select_modes(config)]


def test_existing_files_are_skipped_and_left_unchanged(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text('{"name": "mine"}')
    runner = tmp_path / ".as-test/runners/default.bindings.py"
    runner.parent.mkdir(parents=True)
    runner.write_text("# edited\n")
    report = scaffold_project(tmp_path, InitChoices(target="bindings"))
    assert sorted(report.skipped) == [".as-test/runners/default.bindings.py", "package.json"]
    assert (tmp_path / "package.json").read_text() == '{"name": "mine"}'
    assert runner.read_text() == "# edited\n"
    assert json.loads((tmp_path / "as-test.config.json").read_text())["buildOptions"] == {
        "target": "bindings"
    }


# npm packages this repository's own tests use that a scaffolded project does not need.
REPOSITORY_TEST_TOOLS = {"lcov-parse"}  # reads our lcov.info in tests/integration/test_coverage.py


def test_the_npm_pins_match_the_versions_this_repository_tests() -> None:
    root_package = json.loads((REPO / "package.json").read_text())
    toolchain = {
        name: version
        for name, version in root_package["devDependencies"].items()
        if name not in REPOSITORY_TEST_TOOLS
    }
    assert dict(NPM_PACKAGES) == toolchain


def test_npm_package_names_are_valid() -> None:
    assert npm_package_name("My Project") == "my-project"
    assert npm_package_name(".hidden") == "hidden"
    assert npm_package_name("!!!") == "as-test-project"


def test_the_dodo_py_lists_every_option_with_its_environment_variable(tmp_path: Path) -> None:
    scaffold_project(tmp_path)
    dodo = (tmp_path / "dodo.py").read_text()
    for option in OPTIONS:
        line = next(line for line in dodo.splitlines() if f"--{option.long} " in line)
        assert line.split() == [f"--{option.long}", option.env_var]
    compile(dodo, "dodo.py", "exec")


def test_the_gitignore_covers_every_file_a_run_writes_beside_the_reports(tmp_path: Path) -> None:
    scaffold_project(tmp_path, InitChoices(target="wasi"))
    ignored = (tmp_path / ".gitignore").read_text().splitlines()
    for written in (STATE_FILE, *report_file_names().values()):
        # a report in a folder of its own (html/index.html) is covered by that folder's line
        folder = written.split("/")[0] + "/" if "/" in written else None
        assert f".as-test/{written}" in ignored or f".as-test/{folder}" in ignored, written


def test_force_replaces_the_managed_files_and_the_options_shape_the_project(
    tmp_path: Path,
) -> None:
    (tmp_path / "as-test.config.json").write_text("{}")
    (tmp_path / "package.json").write_text('{"name": "mine", "dependencies": {"x": "1"}}')
    pins = choose_pins(["1.0.7", "1.8.0", "2.0.0"])
    choices = InitChoices(target="web", example="none", coverage=True, force=True, pins=pins)
    report = scaffold_project(tmp_path, choices)
    assert report.replaced == ["as-test.config.json"]
    config = json.loads((tmp_path / "as-test.config.json").read_text())
    assert config["buildOptions"]["target"] == "web" and config["coverage"] is True
    assert not (tmp_path / EXAMPLE_SPEC).exists(), "--example none"
    assert not (tmp_path / ".as-test/runners").exists(), "web specs need no runner script"
    assert json.loads((tmp_path / "package.json").read_text())["name"] == "mine"
    assert "package.json" in report.skipped, "--force never replaces the user's own files"
    fresh = tmp_path / "fresh"
    scaffold_project(fresh, choices)
    package = json.loads((fresh / "package.json").read_text())
    assert package["devDependencies"]["as-test"] == "1.8.0"
    assert package["devDependencies"]["assemblyscript"] == "0.28.20"
