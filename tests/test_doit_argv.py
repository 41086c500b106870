"""Reading doit's command line before doit does."""

from __future__ import annotations

import pytest

from astest_tasks.doit_argv import doit_command, names_tasks_under


@pytest.mark.parametrize(
    ("argv", "command"),
    [
        ([], "run"),
        (["-n", "2"], "run"),
        (["astest:fuzz"], "run"),
        (["list", "--all"], "list"),
        (["clean", "--db-file", "x", "astest"], "clean"),
        (["--db-file", "x", "clean"], "run"),  # doit itself reads the command first
        (["astest", "--spec", "info"], "run"),  # a spec named "info" is not the command
        (["verbose=1", "list"], "list"),  # doit drops its variables first
    ],
)
def test_the_command(argv: list[str], command: str) -> None:
    assert doit_command(argv) == command


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["astest:fuzz"], True),
        (["-n", "2", "astest:fuzz:wasi:math"], True),
        (["astest:*"], True),
        (["astest:fuzz:*"], True),
        ([], False),
        (["astest"], False),
        (["astest:run:*"], False),
        (["astest:fuzzy"], False),
    ],
)
def test_whether_a_group_is_named(argv: list[str], named: bool) -> None:
    assert names_tasks_under(argv, "astest:fuzz", "astest:fuzz:summary") is named
