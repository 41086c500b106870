"""One persistent asc: a Node process running ``asc_server.mjs``, spoken to in JSON lines.

A spawned ``node asc.js`` pays Node's start-up and asc's module loading (about 0.5 s, more on a
busy machine) for every spec; a warm process only pays for the compile. This module owns one such
process: start and handshake, one request at a time, time limit, shutdown. Which process serves
which build, retries and process lifetime are ``compile_pool``'s business.

The protocol is described at the top of ``asc_server.mjs``. The child's stdin is a pipe from us,
so it exits on end of file when we close it or when we die, however we die.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import select
import signal
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from astest_tasks.core.frozen import frozen
from astest_tasks.core.json_text import parse_json

SERVER_SCRIPT = Path(__file__).with_name("asc_server.mjs")
PROTOCOL = 1
START_TIME_LIMIT_S = 60.0
SHUTDOWN_GRACE_S = 2.0
_LAST_WORDS_BYTES = 4000


@frozen
class CompileOutput:
    """What a compile left behind, as a spawned asc reports it: exit status and its output."""

    exit_code: int
    stdout: bytes
    stderr: bytes

    @property
    def diagnostics(self) -> str:
        # asc writes its diagnostics to stderr; stdout only carries what a transform printed.
        return _decode(self.stderr) + _decode(self.stdout)


class ServerUnavailable(Exception):
    """The server could not be started (Node or asc too old, a broken install): spawn instead."""


class ServerDied(Exception):
    """The server process ended (or broke the protocol) before it answered."""


class CompileTimedOut(Exception):
    """The compile did not finish within its time limit; the server has been killed."""


def time_limit_message(limit_s: float) -> str:
    return f"the compiler did not finish within {limit_s:.0f} s"


class CompileServer:
    """One Node process serving asc compiles, used by one thread at a time."""

    def __init__(
        self,
        node: str,
        asc_root: Path,
        env: Mapping[str, str],
        start_limit_s: float = START_TIME_LIMIT_S,
        script: Path = SERVER_SCRIPT,
        v8_flags: Sequence[str] = (),
        node_options: Sequence[str] = (),
    ) -> None:
        # The server's own stderr (what it says outside a compile, such as why it died) goes to a
        # file rather than a pipe nobody drains; it lives as long as the server.
        self._log: IO[bytes] = tempfile.TemporaryFile(prefix="astest-asc-server-")  # noqa: SIM115
        self._buffer = b""
        self._next_id = 0
        # A server may be shared with processes forked from ours (shared_server.py): they cannot
        # wait for it (it is not their child), and their requests need ids of their own.
        self._owner_pid = os.getpid()
        try:
            self._proc = subprocess.Popen(
                # node_options go before the script: V8 reads them before any script runs (heap
                # sizes); v8_flags are set by the script itself, before asc loads.
                # --enable-source-maps: asc's own bin/asc.js re-runs Node with it, so crash
                # reports name the same source lines as a spawned asc's.
                [
                    node,
                    *node_options,
                    "--enable-source-maps",
                    str(script),
                    str(asc_root),
                    *v8_flags,
                ],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._log,
                env=dict(env),
                bufsize=0,
            )
        except OSError as exc:
            self._log.close()
            raise ServerUnavailable(f"could not start {node}: {exc}") from exc
        try:
            hello = self._read_message(time.monotonic() + start_limit_s)
        except (ServerDied, CompileTimedOut) as exc:
            self.kill()
            raise ServerUnavailable(f"no handshake from the compile server: {exc}") from exc
        if hello.get("protocol") != PROTOCOL or hello.get("ready") is not True:
            self.kill()
            reason = hello.get("error") or f"unexpected handshake {hello!r}"
            raise ServerUnavailable(f"the compile server did not start: {reason}")
        self.asc_version = str(hello.get("asc", ""))

    @property
    def pid(self) -> int:
        return self._proc.pid

    @property
    def alive(self) -> bool:
        """Whether it still runs; in a forked process only a request tells (shared_server.py)."""
        return self._proc.poll() is None if self._is_ours else True

    @property
    def _is_ours(self) -> bool:
        return os.getpid() == self._owner_pid

    @property
    def returncode(self) -> int | None:
        return self._proc.poll()

    def compile(
        self, argv: Sequence[str], cwd: Path, env: Mapping[str, str], limit_s: float
    ) -> tuple[CompileOutput, bool]:
        """Run one asc ``main(argv)``; returns the output and whether to retire this server."""
        self._next_id += 1
        # Unique across the processes that may share this server: a reply left by a process that
        # died mid-compile must never pass for another process's.
        request_id = f"{os.getpid()}:{self._next_id}"
        request = {"id": request_id, "argv": list(argv), "cwd": str(cwd), "env": dict(env)}
        self._send(json.dumps(request).encode("utf-8") + b"\n")
        try:
            reply = self._read_message(time.monotonic() + limit_s)
        except CompileTimedOut:
            self.kill()
            raise
        if reply.get("id") != request_id:
            raise self._died(f"it answered out of turn: {reply!r:.200}")
        try:
            output = CompileOutput(
                exit_code=int(reply["status"]),
                stdout=base64.b64decode(reply["stdout"]),
                stderr=base64.b64decode(reply["stderr"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise self._died(f"its reply was unreadable ({exc})") from exc
        return output, bool(reply.get("recycle"))

    def close(self, grace_s: float = SHUTDOWN_GRACE_S) -> None:
        """Ask the server to exit (end of file on its stdin); kill it if it does not."""
        self.begin_close()
        self.finish_close(grace_s)

    def begin_close(self) -> None:
        # Split from finish_close so that several servers can be told at once and waited for
        # together, rather than one grace period after another.
        with contextlib.suppress(OSError):
            self._stdin.close()

    def finish_close(self, grace_s: float = SHUTDOWN_GRACE_S) -> None:
        try:
            self._proc.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            self.kill()
        self._release_files()

    def kill(self) -> None:
        if not self._is_ours:
            # Popen would take "not my child" for "already exited" and send nothing; the owner
            # reaps it.
            with contextlib.suppress(OSError):
                os.kill(self.pid, signal.SIGKILL)
            self.abandon()
            return
        with contextlib.suppress(OSError):
            self._proc.kill()
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            self._proc.wait(timeout=SHUTDOWN_GRACE_S)
        with contextlib.suppress(OSError):
            self._stdin.close()
        self._release_files()

    def _died(self, reason: str) -> ServerDied:
        """Kill what is left of the server and say why it is lost, with its last words."""
        words = self._last_words()
        self.kill()
        exit_code = self._proc.returncode
        status = f" (exit status {exit_code})" if exit_code is not None else ""
        message = f"the compile server (Node process {self.pid}) is lost{status}: {reason}"
        return ServerDied(f"{message}\n{words}" if words else message)

    def _last_words(self) -> str:
        """The tail of what the server printed outside any compile (why it died, usually)."""
        # pread: the log's file offset is shared with the server's own stderr (and with the
        # workers of a shared server); moving it would make the server write over its words.
        try:
            log = self._log.fileno()
            size = os.fstat(log).st_size
            start = max(0, size - _LAST_WORDS_BYTES)
            return _decode(os.pread(log, size - start, start)).strip()
        except (OSError, ValueError):
            return ""

    def abandon(self) -> None:
        """In a forked child: drop our copies of the pipes, leave the process to its owner.

        Holding the write end of its stdin would keep the parent's server alive after the parent
        is gone.
        """
        with contextlib.suppress(OSError):
            self._stdin.close()
        self._release_files()

    # -- framing -------------------------------------------------------------------------------
    @property
    def _stdin(self) -> IO[bytes]:
        assert self._proc.stdin is not None
        return self._proc.stdin

    def _send(self, data: bytes) -> None:
        view = memoryview(data)
        try:
            while view:
                written = os.write(self._stdin.fileno(), view)
                view = view[written:]
        except (OSError, ValueError) as exc:  # EPIPE, or our end already closed
            raise self._died(f"it no longer reads requests ({exc})") from exc

    def _read_message(self, deadline: float) -> dict[str, Any]:
        line = self._read_line(deadline)
        try:
            message = parse_json(line)
        except ValueError as exc:
            raise self._died(f"it wrote {line[:200]!r}") from exc
        if not isinstance(message, dict):
            raise self._died(f"it wrote {line[:200]!r}")
        return message

    def _read_line(self, deadline: float) -> bytes:
        assert self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise CompileTimedOut("no answer in time")
            ready, _, _ = select.select([fd], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise self._died("it exited")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def _release_files(self) -> None:
        with contextlib.suppress(OSError):
            if self._proc.stdout is not None:
                self._proc.stdout.close()
        with contextlib.suppress(OSError):
            self._log.close()


def _decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")
