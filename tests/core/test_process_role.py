"""Where a plain doit runs its tasks: the main thread of a process that is no worker."""

from __future__ import annotations

import multiprocessing
import threading

from astest_tasks.core.process_role import in_doits_main_thread


def _report(answers: multiprocessing.Queue[bool]) -> None:
    answers.put(in_doits_main_thread())


def test_only_the_main_thread_of_a_process_that_is_no_worker() -> None:
    assert in_doits_main_thread()
    on_thread: list[bool] = []
    other = threading.Thread(target=lambda: on_thread.append(in_doits_main_thread()))
    other.start()
    other.join()
    assert on_thread == [False]
    # A doit -n worker: a multiprocessing child, forked as doit forks its workers.
    context = multiprocessing.get_context("fork")
    answers = context.Queue()
    worker = context.Process(target=_report, args=(answers,))
    worker.start()
    assert answers.get(timeout=60) is False
    worker.join(timeout=60)
    assert worker.exitcode == 0
