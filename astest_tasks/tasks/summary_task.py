"""The summary task: after every run task, print every result (fresh or cached) and write the
reports."""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from typing import Any

from astest_tasks.actions.doors import (
    remove_orphaned_crash_records,
    remove_summary_leftovers,
    show_summary_from_worker,
    summarize,
)
from astest_tasks.config.layout import spec_result_path
from astest_tasks.config.run_switches import ShowCoverage
from astest_tasks.output.coverage_threshold import check_threshold_modes
from astest_tasks.output.fuzz_summary import FuzzEntry
from astest_tasks.output.latest_log import logs_root_of
from astest_tasks.output.summary import SummaryEntry, SummaryPlan
from astest_tasks.plan.planning import Plan
from astest_tasks.tasks.checks import Always


def summary_entries(plan: Plan) -> list[SummaryEntry]:
    """Mode by mode, each mode's specs in their order: as the summary and its task_dep list
    them."""
    return [
        SummaryEntry(
            mode=mode.name,
            spec_id=spec.spec_id,
            spec=spec.path,
            target=mode.target,
            result=spec_result_path(mode, spec),
            run_task=plan.pipeline.task(f"run:{mode.name}:{spec.spec_id}"),
            command=plan.pipeline.command,
        )
        for mode in plan.modes
        for spec in plan.specs_by_mode[mode.name]
    ]


def summary_plan(
    plan: Plan, entries: Sequence[SummaryEntry], fuzz_entries: Sequence[FuzzEntry]
) -> SummaryPlan:
    """The summary's plan; ``entries`` are ``summary_entries(plan)``, which the caller has
    made for the summary task's dependencies already."""
    options, pipeline, show_coverage = plan.options, plan.pipeline, plan.options.switches
    floors = options.report.coverage_fail_under
    check_threshold_modes(floors, [t.mode for t in plan.coverage_targets])
    return SummaryPlan(
        project_root=str(plan.root),
        report_path=posixpath.join(pipeline.report_dir(plan.config), "report.json"),
        entries=tuple(entries),
        report=options.report,
        logs_root=logs_root_of(plan.config.base.logs_dir),
        fuzz_entries=tuple(fuzz_entries),
        coverage=tuple(plan.coverage_targets),
        shard=plan.shard,
        note=plan.note,
        show_coverage=show_coverage.show_coverage is not ShowCoverage.NONE,
        expand_coverage_gaps=show_coverage.show_coverage is ShowCoverage.ALL,
        rerun_command=pipeline.options_command,
    )


def summary_task(
    plan: Plan,
    entries: Sequence[SummaryEntry],
    run_tasks: Sequence[str],
    fuzz_entries: Sequence[FuzzEntry],
) -> dict[str, Any]:
    summary = summary_plan(plan, entries, fuzz_entries)
    session, pipeline, config = plan.settings.session, plan.pipeline, plan.config
    coverage_dirs = [t.directory for t in summary.coverage if t.directory is not None]
    crash_dirs = sorted({mode.crash_dir for mode in (config.base, *config.modes.values())})
    root = str(plan.root)
    # The plan itself, a frozen record that pickles to doit's workers as the run requests do:
    # encoding it here and decoding it in the action cost a no-change call 2.6 million
    # instructions (issue 40).
    arguments: list[object] = [summary, session]
    if plan.settings.remote is not None:
        arguments.append(plan.settings.remote)
    return {
        "basename": pipeline.basename,
        "name": "summary",
        "doc": "print every spec's result (fresh or cached) and fail if any failed",
        "actions": [(summarize, arguments)],
        "teardown": [(show_summary_from_worker, arguments)],
        "task_dep": list(run_tasks),
        "uptodate": [Always(False, "the summary always runs: it shows cached results too")],
        "verbosity": 2,  # our output is the point: never let doit capture it
        "clean": [
            (remove_summary_leftovers, [root, summary.report_path, coverage_dirs]),
            (remove_orphaned_crash_records, [root, crash_dirs]),
        ],
        "meta": pipeline.meta("summary", report=summary.report_path),
    }
