"""The astest command: doit's command line with the project's tasks loaded, options anywhere."""

from __future__ import annotations

from pathlib import Path

import pytest

from astest_tasks.commands.standalone import run_doit
from tests.conftest import ProjectBuilder


def listed(capsys: pytest.CaptureFixture[str], *arguments: str) -> list[str]:
    """The task names ``astest list --all`` prints for ``arguments``."""
    assert run_doit(["list", "--all", *arguments]) == 0
    return [line.split()[0] for line in capsys.readouterr().out.splitlines() if line.strip()]


def test_list_shows_the_projects_tasks_under_the_astest_name(
    tmp_project: ProjectBuilder, capsys: pytest.CaptureFixture[str]
) -> None:
    tmp_project()
    names = listed(capsys)
    assert {
        "astest",
        "astest:build:wasi:geometry",
        "astest:run:wasi:geometry",
        "astest:build:bindings:counter",
        "astest:run:bindings:counter",
        "astest:summary",
    } <= set(names)
    assert len([n for n in names if n.startswith("astest:run:")]) == 4


@pytest.mark.parametrize(
    "arguments",
    [
        ["list", "--all", "--mode", "wasi", "--spec", "geometry"],
        ["--mode", "wasi", "list", "--all", "--spec=geometry"],  # before the command too
        ["-m", "wasi", "list", "--spec", "geometry", "--all"],
        # -c is as-test's --config here, though doit's run reads -c as --continue
        ["-c", "as-test.config.json", "-m", "wasi", "list", "--spec", "geometry", "--all"],
    ],
)
def test_task_options_may_stand_anywhere_on_the_line(
    tmp_project: ProjectBuilder, capsys: pytest.CaptureFixture[str], arguments: list[str]
) -> None:
    tmp_project()
    assert run_doit(arguments) == 0
    names = [line.split()[0] for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert sorted(n for n in names if ":run:" in n or ":build:" in n) == [
        "astest:build:wasi:geometry",
        "astest:run:wasi:geometry",
    ]


def test_info_describes_a_run_task_and_why_it_would_run(
    tmp_project: ProjectBuilder, capsys: pytest.CaptureFixture[str]
) -> None:
    tmp_project()
    # doit's info exits 1 for a task that would run, after saying why.
    assert run_doit(["info", "astest:run:wasi:counter"]) == 1
    out = capsys.readouterr().out
    assert "run assembly/__tests__/counter.spec.ts in mode wasi" in out
    assert "its build has not run yet" in out
    assert " - .as-test/build/wasi/counter.build.json" in out  # it waits for its build


def test_a_folder_without_a_project_is_one_error_line_with_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert run_doit(["list"]) == 3
    error = capsys.readouterr().err
    assert error.startswith(f"ERROR: no as-test project in {tmp_path}: ")
    assert "fix: cd into the project, or start one with `astest init`" in error
    assert list(tmp_path.iterdir()) == [], "nothing is written where there is no project"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--mode", "web"], 'mode: unknown mode "web" (did you mean "wasi"?); fix: '),
        (["--spec", "nothing"], "no spec of mode 'wasi' matches --spec nothing; "),
    ],
)
def test_a_selection_of_nothing_stops_before_any_task_with_one_line(
    tmp_project: ProjectBuilder,
    capsys: pytest.CaptureFixture[str],
    arguments: list[str],
    message: str,
) -> None:
    tmp_project()
    assert run_doit(["list", *arguments]) == 3
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("ERROR: ") and message in line and "fix: " in line


def test_a_state_file_error_is_one_inert_line(
    tmp_project: ProjectBuilder, capsys: pytest.CaptureFixture[str]
) -> None:
    # doit prints the loader's error as it is: the file's name comes from the command line.
    root = tmp_project()
    name = "state\n::error::x\x1b]0;t\x07.db"
    (root / name).write_bytes(b"not a database, not JSON")
    assert run_doit(["list", "--db-file", name]) == 3
    printed = capsys.readouterr().err
    assert "ERROR: state\\n::error::x\\x1b]0;t\\x07.db (doit's record of which tasks" in printed
    assert "\x1b" not in printed and "\x07" not in printed and "\n::error::" not in printed
