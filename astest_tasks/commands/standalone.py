"""``astest`` for projects without a dodo.py: doit's own command line, with our tasks loaded.

It is doit's ``DoitMain`` with a task loader that yields the ``astest`` task creator for the
project in the current folder, so every doit command works as in a dodo.py project
(``astest``, ``astest list``, ``astest info astest:run:wasi:math``, ``astest -n 2``,
``astest clean``, ``astest forget``), with the sqlite backend and the summary as the default.
The task options (``--timeout``, ``--mode``, …) are options of the commands that load tasks, and
may stand anywhere on the line (``astest --mode wasi list``, ``astest astest:summary --mode
wasi``): they are moved to where doit reads them. ``astest help run`` lists them.
A dodo.py in the folder is not read: ``doit`` runs that.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from doit import loader
from doit.cmd_base import TaskLoader2
from doit.cmd_clean import Clean
from doit.cmd_forget import Forget
from doit.cmd_ignore import Ignore
from doit.cmd_info import Info
from doit.cmd_list import List
from doit.cmd_resetdep import ResetDep
from doit.cmd_run import Run
from doit.cmd_strace import Strace
from doit.doit_cmd import DoitMain
from doit.exceptions import InvalidDodoFile

from astest_tasks.config.pipeline import BASENAME
from astest_tasks.core.errors import UserError
from astest_tasks.core.guest_text import doit_line
from astest_tasks.plan.command_line import command_line_given
from astest_tasks.plan.doit_argv import task_options_first
from astest_tasks.plan.options import (
    BARE_FOLLOWERS,
    BARE_VALUES,
    OPTION_NAMES,
    TASK_PARAMS,
    option_defaults,
)
from astest_tasks.plan.selection_options import DEFAULT_CONFIG
from astest_tasks.plan.state_file import DEFAULT_STATE_FILE, check_state_file
from astest_tasks.tasks.factory import make_astest_tasks

DOIT_CONFIG = {"backend": "sqlite3", "default_tasks": [BASENAME], "verbosity": 1}


class AstestLoader(TaskLoader2):  # type: ignore[misc]  # doit is untyped
    """Loads the ``astest`` tasks of the project in the current folder."""

    def __init__(self) -> None:
        super().__init__()
        self._options: dict[str, Any] = {}

    def setup(self, opt_values: dict[str, Any]) -> None:
        # The commands that carry our options hand them over here; they reach the creator as
        # doit's "task options given through the API".
        self._options = {k: v for k, v in opt_values.items() if k in OPTION_NAMES}
        config = Path(self.config_path)
        if not config.exists() and not Path("assembly").is_dir():
            raise InvalidDodoFile(
                f"no as-test project in {Path.cwd()}: astest runs the project in the current "
                f"folder, and there is no {config} and no assembly/ here; fix: cd into the "
                "project, or start one with `astest init`"
            )
        try:
            # doit has parsed these options, config files included: the file doit opens.
            check_state_file(
                Path(str(opt_values.get("dep_file") or DEFAULT_STATE_FILE)),
                str(opt_values.get("backend") or ""),
                certain=True,
            )
        except UserError as exc:
            raise InvalidDodoFile(doit_line(str(exc), sys.stderr)) from None

    @property
    def config_path(self) -> str:
        """The config file the options name (an empty --config= means the default one)."""
        return str(self._options.get("config") or DEFAULT_CONFIG)

    def load_doit_config(self) -> dict[str, Any]:
        return dict(DOIT_CONFIG)

    def load_tasks(self, cmd: Any, pos_args: list[str]) -> list[Any]:
        creator = make_astest_tasks(".", command="astest")
        task_opts = dict(self.task_opts or {})
        if self._options:
            task_opts[BASENAME] = {
                **option_defaults(creator.options),
                **self._options,
            }
        return loader.load_tasks(  # type: ignore[no-any-return]
            {"astest_tasks": creator},
            self.cmd_names,
            allow_delayed=cmd.execute_tasks,
            args=pos_args,
            config=self.config,
            task_opts=task_opts,
        )


def _with_task_options(command: type[Any]) -> type[Any]:
    """The doit command, with our task options added to its own."""
    options = tuple(dict(option) for option in TASK_PARAMS)
    return type(command.__name__, (command,), {"cmd_options": command.cmd_options + options})


# The commands that load the tasks, whose names and files the options decide.
_TASK_LOADING_COMMANDS = (Run, List, Info, Clean, Forget, Ignore, ResetDep, Strace)


class AstestMain(DoitMain):  # type: ignore[misc]
    BIN_NAME = "astest"
    DOIT_CMDS = tuple(
        _with_task_options(command) if command in _TASK_LOADING_COMMANDS else command
        for command in DoitMain.DOIT_CMDS
    )


def run_doit(arguments: Sequence[str]) -> int:
    # Some doit commands (clean) return None for success.
    arguments = task_options_first(arguments, TASK_PARAMS, BARE_VALUES, BARE_FOLLOWERS)
    # The task creator must see the words doit parses (``--jobs 2`` already made ``-n 2``),
    # not the process's own argv.
    with command_line_given("astest", arguments):
        return int(AstestMain(AstestLoader()).run(arguments) or 0)
