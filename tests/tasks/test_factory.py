"""make_astest_tasks: names, pinned options and the errors a dodo.py author can make."""

from __future__ import annotations

import inspect
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from doit.cmd_base import ModuleTaskLoader
from doit.doit_cmd import DoitMain
from doit.exceptions import InvalidDodoFile, InvalidTask
from doit.globals import Globals
from doit.loader import _get_task_creators

from astest_tasks.config.pipeline import Pipeline
from astest_tasks.config.shards import Shard
from astest_tasks.model.snapshot_update import SnapshotUpdate
from astest_tasks.plan.command_line import CommandLine
from astest_tasks.plan.options import TaskOptions
from astest_tasks.tasks import factory
from astest_tasks.tasks.checks import BuildUpToDate
from astest_tasks.tasks.factory import make_astest_tasks
from tests.conftest import ProjectBuilder
from tests.output.github_commands import runner_commands

# What a terminal acts on (guest_text.py): C0 but tab and line feed, DEL and C1; and line breaks.
TERMINAL_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]")


def test_doit_finds_the_creator_under_its_basename_whatever_the_variable() -> None:
    creator = make_astest_tasks(basename="unit")
    found = _get_task_creators({"some_variable": creator}, ())
    assert [(name, ref) for name, ref, _ in found] == [("unit", creator.create_doit_tasks)]
    assert creator.create_doit_tasks._task_creator_params  # doit's @task_params


def test_the_group_doc_is_the_creators_and_doit_reads_its_source_without_a_string_pattern() -> None:
    creator = make_astest_tasks(basename="unit")
    assert inspect.getdoc(creator.create_doit_tasks) == factory.CREATOR_DOC
    # doit reads the creator's source lines on every call; a triple-quoted string there has
    # tokenize compile a pattern of its own (issue 40).
    lines, _ = inspect.getsourcelines(creator.create_doit_tasks)
    assert not any('"""' in line or "'''" in line for line in lines)


def test_pinned_values_become_defaults_without_environment_variables() -> None:
    creator = make_astest_tasks(config_path="web.json", modes=["web", "wasi"], specs=["math"])
    options = {option["name"]: option for option in creator.options}
    assert options["config"]["default"] == "web.json" and "env_var" not in options["config"]
    assert options["mode"]["default"] == "web,wasi" and "env_var" not in options["mode"]
    assert options["spec"]["default"] == "math"
    assert options["timeout"]["env_var"] == "ASTEST_TIMEOUT", "unpinned ones keep theirs"
    default = {o["name"]: o for o in make_astest_tasks().options}
    assert default["config"]["env_var"] == "ASTEST_CONFIG"


def test_a_dodo_may_pin_the_remote_cache_and_its_mode() -> None:
    creator = make_astest_tasks(
        remote_cache="http://cache.example/astest", remote_cache_mode="read"
    )
    options = {option["name"]: option for option in creator.options}
    assert options["remote_cache"]["default"] == "http://cache.example/astest"
    assert options["remote_cache_mode"]["default"] == "read"
    assert (
        "env_var" not in options["remote_cache"] and "env_var" not in options["remote_cache_mode"]
    )
    default = {o["name"]: o for o in make_astest_tasks().options}
    assert default["remote_cache"]["env_var"] == "ASTEST_REMOTE_CACHE"
    assert default["remote_cache_mode"]["default"] == "read-write"


@pytest.mark.parametrize("basename", ["", "a:b", "has space"])
def test_a_bad_basename_is_refused_with_the_fix(basename: str) -> None:
    with pytest.raises(InvalidDodoFile, match="basename"):
        make_astest_tasks(basename=basename)


@pytest.mark.parametrize(
    "argv",
    [
        ["/usr/bin/doit", "astest", "--changed"],
        ["/venv/lib/python3.11/site-packages/doit/__main__.py", "--changed"],
    ],
)
def test_a_bare_changed_at_the_end_of_doits_line_is_refused_with_the_fix(
    argv: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """doit's getopt parser would stop with an error listing every option instead."""
    monkeypatch.setattr(sys, "argv", argv)
    with pytest.raises(InvalidDodoFile, match=r"no REF .*; fix: `doit astest --changed=HEAD`"):
        make_astest_tasks()


@pytest.mark.parametrize(
    "argv",
    [
        ["/usr/bin/doit", "astest", "--changed=HEAD"],
        ["/usr/bin/doit", "astest", "--changed", "origin/main"],
        ["/venv/bin/astest", "--changed"],  # the astest command completes it to HEAD itself
    ],
)
def test_a_changed_with_its_ref_is_accepted(
    argv: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "argv", argv)
    assert make_astest_tasks().basename == "astest"


@pytest.mark.parametrize("option", [["-m", "wasi"], ["--mode", "wasi"], ["-e", "simd"]])
def test_an_option_after_a_task_name_is_refused_short_or_long(
    monkeypatch: pytest.MonkeyPatch, option: list[str]
) -> None:
    # doit parses and drops it there: the run would silently use the defaults.
    monkeypatch.setattr(sys, "argv", ["doit", "astest:summary", *option])
    with pytest.raises(InvalidTask, match=rf"^{option[0]} \S+ after astest:summary is not read"):
        list(make_astest_tasks()())


def test_the_shorthands_are_as_test_18s() -> None:
    shorts = {o["name"]: o.get("short") for o in make_astest_tasks().options if o.get("short")}
    # -c is also doit's (run --continue): after the task name (`doit astest -c ci.json`) doit
    # reads it as the task's, and the astest command moves it there as --config. -t is jest's
    # test-name filter, which as-test 1.8 lacks (its only other shorts: -h -p -v -w -y).
    assert shorts == {"mode": "m", "enable": "e", "config": "c", "test_name_pattern": "t"}


def test_the_creator_reads_the_options_once_and_passes_the_record_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    received: list[tuple[TaskOptions, Pipeline, CommandLine]] = []

    def create_tasks(
        root: Path, options: TaskOptions, pipeline: Pipeline, command_line: CommandLine
    ) -> Iterator[Any]:
        received.append((options, pipeline, command_line))
        yield {"name": "summary", "actions": []}

    monkeypatch.setattr(factory, "create_tasks", create_tasks)
    monkeypatch.setattr(sys, "argv", ["doit", "unit"])
    creator = make_astest_tasks(basename="unit", modes=["wasi"], config_path="web.json")
    defaults = {option["name"]: option["default"] for option in creator.options}
    assert list(
        creator(**{**defaults, "timeout": 30, "shard": "1/2", "update_snapshots": "create"})
    )
    (options, pipeline, command_line), *_ = received
    assert command_line == CommandLine("doit", ("unit",)), "the process's words, read once"
    selection = options.selection
    assert selection.mode == ("wasi",) and selection.config == "web.json", "the pinned values"
    assert options.limits.timeout == "30"
    assert options.run_switches.update_snapshots is SnapshotUpdate.CREATE
    assert pipeline.basename == "unit" and pipeline.shard == Shard(1, 2)


def test_a_bad_option_is_one_error_line_for_doit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["doit", "astest"])
    creator = make_astest_tasks()
    defaults = {option["name"]: option["default"] for option in creator.options}
    with pytest.raises(InvalidTask, match=r"^--coverage / ASTEST_COVERAGE: 'sometimes' is not"):
        list(creator(**{**defaults, "coverage": "sometimes"}))


@pytest.mark.parametrize(("argv", "wrapped"), [(["doit"], True), (["doit", "list"], False)])
def test_a_call_that_runs_tasks_has_doits_state_save_fail_as_one_line(
    monkeypatch: pytest.MonkeyPatch, argv: list[str], wrapped: bool
) -> None:
    class Manager:  # doit's Dependency, as registered before it loads the tasks
        name = ".doit.db"

        def close(self) -> None:
            raise OSError(28, "No space left on device")

    manager = Manager()
    monkeypatch.setattr(factory, "create_tasks", lambda *_: iter([{"name": "summary"}]))
    monkeypatch.setattr(sys, "argv", argv)
    monkeypatch.setattr(Globals, "dep_manager", Manager())  # an earlier call's, in-process
    creator = make_astest_tasks()
    # doit registers this call's manager after importing the dodo, before it loads the tasks
    monkeypatch.setattr(Globals, "dep_manager", manager)
    defaults = {option["name"]: option["default"] for option in creator.options}
    assert list(creator(**defaults))
    with pytest.raises(InvalidTask if wrapped else OSError, match=r"is full|No space"):
        manager.close()


def test_a_config_error_doit_prints_is_inert_for_the_terminal_and_the_runner(
    tmp_project: ProjectBuilder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """doit prints the message as it is; the config, which a pull request writes, is in it."""
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    tmp_project({"modes": {"m": "./x\n::error::pwn\x1b]0;t\x07\u2028##[error]y.json"}})
    creator = make_astest_tasks()
    defaults = {option["name"]: option["default"] for option in creator.options}

    with pytest.raises(InvalidTask) as caught:
        list(creator(**defaults))
    message = str(caught.value)

    assert message.startswith("as-test.config.json: $.modes.m: mode config file not found: x")
    assert runner_commands(message) == []
    assert not TERMINAL_CONTROL.search(message)
    assert "\\x1b]0;t\\x07" in message, "shown, not acted on"


def test_a_state_file_error_names_the_file_inert_as_every_line_doit_prints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The dodo-import route of a UserError, as the task-making route: doit prints it as it is.
    monkeypatch.chdir(tmp_path)
    Path("state\n::error::x\x1b]0;t\x07.db").write_bytes(b"not a database, not JSON")
    monkeypatch.setattr(sys, "argv", ["doit", "--db-file", "state\n::error::x\x1b]0;t\x07.db"])
    with pytest.raises(InvalidDodoFile) as error:
        make_astest_tasks()
    message = str(error.value)
    assert message.startswith("state\\n::error::x\\x1b]0;t\\x07.db (doit's record of which tasks")
    assert "\n" not in message and "\x1b" not in message and "\x07" not in message


@pytest.mark.parametrize(
    ("words", "run_checks_build"),
    [
        (["probe"], False),  # doit's run settles the build first
        (["-s", "probe"], True),  # --single: no build runs first
        (["--sing", "probe"], True),  # as doit's getopt reads it
    ],
)
def test_a_run_leaves_its_builds_check_to_doit_only_where_doit_settles_builds_first(
    tmp_project: ProjectBuilder,
    monkeypatch: pytest.MonkeyPatch,
    words: list[str],
    run_checks_build: bool,
) -> None:
    tmp_project()
    creator = make_astest_tasks()
    defaults = {option["name"]: option["default"] for option in creator.options}
    checks: list[list[object]] = []

    def task_probe() -> dict[str, object]:  # our tasks, made by the real doit's loader
        tasks = list(creator(**defaults))  # to the end: the call's clean-ups run, as in doit
        checks.append(next(t["uptodate"] for t in tasks if t["name"] == "run:wasi:counter"))
        return {"actions": None}

    monkeypatch.setattr(Globals, "dep_manager", None)  # doit sets its own, as in a doit call
    assert (
        DoitMain(ModuleTaskLoader({"task_probe": task_probe}), config_filenames=()).run(words) == 0
    )
    assert len(checks) == 1
    assert any(isinstance(check, BuildUpToDate) for check in checks[0]) is run_checks_build
