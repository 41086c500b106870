"""Reading doit's command line before doit does."""

from __future__ import annotations

import sys
import types

import pytest
from doit.cmd_base import DodoTaskLoader
from doit.cmdparse import CmdOption, CmdParse, CmdParseError

from astest_tasks.plan.doit_argv import (
    DOIT_COMMANDS,
    dodo_config,
    doit_command,
    forks_worker_processes,
    names_tasks_under,
    option_value,
    runs_in_worker_processes,
    task_options_first,
)


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
        # doit reads its loader options (-f, -d, -k) before the command word
        (["-f", "build.py", "clean"], "clean"),
        (["--file=build.py", "-k", "forget", "astest"], "forget"),
        (["-d", ".", "-fbuild.py", "verbose=1", "list"], "list"),
        (["-f", "build.py", "astest"], "run"),
        (["-f", "build.py"], "run"),
        (["-f"], "run"),
        (["-n", "2", "-f", "build.py", "list"], "run"),  # doit's parse of them fails there
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


@pytest.mark.parametrize(
    ("argv", "ordered"),
    [
        (["--timeout", "30"], ["--timeout", "30"]),
        (["astest:summary", "--timeout", "30"], ["--timeout", "30", "astest:summary"]),
        (["--mode", "wasi", "list", "--all"], ["list", "--mode", "wasi", "--all"]),
        (["forget", "astest", "--mode=wasi"], ["forget", "--mode=wasi", "astest"]),
        (["-n", "2", "run", "--fuzz"], ["--fuzz", "-n", "2", "run"]),  # "run" is a task here
        (["v=1", "info", "t", "--spec", "info"], ["v=1", "info", "--spec", "info", "t"]),
        (["--spec", "list"], ["--spec", "list"]),  # a spec named "list" is not the command
        (["astest", "--mode"], ["--mode", "astest"]),  # doit then says the value is missing
        # Short forms move as their long form: the letter may be one of doit's own too.
        (["list", "-m", "wasi", "--all"], ["list", "--mode", "wasi", "--all"]),
        (["astest:summary", "-m", "wasi"], ["--mode", "wasi", "astest:summary"]),
        (["info", "t", "-mwasi"], ["info", "--mode=wasi", "t"]),
        (["-n", "2", "-e", "simd"], ["--enable", "simd", "-n", "2"]),
        (["-c", "ci.json", "--continue"], ["--config", "ci.json", "--continue"]),
    ],
)
def test_task_options_move_to_where_the_command_reads_them(
    argv: list[str], ordered: list[str]
) -> None:
    options = [
        {"long": "timeout", "type": str},
        {"long": "mode", "short": "m", "type": str},
        {"long": "spec", "type": str},
        {"long": "fuzz", "type": bool},
        {"long": "enable", "short": "e", "type": str},
        {"long": "config", "short": "c", "type": str},
    ]
    assert task_options_first(argv, options) == ordered


@pytest.mark.parametrize(
    ("argv", "ordered"),
    [
        (["--changed"], ["--changed=HEAD"]),
        (["--changed", "list"], ["list", "--changed=HEAD"]),  # the next word is not its value
        (["--changed", "astest:summary"], ["--changed=HEAD", "astest:summary"]),
        (["--changed=origin/main", "list"], ["list", "--changed=origin/main"]),
        (["--changed", "--mode", "wasi"], ["--changed=HEAD", "--mode", "wasi"]),
    ],
)
def test_a_bare_option_of_the_astest_command_takes_its_default_value(
    argv: list[str], ordered: list[str]
) -> None:
    options = [{"long": "changed", "type": str}, {"long": "mode", "type": str}]
    assert task_options_first(argv, options, {"changed": "HEAD"}) == ordered


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--show-coverage"], ["--show-coverage=on"]),
        (["--show-coverage", "all", "-n", "2"], ["--show-coverage=all", "-n", "2"]),
        (["--show-coverage=all", "list"], ["list", "--show-coverage=all"]),
        (["--show-coverage", "astest:summary"], ["--show-coverage=on", "astest:summary"]),
    ],
)
def test_a_bare_optional_value_option_takes_its_implied_value(
    argv: list[str], expected: list[str]
) -> None:
    options = [{"long": "show-coverage", "type": str}]
    assert (
        task_options_first(argv, options, {"show-coverage": "on"}, {"show-coverage": ["all"]})
        == expected
    )


@pytest.mark.parametrize(
    ("arguments", "in_workers"),
    [
        ([], False),
        (["-n", "2"], True),
        (["-n2"], True),
        (["--process=2"], True),
        (["--process", "0"], False),
        (["-n", "2", "-P", "thread"], False),
        (["-n", "2", "--parallel-type=thread"], False),
        (["-n", "2", "-P", "process"], True),
        (["--verbosity", "2", "astest"], False),
    ],
)
def test_compiles_ahead_are_off_when_doit_runs_tasks_in_worker_processes(
    arguments: list[str], in_workers: bool
) -> None:
    assert runs_in_worker_processes(arguments) is in_workers


def imported_dodo(monkeypatch: pytest.MonkeyPatch, config: dict[str, object]) -> None:
    """A dodo.py doit has imported, whose DOIT_CONFIG is ``config``."""
    dodo = types.ModuleType("dodo")
    dodo.DOIT_CONFIG = config  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "dodo", dodo)


@pytest.mark.parametrize(
    ("arguments", "config", "forks"),
    [
        ([], {}, False),
        (["-n", "2"], {}, True),
        ([], {"num_process": 2}, True),  # the dodo's DOIT_CONFIG
        ([], {"num_process": 2, "par_type": "thread"}, False),
        (["-n", "0"], {"num_process": 2}, False),  # the command line wins
        (["-P", "thread"], {"num_process": 2}, False),
        (["list", "-n", "2"], {}, False),  # only a run runs tasks
        (["clean"], {"num_process": 2}, False),
    ],
)
def test_whether_doit_forks_worker_processes_reads_the_dodos_config_too(
    arguments: list[str],
    config: dict[str, object],
    forks: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    imported_dodo(monkeypatch, config)
    assert forks_worker_processes(arguments) is forks


# The words doit's loader parse and command choice see, against doit's own code for them.
@pytest.mark.parametrize(
    "words",
    [
        ["--fi", "build.py", "clean"],
        ["--f=build.py", "list"],
        ["-kfbuild.py", "info", "x"],
        ["--se", "forget"],
        ["--di", ".", "--", "list"],
        ["--", "clean"],
        ["-d", "."],
        ["--dir"],
        ["-n", "2", "list"],
        ["v=1", "-f", "build.py", "list"],
        ["-f", "build.py", "v=1", "dumpdb"],
    ],
)
def test_the_command_is_the_one_doit_reads(words: list[str]) -> None:
    assert doit_command(words) == doits_own_command(words)


def doits_own_command(words: list[str]) -> str:
    """DoitMain.run's choice: its dodo loader's options parsed first (when they parse), then
    its name=value variables dropped, then the first word if it names a command."""
    parser = CmdParse([CmdOption(option) for option in DodoTaskLoader.cmd_options])
    try:
        _, rest = parser.parse_only(words)
    except CmdParseError:
        rest = words
    left = [word for word in rest if word.startswith("-") or "=" not in word]
    return left[0] if left and left[0] in DOIT_COMMANDS else "run"


# Each expected value is what doit's own parser (doit.cmdparse.CmdParse) gives the same words.
@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ([], None),
        (["--db-file", "a.db"], "a.db"),
        (["--db-file=a.db"], "a.db"),
        (["--db-file", "a.db", "--db-file", "b.db"], "b.db"),  # the last wins, as in doit
        (["--db-file=a.db", "--db-file", "b.db"], "b.db"),
        (["--db-file", "b.db", "--db-file=a.db"], "a.db"),
        (["--db-file", "--backend"], "--backend"),  # a value, not an option
        (["-n", "2", "--db-file", "x.db"], "x.db"),
        (["run", "--db-file"], None),  # doit refuses the option without its value
    ],
)
def test_an_options_value_is_the_one_doits_parser_keeps(
    arguments: list[str], expected: str | None
) -> None:
    assert option_value(arguments, "--db-file") == expected


@pytest.mark.parametrize(
    ("arguments", "module"),
    [
        ([], "dodo"),
        (["-f", "first.py", "-f", "second.py", "list"], "second"),
        (["-fsecond.py", "list"], "second"),
        (["--file=first.py", "-f", "second.py"], "second"),
        (["-k", "--file", "second.py"], "second"),
    ],
)
def test_the_dodos_config_is_read_from_the_dodo_doit_imports(
    arguments: list[str], module: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("dodo", "first", "second"):
        imported = types.ModuleType(name)
        imported.DOIT_CONFIG = {"dep_file": f"{name}.db"}  # type: ignore[attr-defined]
        monkeypatch.setitem(sys.modules, name, imported)
    assert dodo_config(arguments) == {"dep_file": f"{module}.db"}
