"""One compile server process: handshake, JSON-lines requests, time limits, death, shutdown.

Driven against a fake server that speaks the protocol without compiling (tests/fakes); the real
asc_server.mjs is compared with a spawned asc in tests/integration/test_compile_server.py.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from astest_tasks.build.compile_server import (
    CompileOutput,
    CompileServer,
    CompileTimedOut,
    ServerDied,
    ServerUnavailable,
    time_limit_message,
)
from tests.fakes import FAKE_SERVER, processes_mentioning, require_node, wait_until_gone


@pytest.fixture
def server(tmp_path: Path) -> Iterator[CompileServer]:
    started = start(tmp_path)
    yield started
    started.kill()


def start(tmp_path: Path, handshake: str = "asc", limit_s: float = 10.0) -> CompileServer:
    env = {**os.environ, "PROBE": "at-start"}
    return CompileServer(require_node(), tmp_path / handshake, env, limit_s, script=FAKE_SERVER)


def test_a_compile_returns_status_output_and_keeps_the_server(
    server: CompileServer, tmp_path: Path
) -> None:
    output, recycle = server.compile(["ok"], tmp_path, {"PROBE": "per-request"}, 10)
    assert output.exit_code == 0
    assert output.stdout.decode() == f"pid={server.pid} probe=per-request cwd={tmp_path} flags="
    assert output.stderr == b""
    assert recycle is False
    assert server.alive


def test_v8_flags_follow_the_assemblyscript_root_on_the_servers_command_line(
    tmp_path: Path,
) -> None:
    env = dict(os.environ)
    flagged = CompileServer(
        require_node(), tmp_path / "asc", env, 10, script=FAKE_SERVER, v8_flags=["--a", "--b=1"]
    )
    try:
        output, _ = flagged.compile(["ok"], tmp_path, env, 10)
    finally:
        flagged.kill()
    assert output.stdout.decode().endswith(" flags=--a,--b=1")


def test_every_request_carries_its_own_environment_and_directory(
    server: CompileServer, tmp_path: Path
) -> None:
    first, _ = server.compile(["ok"], tmp_path / "a", {"PROBE": "one"}, 10)
    second, _ = server.compile(["ok"], tmp_path / "b", {"PROBE": "two"}, 10)
    assert b"probe=one" in first.stdout and f"cwd={tmp_path / 'a'}".encode() in first.stdout
    assert b"probe=two" in second.stdout and f"cwd={tmp_path / 'b'}".encode() in second.stdout


def test_a_failed_compile_is_an_answer_not_an_error(server: CompileServer, tmp_path: Path) -> None:
    output, _ = server.compile(["fail"], tmp_path, {}, 10)
    assert output.exit_code == 1
    assert output.diagnostics == "ERROR: fake failure\n"
    assert server.alive


def test_diagnostics_are_stderr_then_stdout_like_a_spawned_asc() -> None:
    assert CompileOutput(1, b"printed", b"ERROR \xff\n").diagnostics == "ERROR \ufffd\nprinted"


def test_the_server_may_ask_to_be_retired(server: CompileServer, tmp_path: Path) -> None:
    output, recycle = server.compile(["recycle"], tmp_path, {}, 10)
    assert output.exit_code == 0
    assert recycle is True


def test_a_server_dying_mid_compile_says_so_with_its_last_words(
    server: CompileServer, tmp_path: Path
) -> None:
    with pytest.raises(ServerDied) as caught:
        server.compile(["die"], tmp_path, {}, 10)
    assert f"Node process {server.pid}" in str(caught.value)
    assert "exit status 3" in str(caught.value)
    assert "fake server: last words" in str(caught.value)
    assert not server.alive


def test_a_dead_server_cannot_take_requests(server: CompileServer, tmp_path: Path) -> None:
    os.kill(server.pid, signal.SIGKILL)
    assert wait_until_gone(server.pid)
    with pytest.raises(ServerDied):
        server.compile(["ok"], tmp_path, {}, 10)


def test_the_time_limit_kills_a_compile_that_never_answers(
    server: CompileServer, tmp_path: Path
) -> None:
    with pytest.raises(CompileTimedOut):
        server.compile(["hang"], tmp_path, {}, 0.3)
    assert wait_until_gone(server.pid)
    assert time_limit_message(600.0) == "the compiler did not finish within 600 s"


@pytest.mark.parametrize("reply", ["garbage", "wrong-id"])
def test_a_reply_that_breaks_the_protocol_loses_the_server(
    server: CompileServer, tmp_path: Path, reply: str
) -> None:
    with pytest.raises(ServerDied):
        server.compile([reply], tmp_path, {}, 10)
    assert wait_until_gone(server.pid)


def test_a_server_that_cannot_load_asc_is_unavailable(tmp_path: Path) -> None:
    with pytest.raises(ServerUnavailable, match="fake asc is too old"):
        start(tmp_path, "not-ready")


@pytest.mark.parametrize("handshake", ["exit", "silent"])
def test_no_handshake_means_unavailable_and_no_process_left(tmp_path: Path, handshake: str) -> None:
    with pytest.raises(ServerUnavailable, match="no handshake"):
        start(tmp_path, handshake, limit_s=1.0)
    assert processes_mentioning(str(tmp_path)) == []


def test_a_missing_node_is_unavailable(tmp_path: Path) -> None:
    with pytest.raises(ServerUnavailable, match="could not start"):
        CompileServer(str(tmp_path / "no-node"), tmp_path, {}, script=FAKE_SERVER)


def test_close_lets_the_server_exit_on_end_of_input(server: CompileServer) -> None:
    server.close()
    assert server.returncode == 0  # exited by itself, not killed
