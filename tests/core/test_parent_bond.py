"""bind_forked_children: a process forked from ours ends when ours ends, however it ends."""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time

import pytest

from astest_tasks.core.parent_bond import bind_forked_children
from tests.process_tree import alive, wait_until_ended


def _fork_a_sleeper() -> int:
    child = os.fork()
    if child == 0:
        time.sleep(120)  # would outlive its parent by far, unbound
        os._exit(0)
    return child


def _bind_fork_and_vanish(from_thread: bool, results: multiprocessing.Queue[int]) -> None:
    """A doit that forks a worker (from its main thread, or another) and dies without clean-up."""
    bind_forked_children()
    if from_thread:
        forked: list[int] = []
        thread = threading.Thread(target=lambda: forked.append(_fork_a_sleeper()))
        thread.start()
        thread.join()
        child = forked[0]
    else:
        child = _fork_a_sleeper()
    results.put(child)
    results.close()
    results.join_thread()
    os._exit(0)  # as after SIGKILL: no exit hook runs


@pytest.mark.parametrize(
    "from_thread", [False, True], ids=["forked by the main thread", "forked by another thread"]
)
def test_a_forked_child_ends_when_its_parent_dies(from_thread: bool) -> None:
    spawn = multiprocessing.get_context("spawn")  # a parent of its own, which the test outlives
    results: multiprocessing.Queue[int] = spawn.Queue()
    parent = spawn.Process(target=_bind_fork_and_vanish, args=(from_thread, results))
    parent.start()
    child = results.get(timeout=60)
    try:
        parent.join(30)
        assert parent.exitcode == 0
        assert wait_until_ended({child}) == set(), "the child outlived its parent"
    finally:
        if alive(child):
            os.kill(child, signal.SIGKILL)
