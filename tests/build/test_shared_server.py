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
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from astest_tasks.build import compile_pool
from astest_tasks.build.compile_pool import CompilePool
from tests.fakes import FAKE_SERVER, is_running, require_node, wait_until_gone


@pytest.fixture
def process_pool(monkeypatch: pytest.MonkeyPatch) -> Iterator[CompilePool]:
    """This process's pool, serving from the fake server: what a forked child inherits."""
    created = CompilePool(script=FAKE_SERVER)
    monkeypatch.setattr(compile_pool, "_pool", created)
    yield created
    compile_pool.shutdown()


def compile_in_this_process(root: Path, what: str, cwd: Path) -> dict[str, object]:
    output = compile_pool.current_pool().compile(
        require_node(), root / "asc", [what], cwd, dict(os.environ), 10
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


def finished(child: int, report: Path) -> object:
    _, status = os.waitpid(child, 0)
    result = json.loads(report.read_text())
    assert os.waitstatus_to_exitcode(status) == 0, result
    return result


def share(pool: CompilePool, root: Path) -> int:
    assert pool.share(require_node(), root / "asc", ["ok"], dict(os.environ))
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


def test_a_reply_left_by_a_worker_that_died_mid_compile_is_not_taken_for_another(
    process_pool: CompilePool, tmp_path: Path
) -> None:
    shared_pid = share(process_pool, tmp_path)
    # A worker sent this request and died before reading the reply, which the server still sent.
    orphan = {"id": "1:1", "argv": ["ok"], "cwd": str(tmp_path), "env": dict(os.environ)}
    server = process_pool._shared.server  # type: ignore[union-attr]
    server._send(json.dumps(orphan).encode() + b"\n")
    stdout = server._proc.stdout
    assert stdout is not None
    assert select.select([stdout], [], [], 10)[0], "the fake server never answered"
    report = tmp_path / "next.json"
    result = finished(
        in_child(report, lambda: compile_in_this_process(tmp_path, "ok", tmp_path)), report
    )
    assert result["exit"] == 0  # type: ignore[index]
    assert result["pid"] != shared_pid  # type: ignore[index]  # retried on a server of its own
    assert wait_until_gone(shared_pid)  # and the broken one was ended


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


def test_a_worker_killed_while_compiling_does_not_block_the_others(
    process_pool: CompilePool, tmp_path: Path
) -> None:
    share(process_pool, tmp_path)
    stuck = in_child(
        tmp_path / "stuck.json", lambda: compile_in_this_process(tmp_path, "hang", tmp_path)
    )
    # The stuck worker holds its turn until it dies: the next one gets the lock, meets the
    # orphaned request's server (killed by nobody yet) or its own, and finishes either way.
    os.kill(stuck, signal.SIGKILL)
    os.waitpid(stuck, 0)
    report = tmp_path / "next.json"
    result = finished(
        in_child(report, lambda: compile_in_this_process(tmp_path, "ok", tmp_path)), report
    )
    assert result["exit"] == 0  # type: ignore[index]


def test_the_owner_ends_the_server_and_its_lock_file_and_a_worker_only_lets_go(
    process_pool: CompilePool, tmp_path: Path
) -> None:
    shared_pid = share(process_pool, tmp_path)
    lock_file = process_pool._shared.lock_path  # type: ignore[union-attr]
    report = tmp_path / "closed.json"

    def close_in_worker() -> str:
        compile_pool.shutdown()
        return "closed"

    finished(in_child(report, close_in_worker), report)
    assert is_running(shared_pid)
    assert lock_file.exists()
    process_pool.close()
    assert wait_until_gone(shared_pid)
    assert not lock_file.exists()


def test_sharing_again_with_the_server_alive_keeps_it(
    process_pool: CompilePool, tmp_path: Path
) -> None:
    # Watch mode makes the tasks again every cycle: its workers keep the warm server.
    shared_pid = share(process_pool, tmp_path)
    assert share(process_pool, tmp_path) == shared_pid
