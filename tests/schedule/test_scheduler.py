"""The scheduler makes its compile pool on the first compile asked of it, once, and a child
forked before that still gets the compile server its parent shared."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, cast

from astest_tasks.schedule.scheduler import Scheduler


class StandInShared:
    """A shared compile server as far as the scheduler looks at one."""

    usable = True


def test_one_pool_however_many_threads_ask_for_the_first_compile(tmp_path: Path) -> None:
    planner = Scheduler(tmp_path / "server.mjs")
    start = threading.Barrier(8)
    pools: list[object] = []

    def ask() -> None:
        start.wait()
        pools.append(planner.compile_pool)

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(pools) == 8 and all(pool is pools[0] for pool in pools)
    planner.close()


def test_a_child_forked_before_any_compile_keeps_the_shared_server(tmp_path: Path) -> None:
    shared = StandInShared()
    parent = Scheduler(tmp_path / "server.mjs", cast(Any, shared))
    child = parent.forked()
    # Handed on although no pool was made in the parent.
    assert cast(object, child._shared) is shared
    gone = StandInShared()
    gone.usable = False
    assert Scheduler(tmp_path / "s.mjs", cast(Any, gone)).forked()._shared is None
