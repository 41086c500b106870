"""CommandLine: the doit words of this process, read in one place and given by watch mode."""

from __future__ import annotations

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


def test_what_doit_decided_is_handed_in_beside_the_words() -> None:
    line = CommandLine("doit", ("astest",))
    assert not line.settles_builds_first, "unknown: the run keeps its own check of its build"
    settled = line.settling_builds(True)
    assert settled == CommandLine("doit", ("astest",), settles_builds_first=True)
    assert settled.settling_builds(False) == line
