"""The scheduler: everything that decides when and where work happens, in one object per process.

It holds what used to be four module singletons: the compile servers (``compile_pool.py``), the
builds compiled ahead of their task (``build_prefetch.py``), the runs handed to a helper process
(``run_ahead.py``), and which task creator makes each default runner. The task creator plans
into it as it makes the tasks, and the actions reach it through one door, ``scheduler()``.

- **Per process.** doit's ``-n N`` workers are forked from the process that made the tasks. A
  child must neither use nor close what its parent owns (a parent's server pipes, its helper
  process, its prefetch thread), so at fork the child's door gets a scheduler of its own, which
  keeps only the compile server the parent started for its workers to share
  (``shared_server.py``).
- **Kept across watch cycles.** ``astest --watch`` makes the tasks again in one process for
  every cycle; the compile servers stay warm between them, and the plans of earlier cycles are
  dropped by their own rules (``run_ahead.KEPT_SESSIONS``, the prefetcher's per-basename plans).
- **Closed at exit.** ``atexit`` closes the current scheduler: the helper first, then whatever
  was compiled ahead, then the compile servers. A doit worker leaves through ``os._exit``,
  which skips ``atexit``; multiprocessing's finalizers run there, and multiprocessing clears
  them in a new worker, so the pool asks for one when it starts its first server
  (``_close_at_worker_exit``).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import threading
from collections.abc import Collection, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from astest_tasks.build.build_request import BuildRequest
from astest_tasks.run.run_request import RunRequest
from astest_tasks.schedule import build_prefetch, run_ahead
from astest_tasks.schedule.build_prefetch import BuildPrefetcher, PlannedBuild
from astest_tasks.schedule.run_ahead import Execute, HandedOver, RunAhead

# The compile servers' modules load when a compile is first asked for, and the remote cache's when
# a task first uses it, not with the scheduler: a doit call with nothing to build makes one (its
# tasks are planned into it), compiles nothing and may have no cache (issue 40).
if TYPE_CHECKING:
    from astest_tasks.build.compile_route import ServedCompile
    from astest_tasks.build.compile_server import CompileOutput
    from astest_tasks.remote.session import RemoteSession
    from astest_tasks.remote.task_keys import RemoteTask
    from astest_tasks.schedule.compile_pool import CompilePool
    from astest_tasks.schedule.compiler_warmup import CompilerWarmup
    from astest_tasks.schedule.shared_server import SharedServer


class Scheduler:
    """This process's compile servers, builds compiled ahead, runs handed over, and runner makers.
    It is the ``CompileRoute`` that build actions pass to ``compile_spec``."""

    def __init__(
        self, server_script: Path | None = None, shared: SharedServer | None = None
    ) -> None:
        _install_process_hooks()  # with the first scheduler, wherever it is made
        self.pid = os.getpid()
        self._server_script = server_script  # None: compile_server.SERVER_SCRIPT
        self._shared = shared
        self._compile_pool: CompilePool | None = None
        # The prefetch thread and the main thread may ask for the first compile at once.
        self._pool_lock = threading.Lock()
        self.prefetcher = BuildPrefetcher()
        self.run_ahead = RunAhead()
        # Which task creator of this process makes each default runner (by its absolute path):
        # two instances for one project would otherwise both target the same file, which doit
        # refuses. The other instance's runs still wait for it, through their file_dep on it.
        self.runner_makers: dict[str, str] = {}
        # The shared remote cache's client (--remote-cache), and the builds it may hold, which
        # are not compiled ahead: by (project root, mode, spec id).
        self._remote: RemoteSession | None = None
        self._remote_lock = threading.Lock()
        self.remote_builds: dict[tuple[str, str, str], RemoteTask] = {}
        self._finalizer_installed = False

    @property
    def compile_pool(self) -> CompilePool:
        """The compile servers, made on the first compile asked of this process."""
        with self._pool_lock:
            if self._compile_pool is None:
                from astest_tasks.build.compile_server import SERVER_SCRIPT
                from astest_tasks.schedule.compile_pool import CompilePool

                self._compile_pool = CompilePool(
                    self._server_script or SERVER_SCRIPT,
                    shared=self._shared,
                    on_server_started=self._close_at_worker_exit,
                )
            return self._compile_pool

    @property
    def remote(self) -> RemoteSession:
        """This process's remote cache session, made when a task first asks for it (under
        ``-P thread``, several at once: they must all get the same one)."""
        with self._remote_lock:
            if self._remote is None:
                from astest_tasks.remote.session import RemoteSession

                self._remote = RemoteSession()
            return self._remote

    # -- the compile route (build/compile_route.py) --

    def take_prefetched(self, request: BuildRequest, into: Path) -> CompileOutput | None:
        return self.prefetcher.take(request, into)

    def compile_in_server(
        self, served: ServedCompile, cwd: Path, limit_s: float
    ) -> CompileOutput | None:
        from astest_tasks.schedule.compile_pool import can_serve

        if not can_serve(served.argv, served.env):
            return None
        pool = self.compile_pool
        return pool.compile(served.node, served.asc_root, served.argv, cwd, served.env, limit_s)

    def compiled(self, request: BuildRequest) -> None:
        """A build's compile has ended: in a plain doit, the next build doit will run compiles
        while this one's module is checked and recorded and its spec runs (build_prefetch.py).
        Never raises: a head start that cannot start must not fail the build that asked."""
        with contextlib.suppress(Exception):
            if build_prefetch.enabled():
                self.prefetcher.start_after_build(request, self.compile_ahead)

    def compile_ahead(self, request: BuildRequest, out_file: Path) -> CompileOutput | None:
        """A build's compile in the compile server, for the prefetcher and the warm-up; None
        when no server can (a prefetch never spawns a compiler), or when the remote cache holds
        the build: its action takes it from there, and needs no compile server at all."""
        from astest_tasks.build.compiler import COMPILE_TIME_LIMIT_S, served_compile

        if self.held_remotely(request):
            return None
        served = served_compile(request, out_file)
        if served is None:
            return None
        return self.compile_in_server(served, Path(request.project_root), COMPILE_TIME_LIMIT_S)

    def share_compile_server(self, request: BuildRequest) -> bool:
        """Start the compile server doit's worker processes will share, for builds like this
        one (shared_server.py); False when none could be started."""
        from astest_tasks.build.compiler import served_compile
        from astest_tasks.schedule.compile_pool import can_serve

        served = served_compile(request, Path(request.project_root, request.wasm_path))
        if served is None or not can_serve(served.argv, served.env):
            return False
        return self.compile_pool.share(served.node, served.asc_root, served.argv, served.env)

    # -- what the task creator plans --

    def plan_build(self, basename: str, request: BuildRequest, inputs: Sequence[str]) -> None:
        self.prefetcher.plan(basename, request, inputs)

    def plan_remote_build(self, request: BuildRequest, remote: RemoteTask) -> None:
        self.remote_builds[_build_place(request)] = remote

    def held_remotely(self, request: BuildRequest) -> bool:
        """Whether the remote cache holds this build (one HEAD request; False on any doubt)."""
        remote = self.remote_builds.get(_build_place(request))
        if remote is None:
            return False
        cache = self.remote.client(remote.use)
        key = remote.portable_key(Path(request.project_root))
        return cache is not None and key is not None and cache.has_entry(key)

    def planned_builds(self) -> list[PlannedBuild]:
        """The spec builds of the tasks made in this process, in the order doit meets them."""
        return self.prefetcher.planned()

    def plan_run(self, request: RunRequest, session: str, extra: tuple[object, ...] = ()) -> None:
        """A run task, in the order doit will meet it; ``extra``: what its action takes after
        the request and the session (run_ahead.py hands those to the helper too)."""
        self.run_ahead.plan(request, session, extra)

    def share_compiler_with_workers(self, forks_workers: bool) -> bool:
        """Before doit forks its workers: one compile server for them all, on few cores."""
        if not forks_workers:
            return False
        from astest_tasks.schedule.shared_compiler import share_with_workers

        return share_with_workers(self.planned_builds(), self.share_compile_server)

    # -- what the actions ask --

    def compile_next(self, basename: str, mode: str, spec_id: str) -> bool:
        """While the run of (basename, mode, spec_id) starts: the next build doit will run.
        Never raises: a head start that cannot start must not fail the run that asked."""
        try:
            return build_prefetch.enabled() and self.prefetcher.start_after(
                (basename, mode, spec_id), self.compile_ahead
            )
        except Exception:
            return False

    def compile_changed(self, changed: Collection[str]) -> bool:
        """As soon as a watched file changes: the first build that reads it, and then its
        module for wasmtime (compile_ahead.py)."""
        from astest_tasks.schedule.compile_ahead import compile_for_wasmtime

        return build_prefetch.enabled() and self.prefetcher.start_for(
            changed, self.compile_ahead, compile_for_wasmtime
        )

    def warm_compiler(self, warmup: CompilerWarmup) -> bool:
        """While watch mode idles: compile the project's builds again to warm the server."""
        return build_prefetch.enabled() and warmup.start(self.planned_builds(), self.compile_ahead)

    def note_built(self, record: str, *, changed: bool) -> None:
        """A build action wrote this record (an absolute path) in this process; ``changed``: its
        content differs from the record it replaced (or there was none)."""
        self.run_ahead.note_built(record, changed=changed)

    def was_handed_over(self, key: tuple[str, str, str], session: str) -> bool:
        """Whether the run task of ``key`` (basename, mode, spec id) was handed to the helper in
        this session: doit must then run the task, whose action takes what the helper did."""
        return self.run_ahead.was_handed_over(key, session)

    def handed_over(self, run: RunRequest, session: str) -> HandedOver | None:
        """This run, if it was handed to the helper (not waiting yet: ``HandedOver.outcome``)."""
        return self.run_ahead.handed_over(run, session) if run_ahead.enabled() else None

    @contextlib.contextmanager
    def running_here(self, run: RunRequest, session: str, execute: Execute) -> Iterator[None]:
        """While doit's process runs ``run``; a run handed to the helper goes to ``execute``
        there (the run task's action, which returns no more than the live line needs)."""
        if not run_ahead.enabled():
            yield
            return
        always = run_ahead.switch() == "always"
        with self.run_ahead.running_here(run, session, execute, always=always):
            yield

    # -- lifetime --

    def close(self) -> None:
        """At exit (idempotent, never raises): the helper, what was compiled ahead, the servers."""
        if self.pid != os.getpid():
            return
        with self._remote_lock:
            remote = self._remote
        if remote is not None:
            remote.close()  # the last uploads end before anything else goes
        self.run_ahead.close()
        self.prefetcher.close()
        if self._compile_pool is not None:
            self._compile_pool.close()

    def forked(self) -> Scheduler:
        """The scheduler of a child forked from this one's process: nothing of the parent's but
        the compile server it started for its workers."""
        self.run_ahead.forget()
        if self._compile_pool is None:
            # No compile asked of this process yet: the server it inherited (if any) passes on.
            shared = self._shared
            return Scheduler(self._server_script, shared if shared and shared.usable else None)
        shared = self._compile_pool.abandon()
        return Scheduler(self._compile_pool.script, shared)

    def _close_at_worker_exit(self) -> None:
        if self._finalizer_installed:
            return
        self._finalizer_installed = True
        from multiprocessing import util

        util.Finalize(None, self.compile_pool.close, exitpriority=10)


def _build_place(request: BuildRequest) -> tuple[str, str, str]:
    return (request.project_root, request.spec.mode, request.spec.spec_id)


_current: Scheduler | None = None
_door = threading.Lock()
_hooks_installed = False


def scheduler() -> Scheduler:
    """The door: this process's scheduler, made on first use."""
    global _current
    with _door:
        if _current is None or _current.pid != os.getpid():
            _current = Scheduler()
        return _current


def _install_process_hooks() -> None:
    """Close the scheduler at exit, and give a forked child its own: registered when the first
    scheduler is made (also one a test installs behind the door), so that importing this module
    changes nothing in the process."""
    global _hooks_installed
    if not _hooks_installed:
        _hooks_installed = True
        atexit.register(_close_current)
        os.register_at_fork(after_in_child=_after_fork_in_child)


def _close_current() -> None:
    with _door:
        current = _current
    if current is not None:
        current.close()


def _after_fork_in_child() -> None:
    # The door's lock may have been held by another thread at fork time: start from a new one.
    global _current, _door
    _door = threading.Lock()
    inherited, _current = _current, None
    if inherited is not None:
        _current = inherited.forked()
