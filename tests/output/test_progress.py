"""finished_count: one count of finished specs per doit invocation, shared by its workers."""

from __future__ import annotations

import multiprocessing
import threading
from pathlib import Path

import pytest

from astest_tasks.output.progress import finished_count
from tests.fifo_guard import fifo_symlink, without_waiting

SESSION = "a" * 32


def count_once(counter: Path, session: str, seen: list[int]) -> None:
    with finished_count(counter, session) as finished:
        assert finished is not None
        seen.append(finished)


def _count_in_process(
    counter: str, session: str, times: int, queue: multiprocessing.Queue[int | None]
) -> None:
    for _ in range(times):
        with finished_count(Path(counter), session) as finished:
            queue.put(finished)


def test_counts_from_one_in_order(tmp_path: Path) -> None:
    seen: list[int] = []
    for _ in range(3):
        count_once(tmp_path / "cache" / "progress.json", SESSION, seen)
    assert seen == [1, 2, 3]


def test_a_new_session_starts_again_from_one(tmp_path: Path) -> None:
    counter = tmp_path / "progress.json"
    seen: list[int] = []
    count_once(counter, SESSION, seen)
    count_once(counter, SESSION, seen)
    count_once(counter, "b" * 32, seen)
    assert seen == [1, 2, 1]


@pytest.mark.parametrize("left_behind", ["", "{not json", '{"session": 3}', "[1, 2]"])
def test_a_torn_or_foreign_counter_file_is_a_fresh_start(tmp_path: Path, left_behind: str) -> None:
    counter = tmp_path / "progress.json"
    counter.write_text(left_behind)
    seen: list[int] = []
    count_once(counter, SESSION, seen)
    assert seen == [1]


def test_workers_in_several_processes_each_get_a_distinct_number(tmp_path: Path) -> None:
    counter = tmp_path / "progress.json"
    queue: multiprocessing.Queue[int | None] = multiprocessing.Queue()
    workers = [
        multiprocessing.Process(target=_count_in_process, args=(str(counter), SESSION, 25, queue))
        for _ in range(4)
    ]
    for worker in workers:
        worker.start()
    numbers = [queue.get(timeout=30) for _ in range(100)]
    for worker in workers:
        worker.join(30)
        assert worker.exitcode == 0
    assert None not in numbers
    assert sorted(n for n in numbers if n is not None) == list(range(1, 101))


def test_threads_each_get_a_distinct_number(tmp_path: Path) -> None:
    counter = tmp_path / "progress.json"
    seen: list[int] = []

    def count_25() -> None:
        for _ in range(25):
            count_once(counter, SESSION, seen)

    threads = [threading.Thread(target=count_25) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(seen) == list(range(1, 101))


def test_an_unusable_folder_gives_no_count_instead_of_failing(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    with finished_count(blocker / "cache" / "progress.json", SESSION) as finished:
        assert finished is None


def test_a_counter_linked_to_a_fifo_is_a_fresh_start_never_waited_on(tmp_path: Path) -> None:
    counter = tmp_path / "cache" / "progress.json"
    fifo = fifo_symlink(counter)
    seen: list[int] = []
    without_waiting(lambda: count_once(counter, SESSION, seen), fifo)
    count_once(counter, SESSION, seen)
    assert seen == [1, 2]
    assert not counter.is_symlink(), "replaced by our own counter"


def test_a_lock_linked_elsewhere_is_neither_created_nor_opened_there(tmp_path: Path) -> None:
    """A committed symlink in the lock's place gives no count, never a file outside."""
    counter = tmp_path / "project" / "cache" / "progress.json"
    counter.parent.mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere.lock"
    counter.with_name("progress.json.lock").symlink_to(elsewhere)
    with finished_count(counter, SESSION) as finished:
        assert finished is None
    assert not elsewhere.exists()
