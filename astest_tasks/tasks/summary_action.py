"""The summary task's action and teardown: print every spec's result, write the reports, and fail
the doit run when anything failed (the build and run actions only record failures), or coverage
is below ``--coverage-fail-under``. Under GitHub Actions it also annotates the failures and
appends the step summary (output/github_actions.py, output/step_summary.py)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from doit.exceptions import TaskFailed

from astest_tasks.core.records import decode
from astest_tasks.output.console import Shown
from astest_tasks.output.coverage_summary import CoverageOutcome
from astest_tasks.output.coverage_threshold import threshold_failures
from astest_tasks.output.fuzz_summary import ShownFuzz
from astest_tasks.output.github_actions import in_github_actions, print_annotations
from astest_tasks.output.latest_log import print_logs
from astest_tasks.output.step_summary import append_step_summary, step_summary
from astest_tasks.output.summary import (
    SummaryExtras,
    SummaryPlan,
    collected_logs,
    load_fuzz,
    load_specs,
    print_with_fuzz,
    summary_coverage,
    write_report,
)
from astest_tasks.output.terminal import in_doit_worker_process


def summarize(plan: dict[str, object], session: str) -> bool | TaskFailed:
    """The summary task's action: print the summary, write the report, fail if anything failed."""
    summary_plan = decode(SummaryPlan, plan)
    loaded = load_specs(summary_plan, session)  # read once, for the printout and the reports
    shown = [item.shown for item in loaded]
    fuzz = load_fuzz(summary_plan, session)
    coverage = summary_coverage(summary_plan, shown)
    below = _below_floor(summary_plan, coverage)
    if not in_doit_worker_process():
        if summary_plan.show_logs:
            print_logs(collected_logs(loaded))
        _print(summary_plan, shown, fuzz, coverage, below)
    specs_passed = write_report(summary_plan, loaded, coverage, fuzz)
    _append_step_summary(shown, coverage, below)
    if specs_passed and all(item.result.passed for item in fuzz) and not below:
        return True
    # report=False: our summary says what failed, and doit's own failure banner would push it off
    # the last line.
    return TaskFailed("some specs failed", report=False)


def show_summary_from_worker(plan: dict[str, object], session: str) -> None:
    """The summary task's teardown: prints the summary when a ``doit -n N`` worker ran it.

    The parent process prints a task's title when the worker's report of it arrives, which can be
    after the action's own output; a worker runs its teardowns only once the parent has dispatched
    every task, so printing there keeps the summary last. In one process (plain ``doit``, or
    ``-P thread``, which runs teardowns once per thread) the action has printed it already.
    """
    if in_doit_worker_process():
        summary_plan = decode(SummaryPlan, plan)
        loaded = load_specs(summary_plan, session)
        if summary_plan.show_logs:
            print_logs(collected_logs(loaded))
        shown = [item.shown for item in loaded]
        coverage = summary_coverage(summary_plan, shown)
        below = _below_floor(summary_plan, coverage)
        _print(summary_plan, shown, load_fuzz(summary_plan, session), coverage, below)


def _below_floor(plan: SummaryPlan, coverage: CoverageOutcome | None) -> tuple[str, ...]:
    if coverage is None or not plan.coverage_fail_under:
        return ()
    return tuple(threshold_failures(coverage, plan.coverage_fail_under))


def _print(
    plan: SummaryPlan,
    shown: list[Shown],
    fuzz: list[ShownFuzz],
    coverage: CoverageOutcome | None,
    below: tuple[str, ...],
) -> None:
    if in_github_actions(os.environ):
        print_annotations(shown, Path(plan.project_root))
    extras = SummaryExtras(durations=plan.durations, threshold_failures=below)
    print_with_fuzz(shown, fuzz, coverage, plan.note, plan.gaps, plan.verbose, extras)


def _append_step_summary(
    shown: list[Shown], coverage: CoverageOutcome | None, below: tuple[str, ...]
) -> None:
    """Once per run, from the action (a worker's teardown prints, it does not append)."""
    target = os.environ.get("GITHUB_STEP_SUMMARY", "")
    if not in_github_actions(os.environ) or not target:
        return
    problem = append_step_summary(Path(target), step_summary(shown, coverage, below))
    if problem:
        print(problem, file=sys.stderr)
