"""The summary task's action and teardown: print every spec's result, write the reports, and fail
the doit run when anything failed (the build and run actions only record failures), or coverage
is below ``--coverage-fail-under``. Under GitHub Actions it also annotates the failures and
appends the step summary (output/github_actions.py, output/step_summary.py). With a remote cache,
the results it served are marked and its line ends the summary (remote/session.py)."""

from __future__ import annotations

import contextlib
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from doit.exceptions import TaskFailed

from astest_tasks.core.disk_space import DiskFull
from astest_tasks.core.guest_text import for_stream
from astest_tasks.core.terminal_env import in_github_actions
from astest_tasks.output.console import Shown
from astest_tasks.output.coverage_summary import CoverageOutcome
from astest_tasks.output.coverage_threshold import threshold_failures
from astest_tasks.output.fuzz_summary import ShownFuzz
from astest_tasks.output.latest_log import print_logs
from astest_tasks.output.summary import (
    LoadedSpec,
    SummaryExtras,
    SummaryPlan,
    collected_logs,
    load_fuzz,
    load_specs,
    print_with_fuzz,
    summary_coverage,
    write_report,
)
from astest_tasks.output.terminal import in_doit_worker_process, output_stream
from astest_tasks.remote.remote_use import RemoteUse
from astest_tasks.schedule.scheduler import scheduler

if TYPE_CHECKING:  # the session's code loads only in a call with a remote cache (issue 40)
    from astest_tasks.remote.session import CallCounts


def summarize(
    plan: SummaryPlan, session: str, remote: RemoteUse | None = None
) -> bool | TaskFailed:
    """The summary task's action: print the summary, write the report, fail if anything failed.
    ``remote``: the shared cache's results are marked, and its line ends the summary."""
    calls = remote_call_counts(remote)
    # Read once, for the printout and the reports.
    loaded = marked_remote(load_specs(plan, session), calls)
    shown = [item.shown for item in loaded]
    fuzz = load_fuzz(plan, session)
    coverage = summary_coverage(plan, shown)
    below = _below_floor(plan, coverage)
    if not in_doit_worker_process():
        if plan.report.show_logs:
            print_logs(collected_logs(loaded))
        _print(plan, shown, fuzz, coverage, below)
        print_remote_line(calls)
    try:
        specs_passed = write_report(plan, loaded, coverage, fuzz)
    except DiskFull as exc:  # the reports there are the last ones that were whole
        from astest_tasks.actions.task_failure import failed_task  # only when the disk is full

        return failed_task(exc)
    _append_step_summary(shown, coverage, below)
    if specs_passed and all(item.result.passed for item in fuzz) and not below:
        return True
    # report=False: our summary says what failed, and doit's own failure banner would push it off
    # the last line.
    return TaskFailed("some specs failed", report=False)


def show_summary_from_worker(
    plan: SummaryPlan, session: str, remote: RemoteUse | None = None
) -> None:
    """The summary task's teardown: prints the summary when a ``doit -n N`` worker ran it.

    The parent process prints a task's title when the worker's report of it arrives, which can be
    after the action's own output; a worker runs its teardowns only once the parent has dispatched
    every task, so printing there keeps the summary last. In one process (plain ``doit``, or
    ``-P thread``, which runs teardowns once per thread) the action has printed it already.
    """
    if in_doit_worker_process():
        calls = remote_call_counts(remote)
        loaded = marked_remote(load_specs(plan, session), calls)
        if plan.report.show_logs:
            print_logs(collected_logs(loaded))
        shown = [item.shown for item in loaded]
        coverage = summary_coverage(plan, shown)
        below = _below_floor(plan, coverage)
        _print(plan, shown, load_fuzz(plan, session), coverage, below)
        print_remote_line(calls)


def _below_floor(plan: SummaryPlan, coverage: CoverageOutcome | None) -> tuple[str, ...]:
    floors = plan.report.coverage_fail_under
    if coverage is None or not floors:
        return ()
    return tuple(threshold_failures(coverage, floors))


def _print(
    plan: SummaryPlan,
    shown: list[Shown],
    fuzz: list[ShownFuzz],
    coverage: CoverageOutcome | None,
    below: tuple[str, ...],
) -> None:
    if in_github_actions(os.environ):
        from astest_tasks.output.github_actions import print_annotations  # only there (issue 40)

        print_annotations(shown, Path(plan.project_root))
    extras = SummaryExtras(durations=plan.report.durations, threshold_failures=below)
    print_with_fuzz(shown, fuzz, coverage, plan.note, plan.gaps, plan.report.verbose, extras)


def _append_step_summary(
    shown: list[Shown], coverage: CoverageOutcome | None, below: tuple[str, ...]
) -> None:
    """Once per run, from the action (a worker's teardown prints, it does not append)."""
    target = os.environ.get("GITHUB_STEP_SUMMARY", "")
    if not in_github_actions(os.environ) or not target:
        return
    from astest_tasks.output.step_summary import append_step_summary, step_summary  # (issue 40)

    problem = append_step_summary(Path(target), step_summary(shown, coverage, below))
    if problem:
        print(for_stream(problem, sys.stderr), file=sys.stderr)


def remote_call_counts(remote: RemoteUse | None) -> CallCounts | None:
    """What the shared cache did in this call, in all its processes; this process's uploads
    end first (doit's own: they went on beside the last tasks)."""
    if remote is None:
        return None
    from astest_tasks.remote.session import read_call_counts  # only a call with a cache

    with contextlib.suppress(Exception):  # a cache only ever speeds a run up
        scheduler().remote.publish(remote, wait_for_uploads=True)
    return read_call_counts(Path(remote.state_dir), remote.session)


def marked_remote(loaded: list[LoadedSpec], calls: CallCounts | None) -> list[LoadedSpec]:
    """The results this call took from the shared cache, marked ``(remote)``."""
    if calls is None or not calls.served:
        return loaded
    return [
        replace(item, shown=replace(item.shown, cached=False, remote=True))
        if (item.shown.result.mode, item.shown.result.spec_id) in calls.served
        else item
        for item in loaded
    ]


def print_remote_line(calls: CallCounts | None) -> None:
    if calls is not None:
        from astest_tasks.remote.counters import render_remote_line

        output_stream().write(render_remote_line(calls.counts) + "\n")
