"""Run a spec with an external command (``runOptions.runtime.cmd``), talking WIPC over its pipes.

The command gets the spec's frames on its stdout and our replies on its stdin, exactly like a
runner spawned by as-test; the same wall-clock limit applies, and the whole process group is
killed when it is exceeded, so a runner's own children (a browser, a node) do not linger.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import shutil
import signal
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path

from astest_tasks.channel import ProtocolChannel
from astest_tasks.guest_run import GuestRun, StderrBuffer

READ_CHUNK = 64 * 1024
KILL_GRACE_S = 2.0


def run_external(
    argv: list[str],
    cwd: Path,
    env: Mapping[str, str],
    channel: ProtocolChannel,
    timeout_s: float,
) -> GuestRun:
    started = time.perf_counter()
    executable = resolve_executable(argv[0], cwd, env)
    if executable is None:
        channel.finish()
        return GuestRun(
            exit_code=1,
            stderr="",
            elapsed_s=time.perf_counter() - started,
            start_failure=(
                f"the runtime command {argv[0]!r} was not found (looked up on PATH, or from the "
                "project root when it contains a /); fix: install it, or correct "
                "runOptions.runtime.cmd in the config"
            ),
        )
    try:
        process = subprocess.Popen(
            [executable, *argv[1:]],
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # its own process group, so a timeout kills all of it
        )
    except OSError as exc:
        channel.finish()
        return GuestRun(
            exit_code=1,
            stderr="",
            elapsed_s=time.perf_counter() - started,
            start_failure=f"could not start the runtime command {argv[0]!r}: {exc}",
        )
    stderr = StderrBuffer()
    try:
        timed_out = _converse(process, channel, stderr, started + timeout_s)
    finally:
        if process.poll() is None:
            _kill_group(process)
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                stream.close()
    channel.finish()
    code = process.wait()
    trap = None
    if code < 0:
        trap = f"killed by signal {signal.Signals(-code).name}"
        code = 128 - code
    return GuestRun(
        exit_code=1 if timed_out else code,
        stderr=stderr.text,
        elapsed_s=time.perf_counter() - started,
        timed_out=timed_out,
        trap="timed out" if timed_out else trap,
    )


def resolve_executable(name: str, cwd: Path, env: Mapping[str, str]) -> str | None:
    if "/" in name:
        path = (cwd / name).resolve()
        return str(path) if path.is_file() and os.access(path, os.X_OK) else None
    return shutil.which(name, path=env.get("PATH", os.defpath))


def _converse(
    process: subprocess.Popen[bytes],
    channel: ProtocolChannel,
    stderr: StderrBuffer,
    deadline: float,
) -> bool:
    """Relay frames and replies until the runtime closes its output; True if time ran out."""
    assert process.stdout is not None and process.stderr is not None and process.stdin is not None
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        selector.register(process.stderr, selectors.EVENT_READ)
        while selector.get_map():
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                return True
            for key, _ in selector.select(timeout=min(remaining, 0.5)):
                data = os.read(key.fd, READ_CHUNK)
                if not data:
                    selector.unregister(key.fileobj)
                elif key.fileobj is process.stdout:
                    channel.write_stdout(data)
                    _send(process, channel.take_replies())
                else:
                    stderr.write(data)
    # Output closed; the process may still be finishing (or hanging without output).
    try:
        process.wait(timeout=max(0.0, deadline - time.perf_counter()))
    except subprocess.TimeoutExpired:
        return True
    return False


def _send(process: subprocess.Popen[bytes], replies: bytes) -> None:
    if not replies or process.stdin is None:
        return
    try:
        process.stdin.write(replies)
        process.stdin.flush()
    except (BrokenPipeError, ValueError):
        pass  # it stopped listening; its exit code and output tell what happened


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        return
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=KILL_GRACE_S)
