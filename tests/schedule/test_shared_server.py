"""One compile server for doit's forked workers: shared, taken in turns, lost safely, ended once.

Driven against the fake server in tests/fakes (its argv[0] says how to behave), with real
forked processes standing in for doit's workers; each child reports through a file.
"""

from __future__ import annotations

import functools
import json
import os
import select
import signal
from collections.abc import Callable
from pathlib import Path

import pytest

from astest_tasks.schedule import shared_server
from astest_tasks.schedule.compile_pool import CompilePool
from astest_tasks.schedule.scheduler import scheduler
from tests.fakes import is_running, require_node, wait_until_gone


def compile_in_this_process(
    root: Path, what: str, cwd: Path, asc: str = "asc"
) -> dict[str, object]:
    output = scheduler().compile_pool.compile(
        require_node(), root / asc, [what], cwd, dict(os.environ), 10
    )
    assert output is not None
    text = output.stdout.decode()
    return {
        "exit": output.exit_code,
        "pid": int(text.split()[0].removeprefix("pid=")),
        "text": text,
    }


def in_child(report: Path, work: Callable[[], object]) -> int:
    """Fork; the child does ``work`` and writes its JSON result to ``report``. Returns its pid."""
    child = os.fork()
    if child == 0:  # pragma: no cover - the child reports through the file and its exit status
        code = 0
        try:
            report.write_text(json.dumps(work()))
        except BaseException as exc:  # anything: written where the test reads it
            report.write_text(json.dumps({"error": repr(exc)}))
            code = 1
        os._exit(code)
    return child


def finished(child: int, report: Path, timeout_s: float = 60) -> object:
    """The child's result, once it has exited; a child still running after ``timeout_s`` (one
    stuck where it should have gone on) is killed and fails the test instead of hanging it."""
    handle = os.pidfd_open(child)
    try:
        if not select.select([handle], [], [], timeout_s)[0]:
            os.kill(child, signal.SIGKILL)
            os.waitpid(child, 0)
            pytest.fail(f"the worker was still waiting after {timeout_s} s")
    finally:
        os.close(handle)
    _, status = os.waitpid(child, 0)
    result = json.loads(report.read_text())
    assert os.waitstatus_to_exitcode(status) == 0, result
    return result


def share(pool: CompilePool, root: Path, asc: str = "asc") -> int:
    assert pool.share(require_node(), root / asc, ["ok"], dict(os.environ))
    pid = pool.shared_server_pid
    assert pid is not None
    return pid


def test_workers_forked_after_a_share_compile_on_that_one_server(
    process_pool: CompilePool, tmp_path: Path
) -> None:
    shared_pid = share(process_pool, tmp_path)
    children = [
        (
            in_child(
                tmp_path / f"{n}.json", lambda: compile_in_this_process(tmp_path, "ok", tmp_path)
            ),
            tmp_path / f"{n}.json",
        )
        for n in range(2)
    ]
    results = [finished(child, report) for child, report in children]
    assert [result["pid"] for result in results] == [shared_pid, shared_pid]  # type: ignore[index]
    assert process_pool.server_pids == []  # the parent started no server of its own
    assert is_running(shared_pid)  # the workers only dropped their copies of its pipes


def test_workers_take_turns_and_every_reply_reaches_the_compile_that_asked(
    process_pool: CompilePool, tmp_path: Path
) -> None:
    # Without the turns, two workers' requests and replies would cross in the shared pipes: a
    # worker would read the other's reply, see a foreign id and go on with a server of its own.
    shared_pid = share(process_pool, tmp_path)

    def many(folder: Path) -> list[str]:
        folder.mkdir()
        return [
            str(compile_in_this_process(tmp_path, what, folder)["text"])
            for what in ["sleep:15", "ok"] * 8
        ]

    children = [
        (
            in_child(tmp_path / f"{name}.json", functools.partial(many, tmp_path / name)),
            tmp_path / f"{name}.json",
        )
        for name in ("a", "b")
    ]
    for (child, report), name in zip(children, ("a", "b"), strict=True):
        texts = finished(child, report)
        assert isinstance(texts, list) and len(texts) == 16
        for text in texts:
            assert text.startswith(f"pid={shared_pid} ") and f"cwd={tmp_path / name} " in text


def test_a_reply_to_another_process_is_never_taken_for_this_one(
    process_pool: CompilePool, tmp_path: Path
) -> None:
    shared_pid = share(process_pool, tmp_path)
    # A request another process sent, numbered as the next worker's first request would be if
    # ids were only counters: its reply reaches the pipes first.
    other = tmp_path / "other"
    other.mkdir()
    server = process_pool._shared.server  # type: ignore[union-attr]
    orphan = {"id": str(server._next_id + 1), "argv": ["ok"], "cwd": str(other), "env": {}}
    server._send(json.dumps(orphan).encode() + b"\n")
    stdout = server._proc.stdout
    assert stdout is not None
    assert select.select([stdout], [], [], 10)[0], "the fake server never answered"
    report = tmp_path / "next.json"
    worker = in_child(report, lambda: compile_in_this_process(tmp_path, "ok", tmp_path))
    result = finished(worker, report)
    assert result["exit"] == 0  # type: ignore[index]
    assert f"cwd={tmp_path} " in str(result["text"])  # type: ignore[index]  # its own reply
    assert result["pid"] != shared_pid  # type: ignore[index]  # retried on a server of its own
    assert wait_until_gone(shared_pid)  # and the broken one was ended


def hold_the_turn_until_killed(root: Path, asc: str) -> int:
    """A worker whose compile never ends; returns its pid once the server has its request."""
    told = root / "told"
    os.mkfifo(told)
    worker = in_child(
        root / "stuck.json",
        lambda: compile_in_this_process(root, f"hang-telling:{told}", root, asc),
    )
    with told.open("rb") as fifo:  # opens once the server has the request, in the worker's turn
        assert fifo.read() == b"received"
    return worker


def test_a_worker_that_died_mid_compile_is_not_waited_for(
    process_pool: CompilePool, tmp_path: Path
) -> None:
    # The real server answers in order: the next request would wait behind the dead worker's,
    # which never ends, until its own time limit. The mark the dead worker left says so first.
    shared_pid = share(process_pool, tmp_path, "serial")
    stuck = hold_the_turn_until_killed(tmp_path, "serial")
    os.kill(stuck, signal.SIGKILL)
    os.waitpid(stuck, 0)
    report = tmp_path / "next.json"
    worker = in_child(report, lambda: compile_in_this_process(tmp_path, "ok", tmp_path, "serial"))
    result = finished(worker, report)
    assert result["exit"] == 0, result  # type: ignore[index]  # not its time limit
    assert result["pid"] != shared_pid  # type: ignore[index]
    assert wait_until_gone(shared_pid)


def test_a_worker_waiting_too_long_for_its_turn_goes_on_with_its_own_server(
    process_pool: CompilePool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared_pid = share(process_pool, tmp_path)
    stuck = hold_the_turn_until_killed(tmp_path, "asc")
    try:
        monkeypatch.setattr(shared_server, "TURN_WAIT_S", 0.2)  # inherited by the next worker
        report = tmp_path / "next.json"
        worker = in_child(report, lambda: compile_in_this_process(tmp_path, "ok", tmp_path))
        result = finished(worker, report)
        assert result["exit"] == 0 and result["pid"] != shared_pid  # type: ignore[index]
        assert is_running(shared_pid)  # still the stuck worker's: not killed by the one that left
    finally:
        os.kill(stuck, signal.SIGKILL)
        os.waitpid(stuck, 0)


def test_a_server_one_worker_retires_is_replaced_in_the_others(
    process_pool: CompilePool, tmp_path: Path
) -> None:
    shared_pid = share(process_pool, tmp_path)
    first = tmp_path / "first.json"
    retired = finished(
        in_child(first, lambda: compile_in_this_process(tmp_path, "recycle", tmp_path)), first
    )
    assert retired["pid"] == shared_pid  # type: ignore[index]
    assert wait_until_gone(shared_pid)
    second = tmp_path / "second.json"
    after = finished(
        in_child(second, lambda: compile_in_this_process(tmp_path, "ok", tmp_path)), second
    )
    assert after["exit"] == 0 and after["pid"] != shared_pid  # type: ignore[index]
    assert process_pool.shared_server_pid is None  # the owner sees the loss too


def test_the_owner_ends_the_server_and_a_worker_only_lets_go(
    process_pool: CompilePool, tmp_path: Path
) -> None:
    shared_pid = share(process_pool, tmp_path)
    report = tmp_path / "closed.json"

    def close_in_worker() -> str:
        scheduler().compile_pool.close()
        return "closed"

    finished(in_child(report, close_in_worker), report)
    assert is_running(shared_pid)
    process_pool.close()
    assert wait_until_gone(shared_pid)


def test_sharing_again_with_the_server_alive_keeps_it(
    process_pool: CompilePool, tmp_path: Path
) -> None:
    # Watch mode makes the tasks again every cycle: its workers keep the warm server.
    shared_pid = share(process_pool, tmp_path)
    assert share(process_pool, tmp_path) == shared_pid
