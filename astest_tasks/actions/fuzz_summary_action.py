"""The fuzz summary task's action and teardown: print every campaign and fail the doit run when
one failed (the fuzz run actions only record failures). What is printed is output/fuzz_summary.py's.
"""

from __future__ import annotations

from collections.abc import Mapping

from doit.exceptions import TaskFailed

from astest_tasks.output.fuzz_summary import load_fuzz_plan, print_fuzz
from astest_tasks.output.terminal import in_doit_worker_process


def summarize_fuzz(plan: Mapping[str, object], session: str) -> bool | TaskFailed:
    """The ``astest:fuzz:summary`` action: print every campaign; fail when one failed."""
    shown = load_fuzz_plan(plan, session)
    if not in_doit_worker_process():
        print_fuzz(shown)
    failed = [item.result.file_id for item in shown if not item.result.passed]
    if failed:
        # report=False: the printout says what failed; doit's banner would push it off the end.
        return TaskFailed(f"{len(failed)} fuzz file(s) failed: {', '.join(failed)}", report=False)
    return True


def show_fuzz_summary_from_worker(plan: Mapping[str, object], session: str) -> None:
    """Teardown: under ``doit -n N`` a worker prints it last (as summary_action.py's does)."""
    if in_doit_worker_process():
        print_fuzz(load_fuzz_plan(plan, session))
