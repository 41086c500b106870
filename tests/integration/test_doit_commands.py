"""doit's own commands on our tasks, mode selection, and how bad input is reported."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.integration.conftest import DoitRun, Project, clone_project, passing_tests_line
from tests.integration.toolchains import Toolchain

pytestmark = pytest.mark.integration

# For doit's own commands, the state file and the toolchain checks, the as-test version changes
# nothing: one toolchain, the one real projects use, covers them. Mode, spec and suite selection
# and config errors follow each version's rules, and stay on both.
OWN_MACHINERY = pytest.mark.toolchains("1.8.0")


@OWN_MACHINERY
def test_list_shows_the_creator_and_all_shows_every_subtask(
    fresh_project: Callable[[str], Project],
) -> None:
    project = fresh_project("passing")
    listed = project.doit("list")
    assert listed.exit_code == 0
    assert listed.stdout.split()[0] == "astest"
    every = project.doit("list", "--all")
    names = {line.split()[0] for line in every.stdout.splitlines() if line.strip()}
    for mode in ("wasi", "bindings"):
        # same basename in two folders: two readable, distinct ids
        assert f"astest:build:{mode}:left/shared" in names
        assert f"astest:run:{mode}:right/shared" in names
    assert "astest:summary" in names


def statuses(run: DoitRun) -> dict[str, str]:
    """`doit list --status` lines are `<R|U|I> <task>`."""
    found: dict[str, str] = {}
    for line in run.stdout.splitlines():
        if line.strip():
            status, name = line.split()[:2]
            found[name] = status
    return found


@OWN_MACHINERY
def test_list_status_is_truthful_before_and_after_a_run(
    built_passing: tuple[Project, DoitRun], fresh_project: Callable[[str], Project]
) -> None:
    fresh = statuses(fresh_project("passing").doit("list", "--all", "--status"))
    assert fresh["astest:build:wasi:geometry"] == "R"
    assert fresh["astest:run:wasi:geometry"] == "R"
    built = statuses(built_passing[0].doit("list", "--all", "--status"))
    assert built["astest:build:wasi:geometry"] == "U"
    assert built["astest:run:wasi:geometry"] == "U"
    assert built["astest:summary"] == "R"


@OWN_MACHINERY
def test_info_and_list_status_see_an_edited_imported_module_before_the_run(
    built_passing: tuple[Project, DoitRun], tmp_path: Path
) -> None:
    project = clone_project(built_passing[0], tmp_path)
    helper = project.root / "assembly/lib/counter.ts"
    # Same results, other code: the wasm changes, so the runs run again.
    vowel_test = 'c == "a" || c == "e" || c == "i" || c == "o" || c == "u"'
    helper.write_text(helper.read_text().replace(vowel_test, '"aeiou".includes(c)'))

    info = project.doit("info", "astest:run:wasi:snap")
    assert info.exit_code == 1, info.stdout + info.stderr  # doit info: 1 = not up to date
    assert "status     : run" in info.stdout
    assert "its build is out of date: assembly/lib/counter.ts changed" in info.stdout
    listed = statuses(project.doit("list", "--all", "--status"))
    # snap.spec.ts imports lib/counter.ts; geometry.spec.ts does not.
    assert listed["astest:run:wasi:snap"] == "R"
    assert listed["astest:run:bindings:snap"] == "R"
    assert listed["astest:run:wasi:geometry"] == "U"

    run = project.doit()
    assert run.exit_code == 0
    assert {"astest:run:wasi:snap", "astest:run:bindings:snap"} <= set(run.executed)
    after = project.doit("info", "astest:run:wasi:snap")
    assert after.exit_code == 0 and "status     : up-to-date" in after.stdout
    again = project.doit()
    assert again.executed == ["astest:summary"], "each spec runs once, not once more"


def test_mode_selection_by_environment_variable(
    built_passing: tuple[Project, DoitRun], tmp_path: Path, toolchain: Toolchain
) -> None:
    project = clone_project(built_passing[0], tmp_path)
    run = project.doit(env={"ASTEST_MODE": "bindings"})
    assert run.exit_code == 0
    assert not any(":wasi:" in name for name in run.executed)
    assert " wasi " not in run.stdout
    assert run.last_line == passing_tests_line(toolchain, modes=1)


def test_wildcards_select_one_mode_of_runs(
    built_passing: tuple[Project, DoitRun], tmp_path: Path
) -> None:
    project = clone_project(built_passing[0], tmp_path)
    (project.root / ".as-test/build/wasi/geometry.result.jsonl").unlink()
    run = project.doit("astest:run:wasi:*")
    assert run.exit_code == 0
    assert [n for n in run.executed if n.startswith("astest:run:")] == ["astest:run:wasi:geometry"]


def _single_error_line(run: DoitRun) -> str:
    assert run.exit_code == 3, run.stdout + run.stderr
    assert "Traceback" not in run.stderr
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, run.stderr
    assert lines[0].startswith("ERROR: ")
    return lines[0]


def test_invalid_json_config_is_one_error_line_naming_file_and_fix(
    fresh_project: Callable[[str], Project],
) -> None:
    project = fresh_project("passing")
    (project.root / "as-test.config.json").write_text('{"input": [')
    line = _single_error_line(project.doit())
    assert "as-test.config.json" in line and "fix:" in line


def test_unknown_target_names_the_field_and_the_fix(
    fresh_project: Callable[[str], Project],
) -> None:
    project = fresh_project("passing")
    config = project.root / "as-test.config.json"
    data = json.loads(config.read_text())
    data["modes"]["wasi"]["buildOptions"]["target"] = "wasm32"
    config.write_text(json.dumps(data))
    line = _single_error_line(project.doit("list"))
    assert "as-test.config.json" in line
    assert "target" in line and "fix:" in line
    assert not (project.root / ".as-test" / "build").exists(), "nothing written"


def test_unknown_key_warns_and_the_run_goes_on(fresh_project: Callable[[str], Project]) -> None:
    project = fresh_project("passing")
    config = project.root / "as-test.config.json"
    data = json.loads(config.read_text())
    data["outdir"] = ".as-test/build"
    config.write_text(json.dumps(data))
    listed = project.doit("list")
    assert listed.exit_code == 0
    assert "outdir" in listed.stderr and "outDir" in listed.stderr  # did-you-mean


def test_unknown_mode_is_an_error_listing_the_modes(
    fresh_project: Callable[[str], Project],
) -> None:
    project = fresh_project("passing")
    line = _single_error_line(project.doit("list", env={"ASTEST_MODE": "wasmer"}))
    assert "wasmer" in line and "wasi" in line and "bindings" in line


@OWN_MACHINERY
def test_missing_npm_package_names_the_install_command(
    fresh_project: Callable[[str], Project], tmp_path: Path
) -> None:
    project = fresh_project("passing")
    (project.root / "node_modules").unlink()
    (project.root / "node_modules").mkdir()
    line = _single_error_line(project.doit("list"))
    assert "npm install --save-dev" in line


@OWN_MACHINERY
@pytest.mark.parametrize("command", [[], ["list"], ["--db-file", "state.db"]])
def test_a_corrupt_doit_state_file_is_one_line_and_deleting_it_recovers(
    built_passing: tuple[Project, DoitRun], tmp_path: Path, command: list[str]
) -> None:
    project = clone_project(built_passing[0], tmp_path)
    state = project.root / (command[1] if "--db-file" in command else ".doit.db")
    state.write_bytes(b"not a database, e.g. a merge conflict or a half-copied file\n" * 20)
    line = _single_error_line(project.doit(*command))
    assert f"{state.name} (doit's record" in line and "corrupt" in line
    assert f"rm {state.name}" in line
    assert state.read_bytes().startswith(b"not a database"), "the check never writes"
    state.unlink()
    # One spec is enough to see the state was lost and rebuilt (the whole suite takes 10 builds).
    recovered = project.doit(*command, env={"ASTEST_SPEC": "geometry"})
    assert recovered.exit_code == 0, recovered.stderr
    if command != ["list"]:
        assert recovered.last_line.startswith("tests: ")
        assert ", 0 failed, " in recovered.last_line
        assert "astest:build:wasi:geometry" in recovered.executed, "state lost: built again"


@OWN_MACHINERY
@pytest.mark.parametrize("parallel", [["-n", "2"], ["-n", "2", "-P", "thread"]])
def test_parallel_runs_keep_the_summary_last_and_the_exit_code(
    built_failing: tuple[Project, DoitRun], tmp_path: Path, parallel: list[str]
) -> None:
    project = clone_project(built_failing[0], tmp_path)
    run = project.doit(*parallel, env={"ASTEST_TIMEOUT": "2"})
    assert run.exit_code == 1, run.stdout + run.stderr
    assert run.last_line.startswith("tests: "), run.stdout[-500:]
    assert run.last_line == built_failing[1].last_line
    assert run.stdout.count("\ntests: ") == 1, "the summary must be printed exactly once"


def test_spec_selection_by_name_fragment_and_environment(
    built_passing: tuple[Project, DoitRun], tmp_path: Path
) -> None:
    project = clone_project(built_passing[0], tmp_path)
    run = project.doit("astest", "--spec", "shared")
    assert run.exit_code == 0
    shown = {(e["mode"], e["spec_id"]) for e in project.report()["specs"]}
    assert shown == {(m, s) for m in ("wasi", "bindings") for s in ("left/shared", "right/shared")}
    by_env = project.doit(env={"ASTEST_SPEC": "geometry", "ASTEST_MODE": "wasi"})
    assert by_env.exit_code == 0
    assert [e["spec_id"] for e in project.report()["specs"]] == ["geometry"]
    unknown = project.doit("astest", "--spec", "nothing-like-it")
    assert unknown.exit_code == 3
    assert "no spec of mode" in unknown.stderr


def test_suite_selection_filters_the_report_without_running_anything_again(
    built_passing: tuple[Project, DoitRun], tmp_path: Path, toolchain: Toolchain
) -> None:
    project = clone_project(built_passing[0], tmp_path)
    # From as-test 1.4 a test() block is a suite too, so its path includes its describe parents.
    selector = "geometry/points/distance" if toolchain.is_1_8 else "geometry/distance"
    run = project.doit("astest", "--suite", selector)
    assert run.exit_code == 0
    assert not [t for t in run.executed if t.startswith(("astest:run:", "astest:build:"))]
    specs = project.report()["specs"]
    assert {(e["spec_id"], e["counts"]["tests_passed"]) for e in specs} == {("geometry", 1)}
    assert run.last_line == "tests: 2 passed, 0 failed, 0 skipped"
    nothing = project.doit(env={"ASTEST_SUITE": "no-such-suite"})
    assert nothing.exit_code == 1
    assert 'no suite matched "no-such-suite"' in nothing.stdout


@OWN_MACHINERY
def test_a_node_too_old_fails_each_build_saying_which_and_what_to_install(
    fresh_project: Callable[[str], Project], tmp_path: Path
) -> None:
    project = fresh_project("passing")
    bin_dir = tmp_path / "old-node"
    bin_dir.mkdir()
    (bin_dir / "node").write_text("#!/bin/sh\necho v16.20.0\n")
    (bin_dir / "node").chmod(0o755)
    run = project.doit(env={"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"})
    assert run.exit_code == 1
    assert run.stdout.count("build failed") >= 10
    assert "Node.js v16.20.0 at" in run.stdout and "Node.js 18 or newer" in run.stdout
