"""The external runtime: a command (``runOptions.runtime.cmd``) run as a subprocess per spec,
talking WIPC over its stdio.

The command gets the spec's frames on its stdout and our replies on its stdin, exactly like a
runner spawned by as-test; the same wall-clock limit applies, and the whole process group is
killed when it is exceeded, so a runner's own children (a browser, a node) do not linger.

Its stdin, stdout and stderr are the ends of three Unix socket pairs, not OS pipes, because that
is what as-test gives a runtime: Node's ``child_process.spawn`` with ``stdio: "pipe"`` makes
socket pairs on Unix. The stock Node runners depend on it: once Node has touched
``process.stdout`` the descriptor is non-blocking, and as-test 1.0.7's runner sends each frame
with one ``fs.writeSync`` and drops whatever a short write leaves. A pipe takes 64 KiB at once,
so a bigger report arrived cut short; a socket's send buffer is larger, and we ask for as large
as the system allows (``net.core.wmem_max``), so a report that fits arrives whole however busy
this process is when the runner writes it.
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import selectors
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from astest_tasks.core.frozen import frozen
from astest_tasks.core.parent_bond import killed_with_this_thread
from astest_tasks.core.setup_checks import Check, Level
from astest_tasks.run.runtime import RuntimeDefaults
from astest_tasks.run.runtime_request import RuntimeRequest, normalise_path

if TYPE_CHECKING:
    from astest_tasks.run.channel import ProtocolChannel
    from astest_tasks.run.guest_run import GuestRun, StderrBuffer
    from astest_tasks.run.runtime import RunnableSpec, SpecLimits

READ_CHUNK = 64 * 1024
KILL_GRACE_S = 2.0
# Asked of the runtime's ends of its stdout and stderr; the kernel caps it at net.core.wmem_max
# (and doubles what it grants). Only memory the runtime actually fills is used.
RUNTIME_SEND_BUFFER = 16 * 1024 * 1024


@frozen
class ExternalRuntime(RuntimeDefaults):
    """A command run as a subprocess per spec, talking WIPC over its stdin and stdout."""

    command: str  # as configured, for messages and the cache key
    tokens: tuple[str, ...]  # tokenized, placeholders not yet substituted
    scripts: tuple[str, ...]  # tokens naming files in the project: inputs of the run

    @classmethod
    def claim(cls, request: RuntimeRequest) -> ExternalRuntime | None:
        """Any other command: not a Python runner, and not as-test's stock runner where its file
        is missing (which our default runtimes stand in for)."""
        if (
            not request.has_command
            or request.python_script is not None
            or request.names_missing_stock_runner
        ):
            return None
        tokens = request.tokens
        # Every project file the command names is an input of its runs: the executable itself
        # when it is a path (`./run.sh <file>`), and the scripts it is given
        # (`node ./runner.mjs <file>`).
        named = tokens if "/" in tokens[0] else tokens[1:]
        scripts = tuple(
            dict.fromkeys(
                normalise_path(token)
                for token in named
                if "<" not in token
                and not token.startswith("-")
                and _is_project_file(request.project_root, token)
            )
        )
        return cls(command=request.command, tokens=tokens, scripts=scripts)

    @property
    def description(self) -> str:
        return f"external runtime `{self.command}`"

    def input_files(self, project_root: Path) -> list[str]:
        return list(self.scripts)

    def argv(self, wasm_path: str, spec_path: str) -> list[str]:
        return command_argv(self.tokens, wasm_path, spec_path)

    def doctor_checks(self, project_root: Path, scope: str) -> list[Check]:
        """The executable is found, and every script the command names exists."""
        executable = self.tokens[0]
        found = (
            str(project_root / executable)
            if "/" in executable and (project_root / executable).is_file()
            else shutil.which(executable)
        )
        if found is None:
            checks = [
                Check(
                    Level.ERROR,
                    scope,
                    f"runtime `{self.command}`: {executable} was not found on PATH",
                    f"install {executable} and put it on PATH, or change runOptions.runtime.cmd",
                )
            ]
        else:
            checks = [Check(Level.OK, scope, f"runtime `{self.command}` ({found})")]
        for token in self.tokens[1:]:
            looks_like_script = token.startswith(("./", "../")) or token.endswith((".js", ".mjs"))
            if looks_like_script and "<" not in token and not (project_root / token).exists():
                checks.append(
                    Check(
                        Level.ERROR,
                        scope,
                        f"runtime script {token} does not exist",
                        "create it (as-test's `ast init` writes its stock runners), or correct "
                        "runOptions.runtime.cmd",
                    )
                )
        return checks

    def run(self, spec: RunnableSpec, channel: ProtocolChannel, limits: SpecLimits) -> GuestRun:
        # The command sees the artifact as as-test gives it: relative to the project root, which
        # is its working directory. The memory limit is wasmtime's: it does not reach a command.
        # What running needs loads when a spec runs, not with every call's runtimes (issue 40).
        from astest_tasks.core.process_env import base_environ
        from astest_tasks.run.runtime_env import runtime_variables

        env = {
            **base_environ(),
            **spec.run_env,
            **runtime_variables(spec.target, spec.wasm_path, spec.project_root),
        }
        argv = self.argv(spec.wasm_path, spec.spec_path)
        return run_external(argv, spec.project_root, env, channel, limits.timeout_s)


def _is_project_file(project_root: Path, token: str) -> bool:
    path = Path(token)
    if path.is_absolute():
        return False  # outside the project (an interpreter, a system tool): not our input
    return (project_root / path).is_file()


def command_argv(tokens: Sequence[str], wasm_path: str, spec_path: str) -> list[str]:
    """The argv for one spec: ``<file>`` is the artifact, ``<name>`` the spec's short name."""
    name = spec_short_name(spec_path)
    head, *rest = tokens
    return [head, *(t.replace("<file>", wasm_path).replace("<name>", name) for t in rest)]


def spec_short_name(spec_path: str) -> str:
    """as-test's ``<name>``: the basename without its first ``.ts``, then its first ``.spec``."""
    return posixpath.basename(spec_path).replace(".ts", "", 1).replace(".spec", "", 1)


@frozen
class _Stdio:
    """Our ends of the runtime's stdin, stdout and stderr socket pairs."""

    stdin: socket.socket
    stdout: socket.socket
    stderr: socket.socket

    def close(self) -> None:
        for end in (self.stdin, self.stdout, self.stderr):
            end.close()


def _socket_stdio() -> tuple[_Stdio, _Stdio]:
    """Three socket pairs, as Node's spawn makes them: (ours, the runtime's)."""
    pairs = [socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM) for _ in range(3)]
    ours = _Stdio(*(pair[0] for pair in pairs))
    theirs = _Stdio(*(pair[1] for pair in pairs))
    for end in (theirs.stdout, theirs.stderr):
        with contextlib.suppress(OSError):  # a smaller buffer still works, as under as-test
            end.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, RUNTIME_SEND_BUFFER)
    return ours, theirs


def run_external(
    argv: list[str],
    cwd: Path,
    env: Mapping[str, str],
    channel: ProtocolChannel,
    timeout_s: float,
) -> GuestRun:
    from astest_tasks.run.guest_run import GuestRun, StderrBuffer

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
    ours, theirs = _socket_stdio()
    process: subprocess.Popen[bytes] | None = None
    try:
        try:
            process = subprocess.Popen(
                # it ends if this process is killed (core/parent_bond.py)
                [*killed_with_this_thread(), executable, *argv[1:]],
                cwd=cwd,
                env=dict(env),
                stdin=theirs.stdin.fileno(),
                stdout=theirs.stdout.fileno(),
                stderr=theirs.stderr.fileno(),
                start_new_session=True,  # its own process group, so a timeout kills all of it
            )
        except OSError as exc:
            channel.finish()
            return GuestRun.not_started(
                f"could not start the runtime command {argv[0]!r}: {exc}", started
            )
        finally:
            theirs.close()  # the runtime holds its own copies; ours would hide its end of output
        with _LIVE_LOCK:
            _LIVE.add(process)
        stderr = StderrBuffer()
        timed_out = _converse(process, ours, channel, stderr, started + timeout_s)
    finally:
        # Also when SIGTERM or Ctrl-C arrives right after the start, before the conversation:
        # a loaded machine can leave the runtime running while this process has not moved on.
        if process is not None:
            if process.poll() is None:
                _kill_group(process)
            with _LIVE_LOCK:
                _LIVE.discard(process)
        ours.close()
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
    stdio: _Stdio,
    channel: ProtocolChannel,
    stderr: StderrBuffer,
    deadline: float,
) -> bool:
    """Relay frames and replies until the runtime closes its output; True if time ran out.

    Replies are written without blocking, when the runtime's stdin has room: a runtime that stops
    reading must not stall us past the deadline.
    """
    stdio.stdin.setblocking(False)
    pending = bytearray()
    with selectors.DefaultSelector() as selector:
        selector.register(stdio.stdout, selectors.EVENT_READ)
        selector.register(stdio.stderr, selectors.EVENT_READ)
        while any(key.events & selectors.EVENT_READ for key in selector.get_map().values()):
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                return True
            for key, _events in selector.select(timeout=min(remaining, 0.5)):
                if key.fileobj is stdio.stdin:
                    _write_some(stdio.stdin, pending)
                    continue
                data = _read_some(stdio.stdout if key.fileobj is stdio.stdout else stdio.stderr)
                if not data:
                    selector.unregister(key.fileobj)
                elif key.fileobj is stdio.stdout:
                    channel.write_stdout(data)
                    if channel.over_limit:
                        return False  # the caller kills it; the verdict names the limit
                    pending += channel.take_replies()
                    _write_some(stdio.stdin, pending)
                else:
                    stderr.write(data)
            _watch_stdin(selector, stdio.stdin, wanted=bool(pending))
    # Output closed; the process may still be finishing (or hanging without output).
    try:
        process.wait(timeout=max(0.0, deadline - time.perf_counter()))
    except subprocess.TimeoutExpired:
        return True
    return False


def _read_some(end: socket.socket) -> bytes:
    """What the runtime wrote; empty at the end of its output (or when its end was reset)."""
    try:
        return end.recv(READ_CHUNK)
    except ConnectionResetError:
        return b""


def _write_some(stdin: socket.socket, pending: bytearray) -> None:
    """Write what the socket takes now; when it is closed, drop the rest (the runtime is gone)."""
    while pending:
        try:
            written = stdin.send(pending)
        except BlockingIOError:
            return
        except OSError:
            pending.clear()  # it stopped listening; its exit code and output tell what happened
            return
        del pending[:written]


def _watch_stdin(selector: selectors.BaseSelector, stdin: socket.socket, *, wanted: bool) -> None:
    registered = stdin in {key.fileobj for key in selector.get_map().values()}
    if wanted and not registered:
        selector.register(stdin, selectors.EVENT_WRITE)
    elif not wanted and registered:
        selector.unregister(stdin)


# The runtime processes running now: each in a session of its own, which no Ctrl-C reaches.
_LIVE: set[subprocess.Popen[bytes]] = set()
_LIVE_LOCK = threading.Lock()


def end_external_runtimes() -> None:
    """Kill every runtime process group still running: for a process about to leave through
    ``os._exit``, where no ``finally`` of ``run_external`` runs (the run ahead's helper)."""
    with _LIVE_LOCK:
        running = list(_LIVE)
    for process in running:
        with contextlib.suppress(OSError):
            os.killpg(process.pid, signal.SIGKILL)


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        return
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=KILL_GRACE_S)
