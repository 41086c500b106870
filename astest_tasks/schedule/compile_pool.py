"""Which persistent asc serves a build: the compile servers of this process, and their lifetime.

- **One per process**, held by the process's scheduler (scheduler.py). ``doit -n N`` forks
  worker processes; each starts its own servers, lazily, on its first build. The owner is
  checked by ``os.getpid()``, and a forked child drops what it
  inherited (our copy of a parent's server pipes would keep that server alive after the parent),
  except a server the parent started for its workers to share (shared_server.py: on a machine
  with few cores, doit's main process starts one before it forks them).
- **One per thread at a time.** Under ``doit -P thread`` concurrent builds must not share a
  server (asc's globals, ``process.env`` and the cwd belong to the whole Node process), and
  serialising them would throw the parallelism away: a build takes an idle server or starts one.
  So there are as many servers as builds ever ran at once in this process, usually one.
- **Keyed by what Node and asc read once, at start-up**: the node binary, the assemblyscript
  installation, ``NODE_*`` variables and whether ``CI`` is set (asc colours its diagnostics when
  it is). Everything else in the environment is passed with each request.
- **Retry once.** A server that dies during a compile is replaced and the compile is sent again;
  a second death is reported as that build's failure. A server that is found dead between builds
  is replaced without counting a retry.
- **Gone when we are.** ``atexit`` (and multiprocessing's finalizers, which run in doit's worker
  processes where ``atexit`` does not) close every server (the scheduler installs both when the
  pool starts its first server: ``on_server_started``); Ctrl-C during a compile kills the one
  in use; and each server exits on its own when its stdin pipe from us closes, however we end.
- **V8 flags chosen by the compile that starts a server** (``server_flags``): binaryen is
  compiled to WebAssembly, and V8 compiles it twice, quickly (Liftoff) and then, for functions it
  finds hot, again with its optimising compiler on background threads. A build that does not ask
  binaryen to optimise spends little time in it, so that second compile is mostly CPU taken from
  the guests and the next compile: with ``--liftoff-only``, 20 compiles of as-test 1.8 specs took
  10% less CPU, 6% less time and 80 MB less memory, and a cold doit of those specs 4% less time.
  With ``-O3`` binaryen's optimiser runs most of a compile and Liftoff alone was ~5% slower, so a
  build that optimises keeps both tiers. A project whose builds differ (or whose asconfig sets an
  optimise level) runs them all on the first server: each compile is as correct either way.
- **asc's own code goes to V8's baseline compiler at once** (``--always-sparkplug``, every
  server). V8 interprets a function's bytecode until the function has run often enough to be
  worth compiling, and a server's first compiles are several times slower than later ones;
  Sparkplug compiles bytecode to machine code in one quick pass, without optimising. Compiling
  every function of asc that runs took a cold doit of 20 as-test 1.8 specs from 4.18-4.51 s to
  3.79-4.28 s (five rounds each, alternating), and 40 compiles in one server from 5.3-5.8 s to
  4.9-5.6 s with 30 MiB less peak RSS; with ``-O3``, where binaryen's optimiser is most of a
  compile, it made no difference.
- **A young generation four times V8's default** (``server_node_options``): each compile
  builds a whole program (source text, syntax trees, types, binaryen's module) that is garbage
  once the module is written. V8's young generation on this Node (two semi-spaces of 16 MiB)
  fills many times per compile, and each scavenge copies the trees still in use and then moves
  them to the old generation, where only a full collection frees them: garbage collection took
  a third of the server's main-thread time in a CPU profile of 60 compiles. With semi-spaces of
  up to 64 MiB, 40 compiles of as-test 1.8 specs took 5.4-5.5 s instead of 6.3-7.1 s, and a cold
  doit of 20 specs 3.9-4.4 s instead of 4.5-5.2 s; the server's peak RSS rose from 270-290 MiB
  to 346 MiB (as-test's own compiling process peaks near 390 MiB). 128 MiB gained little more
  for 450 MiB. V8 sizes its heap before any script runs, so this is an option on Node's command
  line (a V8 option Node passes on); a ``NODE_OPTIONS`` that sets it is the user's choice and
  wins.
- **Fallback.** Set ``ASTEST_COMPILE_SERVER=0`` to spawn ``node asc.js`` per spec. If a server
  cannot start (Node or asc too old, a broken install) builds spawn asc, with one warning.
"""

from __future__ import annotations

import os
import tempfile
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Protocol

from astest_tasks.build.compile_server import (
    SERVER_SCRIPT,
    CompileOutput,
    CompileServer,
    CompileTimedOut,
    ServerDied,
    ServerUnavailable,
    time_limit_message,
)
from astest_tasks.config.toolchain import warn_once
from astest_tasks.schedule.shared_server import SharedServer

DISABLE_VARIABLE = "ASTEST_COMPILE_SERVER"

ServerKey = tuple[str, str, frozenset[tuple[str, str]], bool]


def server_key(node: str, asc_root: Path, env: Mapping[str, str]) -> ServerKey:
    node_vars = frozenset((k, v) for k, v in env.items() if k.startswith("NODE_"))
    return (node, str(asc_root.resolve()), node_vars, "CI" in env)


# asc's options in its "Optimization" category that make binaryen optimise (-O3 is -O with a
# level), and binaryen passes asked for by name.
_OPTIMISING_OPTIONS = ("-O", "--optimize", "--optimizeLevel", "--shrinkLevel", "--converge")
_PASS_OPTIONS = ("--runPasses",)


_EVERY_SERVER_FLAGS = ("--always-sparkplug",)


def server_flags(argv: Sequence[str]) -> tuple[str, ...]:
    """The V8 flags of a server started for this compile (see the module's docstring)."""
    for arg in argv:
        option = arg.split("=", 1)[0]
        if option.startswith(_OPTIMISING_OPTIONS) or option in _PASS_OPTIONS:
            return _EVERY_SERVER_FLAGS
    return (*_EVERY_SERVER_FLAGS, "--liftoff-only")


# V8's semi-space limit for a server, in MiB (see the module's docstring).
YOUNG_GENERATION_SEMI_SPACE_MIB = 64
_SEMI_SPACE_OPTION = "--max-semi-space-size"


def server_node_options(env: Mapping[str, str]) -> tuple[str, ...]:
    """Node's own options for a server started with this environment: ours, unless the user's
    ``NODE_OPTIONS`` sizes the young generation itself."""
    if _SEMI_SPACE_OPTION in env.get("NODE_OPTIONS", "").replace("_", "-"):
        return ()
    return (f"{_SEMI_SPACE_OPTION}={YOUNG_GENERATION_SEMI_SPACE_MIB}",)


def can_serve(argv: Sequence[str], env: Mapping[str, str]) -> bool:
    """Whether a server gives exactly what a spawned asc would for this compile."""
    if env.get(DISABLE_VARIABLE, os.environ.get(DISABLE_VARIABLE)) == "0":
        return False
    # bin/asc.js passes everything after `--` to Node as flags; a server's Node is already running.
    return "--" not in argv


class _Lease(Protocol):
    """A server lent to one compile: this pool's own, or one shared with other processes."""

    def compile(
        self, argv: Sequence[str], cwd: Path, env: Mapping[str, str], limit_s: float
    ) -> tuple[CompileOutput, bool]: ...

    def give_back(self, recycle: bool) -> None: ...

    def lose(self) -> None: ...


class _OwnLease:
    def __init__(self, pool: CompilePool, key: ServerKey, server: CompileServer) -> None:
        self._pool, self._key, self._server = pool, key, server

    def compile(
        self, argv: Sequence[str], cwd: Path, env: Mapping[str, str], limit_s: float
    ) -> tuple[CompileOutput, bool]:
        return self._server.compile(argv, cwd, env, limit_s)

    def give_back(self, recycle: bool) -> None:
        if recycle:
            self._server.close()
            self._pool._drop(self._server)
        else:
            self._pool._release(self._key, self._server)

    def lose(self) -> None:
        self._pool._drop(self._server)


class _SharedLease:
    def __init__(self, shared: SharedServer) -> None:
        self._shared = shared

    def compile(
        self, argv: Sequence[str], cwd: Path, env: Mapping[str, str], limit_s: float
    ) -> tuple[CompileOutput, bool]:
        return self._shared.compile(argv, cwd, env, limit_s)

    def give_back(self, recycle: bool) -> None:
        pass  # a server asking to be retired was killed in the compile's own turn

    def lose(self) -> None:
        self._shared.lose()


class CompilePool:
    def __init__(
        self,
        script: Path = SERVER_SCRIPT,
        shared: SharedServer | None = None,
        on_server_started: Callable[[], None] = lambda: None,
    ) -> None:
        self.pid = os.getpid()
        self.script = script
        self._on_server_started = on_server_started  # the exit hooks that will close it
        self._lock = threading.Lock()
        self._idle: dict[ServerKey, list[CompileServer]] = {}
        self._busy: set[CompileServer] = set()
        self._unavailable: dict[ServerKey, str] = {}
        self._closed = False
        self._shared = shared  # one this process started for its workers, or inherited

    def compile(
        self,
        node: str,
        asc_root: Path,
        argv: Sequence[str],
        cwd: Path,
        env: Mapping[str, str],
        limit_s: float,
    ) -> CompileOutput | None:
        """Compile with a server; ``None`` when none can serve it (then spawn asc instead)."""
        key = server_key(node, asc_root, env)
        lost: ServerDied | None = None
        for _attempt in range(2):
            lease = self._lease(key, node, asc_root, env, argv)
            if lease is None:
                return None
            try:
                output, recycle = lease.compile(argv, cwd, env, limit_s)
            except ServerDied as exc:
                lease.lose()
                lost = exc
                continue
            except CompileTimedOut:
                lease.lose()
                return CompileOutput(-1, b"", time_limit_message(limit_s).encode())
            except BaseException:
                # Ctrl-C (or a bug) mid-compile: the server is busy with a compile nobody will
                # read, and its reply would answer the next request. Kill it.
                lease.lose()
                raise
            lease.give_back(recycle)
            return output
        assert lost is not None
        message = (
            f"{lost}\nthe compile server died while compiling this spec, and again when the "
            f"compile was retried in another one; set {DISABLE_VARIABLE}=0 to spawn asc for each "
            "spec instead"
        )
        return CompileOutput(-1, b"", message.encode())

    def share(self, node: str, asc_root: Path, argv: Sequence[str], env: Mapping[str, str]) -> bool:
        """Start the server that the worker processes forked from this one will share
        (shared_server.py), for compiles like ``argv``; False when none can be started."""
        key = server_key(node, asc_root, env)
        with self._lock:
            if self._closed or key in self._unavailable:
                return False
            shared, self._shared = self._shared, None
        if shared is not None:
            if shared.key == key and shared.usable:
                with self._lock:
                    self._shared = shared
                return True  # watch mode's next cycle: still there, and warm
            # Lost or for other compiles: never handed to workers again (a worker kills a lost
            # server by its pid, which must not be one that was reaped and reused).
            shared.close()
        try:
            turns = tempfile.TemporaryFile(prefix="astest-asc-turns-")  # noqa: SIM115
        except OSError:
            return False
        try:
            server = self._start_server(node, asc_root, env, argv)
        except ServerUnavailable:
            turns.close()
            return False  # each worker then finds out for itself, and says so once
        with self._lock:
            self._shared = SharedServer(key, server, turns)
            closing = self._closed
        self._on_server_started()
        if closing:
            self.close()
        return not closing

    def close(self) -> None:
        """Close every server; used at exit, so it never raises."""
        with self._lock:
            self._closed = True
            servers = [s for group in self._idle.values() for s in group] + list(self._busy)
            self._idle.clear()
            self._busy.clear()
            shared, self._shared = self._shared, None
        for server in servers:
            server.begin_close()
        if shared is not None:
            shared.close()
        for server in servers:
            server.finish_close()

    def abandon(self) -> SharedServer | None:
        """In a forked child: forget the parent's servers without touching the processes; the
        one it started for its workers (if any) is returned, to be used from the child."""
        servers = [s for group in self._idle.values() for s in group] + list(self._busy)
        for server in servers:
            server.abandon()
        shared = self._shared
        return shared if shared is not None and shared.usable else None

    @property
    def shared_server_pid(self) -> int | None:
        """The server shared with forked workers, while this process may still use it."""
        with self._lock:
            shared = self._shared
        return shared.server.pid if shared is not None and shared.usable else None

    @property
    def server_pids(self) -> list[int]:
        return [server.pid for server in self.idle_servers() + self.busy_servers()]

    def idle_servers(self) -> list[CompileServer]:
        with self._lock:
            return [server for group in self._idle.values() for server in group]

    def busy_servers(self) -> list[CompileServer]:
        with self._lock:
            return list(self._busy)

    def _lease(
        self,
        key: ServerKey,
        node: str,
        asc_root: Path,
        env: Mapping[str, str],
        argv: Sequence[str],
    ) -> _Lease | None:
        with self._lock:
            if self._closed or key in self._unavailable:
                return None
            shared = self._shared
            if shared is not None and shared.key == key and shared.usable:
                return _SharedLease(shared)
            idle = self._idle.get(key, [])
            while idle:
                server = idle.pop()
                if server.alive:
                    self._busy.add(server)
                    return _OwnLease(self, key, server)
                server.kill()  # died between builds: replace it, no retry spent
        try:
            # Started outside the lock: a start takes ~0.5 s and other threads may have idle
            # servers to take meanwhile.
            server = self._start_server(node, asc_root, env, argv)
        except ServerUnavailable as exc:
            with self._lock:
                self._unavailable[key] = str(exc)
            warn_once(f"{exc}; compiling with one asc process per spec instead (slower)")
            return None
        with self._lock:
            if self._closed:  # we are exiting: do not leave a server behind
                server.close()
                return None
            self._busy.add(server)
        self._on_server_started()
        return _OwnLease(self, key, server)

    def _start_server(
        self, node: str, asc_root: Path, env: Mapping[str, str], argv: Sequence[str]
    ) -> CompileServer:
        return CompileServer(
            node,
            asc_root,
            env,
            script=self.script,
            v8_flags=server_flags(argv),
            node_options=server_node_options(env),
        )

    def _release(self, key: ServerKey, server: CompileServer) -> None:
        with self._lock:
            self._busy.discard(server)
            if not self._closed:
                self._idle.setdefault(key, []).append(server)
                return
        server.close()

    def _drop(self, server: CompileServer) -> None:
        server.kill()
        with self._lock:
            self._busy.discard(server)
