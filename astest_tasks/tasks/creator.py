"""The doit task creator's body: plan the call (planning.py), then emit doit's task dicts.

One build and one run task per (mode, spec) (spec_tasks.py), the default runners they use, the
fuzz tasks when wanted (fuzz_tasks.py), and one summary task (summary_task.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from astest_tasks.config.pipeline import DEFAULT_PIPELINE, Pipeline
from astest_tasks.config.toolchain import warn_once
from astest_tasks.core.gc_pause import CyclicGcPaused
from astest_tasks.core.interrupts import report_interrupts_in_one_line, unwind_on_sigterm
from astest_tasks.core.parent_bond import bind_forked_children
from astest_tasks.core.project_lock import lock_project
from astest_tasks.model.results import forget_kept_heads
from astest_tasks.plan.command_line import CommandLine
from astest_tasks.plan.fuzz_plan import FuzzPlan
from astest_tasks.plan.options import TaskOptions
from astest_tasks.plan.planning import Plan, make_plan
from astest_tasks.schedule.scheduler import Scheduler, scheduler
from astest_tasks.tasks.input_files import InputFiles
from astest_tasks.tasks.spec_tasks import build_task, run_task, runner_tasks
from astest_tasks.tasks.summary_task import summary_entries, summary_task


def create_tasks(
    project_root: Path,
    options: TaskOptions,
    pipeline: Pipeline = DEFAULT_PIPELINE,
    command_line: CommandLine | None = None,
) -> Iterator[dict[str, Any]]:
    command_line = command_line or CommandLine()
    unwind_on_sigterm()  # doit's -n workers inherit it when they are forked from here
    bind_forked_children()  # and they end with this process, even one killed with SIGKILL
    report_interrupts_in_one_line()
    forget_kept_heads()  # the result heads the last call of this process read (watch mode)
    with CyclicGcPaused():  # the plan's objects live as long as the call
        plan = make_plan(project_root, options, pipeline, command_line, warn=warn_once)
    lock_project(plan.lock_path, read_only=command_line.reads_only)
    yield from emit(plan)


def emit(plan: Plan) -> Iterator[dict[str, Any]]:
    """doit's task dicts for ``plan``, in the order a serial doit should meet them, each with
    the files it depends on checked (input_files.py)."""
    inputs = InputFiles()
    for task in _tasks(plan):
        inputs.check(task)
        yield task


def _tasks(plan: Plan) -> Iterator[dict[str, Any]]:
    """The task dicts; the process's scheduler learns the order of the builds and runs as they
    are made."""
    planner = scheduler()
    yield from runner_tasks(plan.root, plan.runtimes.values(), plan.pipeline, planner)
    yield from _spec_tasks(plan, planner)
    fuzzing = _fuzz_tasks(plan)
    yield from fuzzing.tasks
    plan.scan_cache.save()
    entries = summary_entries(plan)
    run_tasks = [entry.run_task for entry in entries]
    if plan.options.fuzzing.fuzz:
        run_tasks += fuzzing.run_tasks
    fuzz_entries = fuzzing.entries if plan.options.fuzzing.fuzz else []
    yield summary_task(plan, entries, run_tasks, fuzz_entries)


def _spec_tasks(plan: Plan, planner: Scheduler) -> Iterator[dict[str, Any]]:
    """A spec's modes one after another, and each build before the previous run: a serial doit
    then meets every run with the next one built, which the run ahead needs (run_ahead.py),
    and an edited spec's runs in its modes come next to each other."""
    previous_run: dict[str, Any] | None = None
    total = len(plan.specs)
    for planned in plan.specs:
        yield build_task(
            plan.root,
            planned,
            plan.toolchain,
            plan.scan_cache,
            plan.pipeline,
            planner,
            plan.settings.remote,
        )
        if previous_run is not None:
            yield previous_run
        previous_run = run_task(plan.root, planned, plan.settings, total, planner)
    if previous_run is not None:
        yield previous_run


def _fuzz_tasks(plan: Plan) -> FuzzPlan:
    if plan.fuzz is None:
        return FuzzPlan(tasks=[], run_tasks=[], entries=[])
    # Made only when wanted, so a call without fuzz tasks never loads the fuzz actions' modules.
    from astest_tasks.tasks.fuzz_tasks import fuzz_tasks

    limits_of = {mode.name: plan.settings.limits.of_mode(mode.name) for mode in plan.modes}
    return fuzz_tasks(
        plan.root,
        list(plan.modes),
        plan.toolchain,
        plan.scan_cache,
        limits_of,
        plan.fuzz,
        plan.settings.session,
        plan.pipeline,
    )
