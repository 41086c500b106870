"""CommandLine: the doit words of this process, read in one place and given by watch mode."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from astest_tasks.plan.command_line import CommandLine, command_line_given, current_command_line

PACKAGE = Path(__file__).resolve().parents[2] / "astest_tasks"
# The only readers of the process's argv: the astest entry point, and the one door here.
ARGV_READERS = {"cli.py", "plan/command_line.py"}


def test_the_process_words_are_read_when_none_are_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["/usr/bin/doit", "list", "--all"])
    line = current_command_line()
    assert line == CommandLine("/usr/bin/doit", ("list", "--all"))
    assert line.command == "list" and line.reads_only and not line.runs_tasks
    assert line.run_by_doit


def test_given_words_win_inside_the_block_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["astest", "--watch", "--mode", "wasi"])
    with command_line_given("astest", ["-n", "2", "astest"]):
        given = current_command_line()
        assert given.arguments == ("-n", "2", "astest") and given.runs_tasks
        assert not given.run_by_doit and not given.reads_only
    assert current_command_line().arguments == ("--watch", "--mode", "wasi")


@pytest.mark.parametrize(
    ("arguments", "asked"),
    [
        ((), False),
        (("astest:fuzz",), True),
        (("astest:fuzz:wasi:math",), True),
        (("astest:fuzz*",), True),
        (("astest",), False),
        (("list",), True),  # listing commands show every task
    ],
)
def test_a_group_is_asked_for_by_name_or_by_listing(
    arguments: tuple[str, ...], asked: bool
) -> None:
    line = CommandLine("doit", arguments)
    assert line.asks_for("astest:fuzz", "astest:fuzz:summary") is asked


def test_no_module_below_the_entry_points_reads_sys_argv() -> None:
    readers = sorted(
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if "sys.argv" in path.read_text(encoding="utf-8")
    )
    assert set(readers) <= ARGV_READERS, f"read the command line through CommandLine: {readers}"


@pytest.mark.parametrize(
    ("program", "settles_builds"),
    [
        ("doit", True),
        ("/project/.venv/bin/doit", True),
        ("/usr/lib/python3/site-packages/doit/__main__.py", True),  # python -m doit
        ("astest", True),  # the astest command's own words (command_line_given)
        ("tools/run_pipeline.py", False),  # DoitMain().run(words of its own): sys.argv is not them
    ],
)
def test_only_doits_or_astests_own_words_let_a_run_leave_out_its_builds_check(
    program: str, settles_builds: bool, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    line = CommandLine(program, ("astest",), start_folder=os.getcwd())  # doit is where it began
    assert line.checks_builds_first is settles_builds
    assert not CommandLine(program, ("-s", "astest"), start_folder=os.getcwd()).checks_builds_first


@pytest.mark.parametrize(
    ("program", "start_folder", "settles_builds"),
    [
        ("doit", "..", False),  # its dodo loader moved: doit read its config files elsewhere
        ("doit", None, False),  # not known
        ("doit", ".", True),
        ("astest", None, True),  # the astest command never moves
    ],
)
def test_the_builds_check_is_left_out_only_where_doit_read_its_config_files(
    program: str,
    start_folder: str | None,
    settles_builds: bool,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    (tmp_path / "project").mkdir()
    monkeypatch.chdir(tmp_path / "project")
    folder = None if start_folder is None else os.path.realpath(start_folder)
    line = CommandLine(program, ("astest",)).started_in(folder)
    assert line.start_folder == folder and line.arguments == ("astest",)
    assert line.checks_builds_first is settles_builds
