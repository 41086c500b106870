"""The actions as doit's dicts name them, each importing its module on its first call.

A doit call with nothing to build or run (the no-change run, `doit list`) makes every task but
calls only the summary's action; importing the build, run and fuzz actions with the tasks would
load the compiler's, the runtimes' and the remote cache's modules for nothing (issue 40). Each
door takes exactly its action's arguments, which doit passes by position (and a clean action's
``dryrun`` by name, which doit gives only to a function whose signature has it), and returns
what the action returns. Doors are module-level functions, so doit's ``-n N`` workers find them
by name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from doit.exceptions import TaskFailed

    from astest_tasks.actions.fuzz_actions import FuzzRunRequest
    from astest_tasks.build.build_request import BuildRequest
    from astest_tasks.output.summary import SummaryPlan
    from astest_tasks.remote.remote_use import RemoteUse
    from astest_tasks.remote.task_keys import RemoteTask
    from astest_tasks.run.run_request import RunRequest


def build_spec(build: BuildRequest, remote: RemoteTask | None = None) -> bool | TaskFailed:
    from astest_tasks.actions.build_action import build_spec as action

    return action(build, remote)


def run_spec(
    run: RunRequest, session: str, remote: RemoteTask | None = None
) -> dict[str, str] | TaskFailed:
    from astest_tasks.actions.run_action import run_spec as action

    return action(run, session, remote)


def summarize(
    plan: SummaryPlan, session: str, remote: RemoteUse | None = None
) -> bool | TaskFailed:
    from astest_tasks.actions.summary_action import summarize as action

    return action(plan, session, remote)


def show_summary_from_worker(
    plan: SummaryPlan, session: str, remote: RemoteUse | None = None
) -> None:
    from astest_tasks.actions.summary_action import show_summary_from_worker as action

    action(plan, session, remote)


def run_fuzz_file(run: FuzzRunRequest, session: str) -> bool | TaskFailed:
    from astest_tasks.actions.fuzz_actions import run_fuzz_file as action

    return action(run, session)


def summarize_fuzz(plan: Mapping[str, object], session: str) -> bool | TaskFailed:
    from astest_tasks.actions.fuzz_summary_action import summarize_fuzz as action

    return action(plan, session)


def show_fuzz_summary_from_worker(plan: Mapping[str, object], session: str) -> None:
    from astest_tasks.actions.fuzz_summary_action import show_fuzz_summary_from_worker as action

    action(plan, session)


# doit's clean actions: doit passes ``dryrun`` by name to an action whose signature has it.


def remove_run_leftovers(project_root: str, request: RunRequest, dryrun: bool) -> None:
    from astest_tasks.actions.cleaning import remove_run_leftovers as action

    action(project_root, request, dryrun)


def remove_fuzz_leftovers(
    project_root: str, crash_dir: str, file_id: str, mode: str, dryrun: bool
) -> None:
    from astest_tasks.actions.cleaning import remove_fuzz_leftovers as action

    action(project_root, crash_dir, file_id, mode, dryrun)


def remove_summary_leftovers(
    project_root: str, report_path: str, coverage_dirs: Sequence[str], dryrun: bool
) -> None:
    from astest_tasks.actions.cleaning import remove_summary_leftovers as action

    action(project_root, report_path, coverage_dirs, dryrun)


def remove_orphaned_crash_records(
    project_root: str, crash_dirs: Sequence[str], dryrun: bool
) -> None:
    from astest_tasks.actions.cleaning import remove_orphaned_crash_records as action

    action(project_root, crash_dirs, dryrun)
