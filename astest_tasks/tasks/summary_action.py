"""The summary task's action and teardown: print every spec's result, write the reports, and fail
the doit run when anything failed (the build and run actions only record failures)."""

from __future__ import annotations

from doit.exceptions import TaskFailed

from astest_tasks.core.records import decode
from astest_tasks.output.latest_log import print_logs
from astest_tasks.output.summary import (
    SummaryPlan,
    collected_logs,
    load_fuzz,
    load_specs,
    load_summary,
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
    if not in_doit_worker_process():
        if summary_plan.show_logs:
            print_logs(collected_logs(loaded))
        print_with_fuzz(
            shown, fuzz, coverage, summary_plan.note, summary_plan.gaps, summary_plan.verbose
        )
    specs_passed = write_report(summary_plan, loaded, coverage, fuzz)
    if specs_passed and all(item.result.passed for item in fuzz):
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
        if summary_plan.show_logs:
            print_logs(collected_logs(load_specs(summary_plan, session)))
        shown = load_summary(summary_plan, session)
        coverage = summary_coverage(summary_plan, shown)
        print_with_fuzz(
            shown,
            load_fuzz(summary_plan, session),
            coverage,
            summary_plan.note,
            summary_plan.gaps,
            summary_plan.verbose,
        )
