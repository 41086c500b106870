"""The scheduler makes its compile pool on the first compile asked of it, once, and a child
forked before that still gets the compile server its parent shared."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import pytest

from astest_tasks.remote import session
from astest_tasks.schedule.scheduler import Scheduler


class StandInShared:
    """A shared compile server as far as the scheduler looks at one."""

    usable = True


def asked_at_once(ask: Callable[[], object], threads: int = 8) -> list[object]:
    """What ``ask`` returned in each of ``threads`` threads let go at the same moment."""
    start = threading.Barrier(threads)
    answers: list[object] = []

    def one() -> None:
        start.wait()
        answers.append(ask())

    running = [threading.Thread(target=one) for _ in range(threads)]
    for thread in running:
        thread.start()
    for thread in running:
        thread.join()
    return answers


def test_one_pool_however_many_threads_ask_for_the_first_compile(tmp_path: Path) -> None:
    planner = Scheduler(tmp_path / "server.mjs")
    pools = asked_at_once(lambda: planner.compile_pool)
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


def test_one_remote_session_however_many_threads_ask_for_it_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[object] = []
    second = threading.Event()

    class WaitingSession(session.RemoteSession):
        """Holds the first one made until a second is made beside it, or a second has passed:
        without the scheduler's lock the other threads' checks all see no session yet."""

        def __init__(self) -> None:
            made.append(self)
            if len(made) > 1:
                second.set()
            second.wait(timeout=1)
            super().__init__()

    monkeypatch.setattr(session, "RemoteSession", WaitingSession)
    planner = Scheduler(tmp_path / "server.mjs")
    sessions = asked_at_once(lambda: planner.remote)
    assert len(made) == 1
    assert len(sessions) == 8 and all(item is made[0] for item in sessions)
    planner.close()


class BrokenPrefetcher:
    """A prefetcher whose every start fails, as a thread that cannot start would."""

    def start_after_build(self, *args: object) -> bool:
        raise RuntimeError("can't start new thread")

    def start_after(self, *args: object) -> bool:
        raise RuntimeError("can't start new thread")

    def close(self) -> None:
        pass


def test_a_head_start_that_fails_fails_neither_the_build_nor_the_run(tmp_path: Path) -> None:
    planner = Scheduler(tmp_path / "server.mjs")
    planner.prefetcher = cast(Any, BrokenPrefetcher())
    planner.compiled(cast(Any, object()))  # returns: the build goes on
    assert planner.compile_next("astest", "wasi", "a") is False
    planner.close()
