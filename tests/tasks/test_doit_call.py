"""doit_call: what the doit command loading our tasks decided, read from doit itself."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from doit.cmd_base import ModuleTaskLoader
from doit.cmd_run import Run
from doit.doit_cmd import DoitMain

from astest_tasks.tasks.doit_call import doit_settles_dependencies_first


def decided(
    words: list[str],
    dodo_config: Mapping[str, object] | None = None,
    main: type[DoitMain] = DoitMain,
    config_files: tuple[str, ...] = (),
) -> list[bool]:
    """What a task creator learns in a real doit call with ``words``."""
    seen: list[bool] = []

    def task_probe() -> dict[str, Any]:
        seen.append(doit_settles_dependencies_first())
        return {"actions": None}

    namespace = {"task_probe": task_probe, "DOIT_CONFIG": dict(dodo_config or {})}
    # The exit code is the command's own (info says 1 for a task that would run); the probe's
    # one answer shows that doit got as far as loading the tasks.
    main(ModuleTaskLoader(namespace), config_filenames=config_files).run(words)
    return seen


@pytest.fixture(autouse=True)
def _in_a_scratch_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # doit's state file goes here


@pytest.mark.parametrize(
    ("words", "settles_first"),
    [
        ([], True),  # a plain `doit`: a run
        (["probe"], True),
        (["run", "probe"], True),
        (["-P", "thread", "probe"], True),  # threads: the dispatcher orders them too
        (["-s", "probe"], False),  # --single: no dependencies run
        (["--sing", "probe"], False),  # doit's getopt takes a prefix
        (["-as", "probe"], False),  # and a cluster
        (["list"], False),  # nothing runs
        (["info", "probe"], False),
        (["ignore", "probe"], False),
    ],
)
def test_only_doits_run_without_single_settles_dependencies_first(
    words: list[str], settles_first: bool
) -> None:
    assert decided(words) == [settles_first]


def test_single_in_the_dodos_config_counts() -> None:
    assert decided(["probe"], {"single": True}) == [False]


def test_single_in_doits_config_file_counts(tmp_path: Path) -> None:
    (tmp_path / "doit.cfg").write_text("[run]\nsingle = True\n")
    assert decided(["probe"], config_files=("doit.cfg",)) == [False]
    (tmp_path / "pyproject.toml").write_text("[tool.doit.commands.run]\nsingle = true\n")
    assert decided(["probe"], config_files=("pyproject.toml",)) == [False]


class _OwnRun(Run):  # type: ignore[misc]  # doit is untyped
    """A plugin command that runs tasks in a way of its own."""

    name = "go"

    def _execute(self, outfile: Any) -> int:
        return 0


class _LikeRun(Run):  # type: ignore[misc]
    """A plugin command that runs tasks as doit's run does."""

    name = "go"


@pytest.mark.parametrize(("command", "settles_first"), [(_OwnRun, False), (_LikeRun, True)])
def test_a_plugin_command_settles_them_only_if_it_runs_as_doits_run(
    command: type[Run], settles_first: bool
) -> None:
    class WithPlugin(DoitMain):  # type: ignore[misc]
        DOIT_CMDS = (*DoitMain.DOIT_CMDS, command)

    assert decided(["go", "probe"], main=WithPlugin) == [settles_first]


def test_outside_a_doit_command_the_answer_is_no() -> None:
    assert doit_settles_dependencies_first() is False
