"""``make_astest_tasks``: the task creator a dodo.py binds, once or several times.

doit finds a task creator either as a ``task_*`` function or as any object with a
``create_doit_tasks`` attribute, whose ``basename`` attribute names the tasks. The factory
returns such an object, so an instance is named by its ``basename`` argument whatever variable
holds it: two instances (two configs, or two mode sets) live in one dodo.py side by side,
``task_astest`` and ``web = make_astest_tasks(basename="web", ...)``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from doit import task_params
from doit.exceptions import InvalidDodoFile, InvalidTask
from doit.globals import Globals

from astest_tasks.config.pipeline import BASENAME, Pipeline
from astest_tasks.core.errors import UserError
from astest_tasks.core.frozen import frozen
from astest_tasks.core.guest_text import doit_line
from astest_tasks.core.option_declarations import OptionSpec
from astest_tasks.core.version import __version__
from astest_tasks.plan.command_line import CommandLine, current_command_line
from astest_tasks.plan.doit_argv import doctor_task_wanted
from astest_tasks.plan.options import TaskOptions, option_defaults, option_specs
from astest_tasks.plan.state_file import check_state_file
from astest_tasks.schedule.scheduler import scheduler
from astest_tasks.tasks.creator import create_tasks
from astest_tasks.tasks.doit_call import doit_settles_dependencies_first
from astest_tasks.tasks.doit_state import close_saying_why

_NAME_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.")


# The task creator's doc, which doit shows as the doc of the group task (``doit list``).
CREATOR_DOC = "Build and run the as-test specs (asc + embedded wasmtime), then summarise."


@frozen
class AstestTasks:
    """A task creator for doit. Call it with option values (``creator(mode="wasi")``) to get
    the task dicts yourself; each carries its full name, so a wrapper may filter or extend
    them and yield them on."""

    create_doit_tasks: Any  # the creator function doit calls, with .basename
    basename: str
    options: tuple[dict[str, Any], ...]

    def __call__(self, **options: Any) -> Iterator[dict[str, Any]]:
        return self.create_doit_tasks(**options)  # type: ignore[no-any-return]


def make_astest_tasks(
    project_dir: str | Path = ".",
    *,
    config_path: str | None = None,
    modes: Sequence[str] | None = None,
    specs: Sequence[str] | None = None,
    basename: str = BASENAME,
    task_dep: Sequence[str] = (),
    setup: Sequence[str] = (),
    command: str = "doit",
    remote_cache: str | None = None,
    remote_cache_mode: str | None = None,
) -> AstestTasks:
    """Tasks for the as-test project in ``project_dir`` (relative to the dodo's folder).

    ``config_path``, ``modes`` and ``specs`` pin the config file, the modes and the specs of
    this instance (the matching options still override them on the command line);
    ``basename`` names its tasks (``<basename>:run:<mode>:<spec>``); ``task_dep`` is added to
    every build (a code generator that must run first) and ``setup`` to every run. ``command``
    is how hints and repro lines name the program that runs the tasks. ``remote_cache`` and
    ``remote_cache_mode`` pin the shared cache (docs/remote-cache.md); give its credentials in
    ``ASTEST_REMOTE_CACHE_HEADER``, not in a URL written into the dodo.py.
    """
    _check_basename(basename)
    try:
        # Runs while doit imports the dodo file, just before doit opens its state file.
        command_line = current_command_line()
        check_state_file(
            Path(command_line.state_file),
            command_line.state_backend,
            certain=command_line.state_file_named,
        )
        _check_bare_changed(command_line)
    except UserError as exc:
        raise InvalidDodoFile(doit_line(str(exc), sys.stderr)) from None
    pinned = {
        name: value
        for name, value in (
            ("config", config_path),
            ("mode", ",".join(modes) if modes is not None else None),
            ("spec", ",".join(specs) if specs is not None else None),
            ("remote_cache", remote_cache),
            ("remote_cache_mode", remote_cache_mode),
        )
        if value is not None
    }
    declared = option_specs(pinned)
    params = [option.param() for option in declared]  # doit's form of them
    pipeline = Pipeline(
        basename=basename, task_dep=tuple(task_dep), setup=tuple(setup), command=command
    )
    flags = {f"--{option.long}": option for option in declared}
    flags.update({f"-{option.short}": option for option in declared if option.short})
    instance = _Instance(project_dir, pipeline, option_defaults(params), flags)

    def create_doit_tasks(**given: Any) -> Iterator[dict[str, Any]]:
        # Its doc is set below, not written here: doit reads this function's source on every
        # call (inspect.getsourcelines, to order the task creators), and tokenize compiles a
        # pattern for a triple-quoted string there, about half a million instructions.
        return _tasks_of(instance, given)

    create_doit_tasks.__doc__ = CREATOR_DOC  # what `doit list` shows for the group
    create_doit_tasks.basename = basename  # type: ignore[attr-defined]
    return AstestTasks(
        create_doit_tasks=task_params(params)(create_doit_tasks),
        basename=basename,
        options=tuple(params),
    )


def _check_basename(basename: str) -> None:
    if not basename or not set(basename) <= _NAME_CHARACTERS:
        raise InvalidDodoFile(
            f"make_astest_tasks(basename={basename!r}): a basename is letters, digits, '_', '-' "
            "or '.', and no ':' (doit uses it to separate names); fix: e.g. basename='unit'"
        )


@frozen
class _Instance:
    """What one ``make_astest_tasks`` call fixed: its project, its pipeline, its options."""

    project_dir: str | Path
    pipeline: Pipeline
    defaults: dict[str, Any]
    flags: dict[str, OptionSpec]


def _tasks_of(instance: _Instance, given: dict[str, Any]) -> Iterator[dict[str, Any]]:
    values = {**instance.defaults, **given}
    pipeline = instance.pipeline
    root = (Path.cwd() / instance.project_dir).resolve()
    command_line = current_command_line().settling_builds(doit_settles_dependencies_first())
    if command_line.runs_tasks:
        # doit saves its state when this run ends: a save that fails is one line (doit_state.py)
        close_saying_why(Globals.dep_manager)
    with_doctor = doctor_task_wanted(command_line.arguments, pipeline.basename)
    if with_doctor:
        # Only a listing or a call naming the doctor loads it (a plain run never does: issue 40).
        from astest_tasks.tasks.doctor import DoctorRequest, doctor_task

        yield doctor_task(root, pipeline.basename, DoctorRequest.from_values(values))
    try:
        _check_option_placement(command_line, pipeline, instance.flags)
        options = TaskOptions.from_values(values)
        answer = _version_or_listing(root, options, pipeline)
        if answer is not None:
            yield answer
            return
        selection = options.selection
        sharded = pipeline.sharded(selection.shard, selection.shard_durations)
        tasks = list(create_tasks(root, options, sharded, command_line))
        scheduler().share_compiler_with_workers(command_line.forks_workers)
    except UserError as exc:
        if with_doctor and command_line.runs_tasks:
            return  # the doctor, which was asked for, names the problem with its fix
        # doit prints InvalidTask as one "ERROR: ..." line and exits 3, with no traceback, but
        # prints it as it is: the message may quote the config (a mode's file path, a value),
        # which a pull request writes, so it is kept to its line and made inert as every line
        # we print is.
        raise InvalidTask(doit_line(str(exc), sys.stderr)) from None
    yield from tasks


def _version_or_listing(
    root: Path, options: TaskOptions, pipeline: Pipeline
) -> dict[str, Any] | None:
    """The one task that answers --version or --list/--list-modes, which run nothing."""
    version = options.listing.version
    listing_wanted = options.listing.list or options.listing.list_modes
    if not (version or listing_wanted):
        return None  # the listing's module loads only for these (issue 40)
    from astest_tasks.plan.plan_listing import PlanRequest, load_plan_input, plan_task, plan_text

    if version:
        return plan_task(pipeline.basename, f"astest-tasks {__version__}\n", "version")
    listing = PlanRequest(options.listing.list, options.listing.list_modes, options.fuzzing.fuzz)
    selection = options.selection
    plan = load_plan_input(
        root,
        selection.config,
        list(selection.mode),
        list(selection.spec),
        (options.features, options.run_coverage, options.switches.browser),
        pipeline.options_command,
    )
    return plan_task(pipeline.basename, plan_text(listing, plan))


def _check_bare_changed(command_line: CommandLine) -> None:
    """doit parses task options with getopt, which knows no optional value: ``doit astest
    --changed`` at the end of the line would stop doit with a parser error that lists every
    option. The ``astest`` command completes a bare ``--changed`` itself (doit_argv.py)."""
    arguments = command_line.arguments
    if command_line.run_by_doit and arguments and arguments[-1] == "--changed":
        raise UserError(
            "--changed at the end of doit's command line has no REF (doit's option parser has "
            "no optional values); fix: `doit astest --changed=HEAD`, or --changed=origin/main "
            "to compare with a branch"
        )


def _check_option_placement(
    command_line: CommandLine, pipeline: Pipeline, flags: dict[str, OptionSpec]
) -> None:
    """doit hands options to a task creator only right after the creator's own name
    (``doit astest --fuzz-seed 5 astest:fuzz``); after one of its tasks' names it parses and
    drops them without a word, and the run would silently use the defaults."""
    if pipeline.command != "doit" or not command_line.runs_tasks:
        return
    arguments = command_line.arguments
    for index in range(1, len(arguments)):
        previous, word = arguments[index - 1], arguments[index]
        option = flags.get(word.split("=", 1)[0])
        if option is None or not previous.startswith(f"{pipeline.basename}:"):
            continue
        given = word
        following = arguments[index + 1] if index + 1 < len(arguments) else ""
        if "=" not in word and option.takes_value and not following.startswith("-"):
            given = f"{word} {following}".rstrip()
        alternative = f", or set {option.env_var}" if option.env_var else ""
        raise UserError(
            f"{given} after {previous} is not read by doit: the options of these tasks go right "
            f"after `{pipeline.basename}`; fix: `doit {pipeline.basename} {given} {previous}`"
            f"{alternative}"
        )
