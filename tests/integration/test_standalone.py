"""The ``astest`` command in a project without a dodo.py: doit's commands, our tasks."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.conftest import EXECUTED, DoitRun, Project, clone_project, copy_project

# One worker runs the whole module (pytest-xdist's loadgroup): its module-scoped projects are
# built once, not once per worker.
pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("standalone")]


def astest(project: Project, *args: str, env: dict[str, str] | None = None) -> DoitRun:
    from tests.integration.conftest import _doit_environment

    proc = subprocess.run(
        [sys.executable, "-m", "astest_tasks", *args],
        cwd=project.root,
        capture_output=True,
        text=True,
        timeout=600,
        env=_doit_environment(env),
        stdin=subprocess.DEVNULL,
    )
    return DoitRun(proc.returncode, proc.stdout, proc.stderr)


@pytest.fixture(scope="module")
def standalone(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Project, DoitRun]]:
    project = copy_project("passing", tmp_path_factory.mktemp("standalone"))
    (project.root / "dodo.py").unlink()
    yield project, astest(project)


def test_astest_runs_the_specs_with_the_summary_last(standalone: tuple[Project, DoitRun]) -> None:
    project, run = standalone
    assert run.exit_code == 0, run.stdout + run.stderr
    assert run.last_line == "tests: 24 passed, 0 failed, 4 skipped"
    assert (project.root / ".doit.db").is_file(), "doit's state, in the sqlite backend"
    again = astest(project)
    assert [n for n in EXECUTED.findall(again.stdout) if ":run:" in n] == []
    assert "(cached)" in again.stdout


def test_list_info_and_help(standalone: tuple[Project, DoitRun]) -> None:
    project, _ = standalone
    listed = astest(project, "list", "--all").stdout
    assert "astest:run:wasi:geometry" in listed and "astest:summary" in listed
    info = astest(project, "info", "astest:run:wasi:geometry")
    assert info.exit_code == 0 and "up-to-date" in info.stdout and "'kind': 'run'" in info.stdout
    helped = astest(project, "help", "run").stdout
    for option in ("--timeout=ARG", "--shard=ARG", "--mode=ARG", "ASTEST_TIMEOUT"):
        assert option in helped
    assert "astest help" in astest(project, "help").stdout


def test_task_options_are_options_of_the_command(
    standalone: tuple[Project, DoitRun], tmp_path: Path
) -> None:
    # The built project, with one spec's results gone: only bindings runs may run again.
    project = clone_project(standalone[0], tmp_path)
    for mode in ("wasi", "bindings"):
        (project.root / f".as-test/build/{mode}/geometry.result.jsonl").unlink()
    run = astest(project, "--mode=bindings", "-n", "2")
    assert run.exit_code == 0, run.stdout + run.stderr
    ran = EXECUTED.findall(run.stdout)
    assert "astest:run:bindings:geometry" in ran and not any(":wasi:" in n for n in ran)
    assert " wasi " not in run.stdout
    assert run.last_line == "tests: 12 passed, 0 failed, 2 skipped"


def test_task_options_may_stand_anywhere_on_the_line(
    standalone: tuple[Project, DoitRun], tmp_path: Path
) -> None:
    project = clone_project(standalone[0], tmp_path)
    listed = astest(project, "--mode=bindings", "list", "--all")
    assert listed.exit_code == 0, listed.stdout + listed.stderr
    assert "astest:run:bindings:geometry" in listed.stdout
    assert "astest:run:wasi:geometry" not in listed.stdout
    summary = astest(project, "astest:summary", "--mode", "bindings")
    assert summary.exit_code == 0, summary.stdout + summary.stderr
    assert summary.last_line == "tests: 12 passed, 0 failed, 2 skipped"
    forgotten = astest(project, "forget", "astest:run:bindings:geometry", "--mode", "bindings")
    assert forgotten.stdout.strip() == "forgetting astest:run:bindings:geometry", forgotten.stderr


def test_clean_then_a_run_builds_again(standalone: tuple[Project, DoitRun], tmp_path: Path) -> None:
    project = clone_project(standalone[0], tmp_path)
    assert list((project.root / ".as-test/build").rglob("*.wasm"))
    cleaned = astest(project, "clean")
    assert cleaned.exit_code == 0, cleaned.stderr
    assert not list((project.root / ".as-test/build").rglob("*.wasm"))
    assert (project.root / ".as-test/runners/default.wasi.py").is_file()
    rebuilt = astest(project)
    assert any(":build:" in n for n in EXECUTED.findall(rebuilt.stdout))


def test_a_bad_option_is_one_error_line(standalone: tuple[Project, DoitRun]) -> None:
    run = astest(standalone[0], "--shard=5/2")
    assert run.exit_code == 3 and run.stderr.startswith("ERROR: --shard '5/2'"), run.stderr
    assert "Traceback" not in run.stderr


def test_hints_and_repro_lines_name_the_astest_command(tmp_path: Path) -> None:
    project = copy_project("fuzz", tmp_path)
    (project.root / "dodo.py").unlink()
    run = astest(project, "astest:fuzz", env={"ASTEST_FUZZ_SEED": "790229808"})
    assert run.exit_code == 1, run.stdout + run.stderr
    assert "ASTEST_FUZZ_RUNS=1 astest astest:fuzz:default:buggy" in run.stdout
    assert " doit " not in run.stdout
    record = (project.root / ".as-test/crashes/default/crashing.fuzz.default.log").read_text()
    assert "repro: ASTEST_FUZZ_SEED=790229808 astest astest:fuzz:default:crashing" in record


def test_the_missing_snapshot_hint_names_the_astest_command_both_ways(tmp_path: Path) -> None:
    project = copy_project("passing", tmp_path)
    (project.root / "dodo.py").unlink()
    (project.root / ".as-test/snapshots/snap.spec.snap").unlink()
    run = astest(project, "--spec", "snap", "--mode", "wasi")
    assert run.exit_code == 1, run.stdout + run.stderr
    assert (
        "create it with `astest --update-snapshots=create` "
        "(or ASTEST_UPDATE_SNAPSHOTS=create astest)" in run.stdout
    )
    assert " doit" not in run.stdout
