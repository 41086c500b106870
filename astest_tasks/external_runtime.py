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
from typing import IO

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
        return GuestRun.not_started(
            f"the runtime command {argv[0]!r} was not found (looked up on PATH, or from the "
            "project root when it contains a /); fix: install it, or correct "
            "runOptions.runtime.cmd in the config",
            started,
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
        return GuestRun.not_started(
            f"could not start the runtime command {argv[0]!r}: {exc}", started
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
        # abspath, not resolve: a venv's python or a node_modules/.bin link must keep the name
        # it was called by, which decides how it behaves.
        path = os.path.abspath(cwd / name)
        return path if os.path.isfile(path) and os.access(path, os.X_OK) else None
    return shutil.which(name, path=env.get("PATH", os.defpath))


def _converse(
    process: subprocess.Popen[bytes],
    channel: ProtocolChannel,
    stderr: StderrBuffer,
    deadline: float,
) -> bool:
    """Relay frames and replies until the runtime closes its output; True if time ran out.

    Replies are written without blocking, when the runtime's stdin has room: a runtime that stops
    reading must not stall us past the deadline.
    """
    assert process.stdout is not None and process.stderr is not None and process.stdin is not None
    stdin_fd = process.stdin.fileno()
    os.set_blocking(stdin_fd, False)
    pending = bytearray()
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        selector.register(process.stderr, selectors.EVENT_READ)
        while any(key.events & selectors.EVENT_READ for key in selector.get_map().values()):
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                return True
            for key, _events in selector.select(timeout=min(remaining, 0.5)):
                if key.fd == stdin_fd:
                    _write_some(stdin_fd, pending)
                else:
                    data = os.read(key.fd, READ_CHUNK)
                    if not data:
                        selector.unregister(key.fileobj)
                    elif key.fileobj is process.stdout:
                        channel.write_stdout(data)
                        if channel.over_limit:
                            return False  # the caller kills it; the verdict names the limit
                        pending += channel.take_replies()
                        _write_some(stdin_fd, pending)
                    else:
                        stderr.write(data)
            _watch_stdin(selector, process.stdin, wanted=bool(pending))
    # Output closed; the process may still be finishing (or hanging without output).
    try:
        process.wait(timeout=max(0.0, deadline - time.perf_counter()))
    except subprocess.TimeoutExpired:
        return True
    return False


def _write_some(fd: int, pending: bytearray) -> None:
    """Write what the pipe takes now; on a closed pipe, drop the rest (the runtime is gone)."""
    while pending:
        try:
            written = os.write(fd, pending)
        except BlockingIOError:
            return
        except (BrokenPipeError, OSError):
            pending.clear()  # it stopped listening; its exit code and output tell what happened
            return
        del pending[:written]


def _watch_stdin(selector: selectors.BaseSelector, stdin: IO[bytes], *, wanted: bool) -> None:
    registered = stdin in {key.fileobj for key in selector.get_map().values()}
    if wanted and not registered:
        selector.register(stdin, selectors.EVENT_WRITE)
    elif not wanted and registered:
        selector.unregister(stdin)


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        return
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=KILL_GRACE_S)
