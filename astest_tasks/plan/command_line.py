"""The doit command line of this process, read once into a frozen record.

Task creators run while doit loads the tasks, before doit has decided what to execute, yet some
decisions must be made then from the words doit was given: whether this call may write
(project_lock.py), whether the fuzz and doctor tasks are wanted, whether doit will fork worker
processes (shared_compiler.py), which state file it opens (state_file.py). doit hands a task
creator only its option values, so the words come from the process's ``sys.argv``, read in
exactly one place (``current_command_line``). ``astest --watch`` runs doit in its own process
with other words; it says so with ``command_line_given`` instead of swapping ``sys.argv``.
"""

from __future__ import annotations

import contextlib
import posixpath
import sys
from collections.abc import Iterator, Sequence
from contextvars import ContextVar

from astest_tasks.core.frozen import frozen
from astest_tasks.plan.doit_argv import (
    READ_ONLY_COMMANDS,
    default_tasks,
    doit_command,
    forks_worker_processes,
    names_tasks_under,
)
from astest_tasks.plan.state_file import (
    backend_from_argv,
    state_file_from_argv,
    state_file_named,
)


@frozen
class CommandLine:
    """``program`` is how the process was started (``doit``, ``astest``, a path to either);
    ``arguments`` are the words after it, as doit parses them."""

    program: str = "doit"
    arguments: tuple[str, ...] = ()
    # Whether the doit command loading the tasks settles each build before it checks the
    # build's run (a ``run``, not ``--single``): doit has decided it by then, and the task layer
    # reads it there (tasks/doit_call.py) and hands it in with ``settling_builds``.
    settles_builds_first: bool = False

    @classmethod
    def of(cls, argv: Sequence[str]) -> CommandLine:
        return cls(program=argv[0] if argv else "", arguments=tuple(argv[1:]))

    def settling_builds(self, first: bool) -> CommandLine:
        return CommandLine(self.program, self.arguments, first)

    @property
    def command(self) -> str:
        """doit's command word: ``run`` when none is named."""
        return doit_command(self.arguments)

    @property
    def runs_tasks(self) -> bool:
        return self.command == "run"

    @property
    def reads_only(self) -> bool:
        """``list``, ``info``, … never write our files or doit's state."""
        return self.command in READ_ONLY_COMMANDS

    @property
    def forks_workers(self) -> bool:
        """A run with ``-n N`` in processes (on the command line or in the dodo's DOIT_CONFIG)."""
        return forks_worker_processes(self.arguments)

    @property
    def state_file(self) -> str:
        return state_file_from_argv(self.arguments)

    @property
    def state_backend(self) -> str:
        return backend_from_argv(self.arguments)

    @property
    def state_file_named(self) -> bool:
        return state_file_named(self.arguments)

    @property
    def run_by_doit(self) -> bool:
        """Started as ``doit`` itself, rather than through the ``astest`` command."""
        return self._started_as("doit", "doit/__main__.py")

    @property
    def run_by_astest(self) -> bool:
        """The astest command's own: its console script, ``python -m astest_tasks``, or the words
        it gives doit (``command_line_given("astest", ...)``)."""
        return self._started_as("astest", "astest_tasks/__main__.py")

    def _started_as(self, script: str, module_main: str) -> bool:
        program = self.program.replace("\\", "/")
        return posixpath.basename(program) == script or program.endswith(module_main)

    def asks_for(self, group: str, example: str) -> bool:
        """Whether this call runs tasks of ``group`` although a plain run would not make them:
        every command but ``run`` lists them; a run names them, directly, by a wildcard that
        matches ``example``, or through the dodo's ``default_tasks``."""
        if not self.runs_tasks:
            return True
        return names_tasks_under(self.arguments, group, example) or names_tasks_under(
            default_tasks(self.arguments), group, example
        )


_GIVEN: ContextVar[CommandLine | None] = ContextVar("astest_command_line", default=None)


def current_command_line() -> CommandLine:
    """The command line doit is running with: the one given by ``command_line_given``, else the
    process's own."""
    given = _GIVEN.get()
    return given if given is not None else CommandLine.of(sys.argv)


@contextlib.contextmanager
def command_line_given(program: str, arguments: Sequence[str]) -> Iterator[None]:
    """Run doit in this process with ``arguments`` (watch mode's cycles)."""
    token = _GIVEN.set(CommandLine(program=program, arguments=tuple(arguments)))
    try:
        yield
    finally:
        _GIVEN.reset(token)
