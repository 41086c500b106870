"""HarnessServer: each run's page, wasm and helper, and its stdout/stdin relay, over real HTTP."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from astest_tasks.run.channel import ProtocolChannel
from astest_tasks.run.web_server import MAX_REQUEST_BYTES, HarnessServer, WebExit, WebRun
from astest_tasks.run.wipc import FrameType, encode_frame


@pytest.fixture
def server() -> Iterator[HarnessServer]:
    harness = HarnessServer()
    yield harness
    harness.close()


@pytest.fixture
def run(tmp_path: Path) -> WebRun:
    (tmp_path / "x.spec.wasm").write_bytes(b"\0asm\1\0\0\0")
    (tmp_path / "x.spec.js").write_text("export async function instantiate() {}\n")
    return WebRun(tmp_path / "x.spec.wasm", tmp_path / "x.spec.js", ProtocolChannel(None))


def fetch(url: str, body: bytes | None = None) -> tuple[int, bytes, str]:
    request = urllib.request.Request(url, data=body, method="POST" if body is not None else "GET")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read(), response.headers["Content-Type"]
    except urllib.error.HTTPError as error:
        return error.code, error.read(), error.headers["Content-Type"]


def test_serves_the_page_worker_wasm_and_helper_of_a_run(
    server: HarnessServer, run: WebRun
) -> None:
    page = server.origin + server.register(run) + "/"
    assert page.startswith("http://127.0.0.1:")
    status, html, kind = fetch(server.origin + "/")
    assert status == 200 and b"new Worker" in html and kind.startswith("text/html")
    assert fetch(server.origin + "/worker.js")[2] == "text/javascript"
    assert fetch(page + "spec.wasm") == (200, b"\0asm\1\0\0\0", "application/wasm")
    assert fetch(page + "helper.js")[1].startswith(b"export async function instantiate")


def test_stdout_feeds_the_channel_and_stdin_returns_its_replies(
    server: HarnessServer, run: WebRun
) -> None:
    page = server.origin + server.register(run) + "/"
    question = {"kind": "snapshot:assert", "key": "x.spec.ts::t", "actual": '"v"'}
    frame = encode_frame(FrameType.CALL, json.dumps(question).encode())
    assert fetch(page + "stdout", frame)[0] == 200
    reply = encode_frame(FrameType.CALL, b'1\n"v"')
    assert fetch(page + "stdin?max=4", b"")[1] == reply[:4]  # no more than asked for
    assert fetch(page + "stdin?max=4096", b"")[1] == reply[4:]
    assert fetch(page + "stdin?max=4096", b"")[1] == b""  # nothing queued: an empty read


def test_exit_ends_the_run_once_with_its_code_kind_and_message(
    server: HarnessServer, run: WebRun
) -> None:
    page = server.origin + server.register(run) + "/"
    fetch(page + "stderr", b"warned\n")
    fetch(page + "exit?code=1&kind=trap", b"RuntimeError: unreachable")
    fetch(page + "exit?code=0", b"")  # a second word changes nothing
    assert run.finished.is_set()
    assert run.exit == WebExit(1, "trap", "RuntimeError: unreachable")
    assert run.stderr.text == "warned\n"


def test_a_forgotten_run_is_gone_for_a_page_left_behind(server: HarnessServer, run: WebRun) -> None:
    base = server.register(run)
    page = server.origin + base + "/"
    server.forget(base)
    assert fetch(page + "stdout", b"late output")[0] == 410
    assert run.channel.output_bytes_total == 0
    assert fetch(server.origin + "/run/not-a-token/", None)[0] == 410


def test_a_request_past_the_size_limit_is_refused(server: HarnessServer, run: WebRun) -> None:
    page = server.origin + server.register(run) + "/"
    request = urllib.request.Request(page + "stdout", data=b"x", method="POST")
    request.add_header("Content-Length", str(MAX_REQUEST_BYTES + 1))
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    refused.value.close()  # the error holds the response, and its socket, until it is closed
    assert refused.value.code == 413


def test_an_unreadable_exit_code_counts_as_a_failure(server: HarnessServer, run: WebRun) -> None:
    page = server.origin + server.register(run) + "/"
    fetch(page + "exit?code=x", b"")
    assert run.exit is not None and run.exit.code == 1


def test_output_past_the_limit_ends_the_run_at_once_and_refuses_the_request(
    server: HarnessServer, tmp_path: Path
) -> None:
    (tmp_path / "x.spec.wasm").write_bytes(b"\0asm\1\0\0\0")
    limited = WebRun(
        tmp_path / "x.spec.wasm", tmp_path / "x.spec.js", ProtocolChannel(None, output_limit=10)
    )
    page = server.origin + server.register(limited) + "/"
    assert fetch(page + "stdout", b"x" * 11)[0] == 413
    assert limited.finished.is_set()  # no deadlock on the run's own lock
    assert limited.exit == WebExit(1, "limit", "the output limit was passed")
