"""Compile the next spec while this one runs: asc (Node) and the guest (wasmtime) on two cores.

A plain ``doit`` runs one task at a time: build, run, build, run... A run spends seconds in the
guest, where wasmtime releases the GIL and the compile server sits idle, and the next build then
waits for a compile of its own. So when a build's compile ends (and when a run starts, for a
build doit found up to date), a registered spec build that doit is bound to run (see
``next_build``) is compiled on a thread, into a scratch folder of its own.
When that build's action comes, it takes the compile's output if its request is the same and
neither its input files (size and modification time) nor the environment changed since the
compile started; otherwise the prefetched output is thrown away and it compiles as usual. The
output is what the build would make itself: asc is deterministic, and each compile already goes
to a scratch folder of its own (compiler.compile_spec).

- Only in a plain serial doit, from its main thread: doit's ``-n N`` worker processes and
  ``-P thread`` workers already run builds side by side. ``ASTEST_PREFETCH=0`` turns it off.
- Only through the compile server: a prefetch never spawns a compiler, and gives up when the
  server is unavailable (or closed because we are exiting). Custom build commands (``cmd``) are
  never prefetched: they may do more than compile.
- At most one prefetch at a time; its scratch folder is removed when it is taken or dropped,
  and at exit.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import threading
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from astest_tasks.build.build_request import BuildRequest
from astest_tasks.core.frozen import frozen

if TYPE_CHECKING:  # the compile server's module loads with the first compile
    from astest_tasks.build.compile_server import CompileOutput

SWITCH_VARIABLE = "ASTEST_PREFETCH"
LOOK_AHEAD = 32  # builds next_build considers beyond the current spec's other modes

Stamps = dict[str, tuple[int, int] | None]
# Compiles a build request into the given wasm path; None when no server can (see prefetch()).
Compiler = Callable[[BuildRequest, Path], "CompileOutput | None"]
# Given the module's bytes before its build may take the output: what the run will need next (its
# wasmtime compile) is set up at once, and the work it returns is done on the prefetch thread
# after the build is let go.
FollowUp = Callable[[bytes], Callable[[], None] | None]


@frozen
class PlannedBuild:
    """A spec build as its task was created: the action's request and the task's file_dep."""

    basename: str  # the task creator's: one dodo may hold several pipelines
    request: BuildRequest
    inputs: tuple[str, ...]  # absolute paths

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.basename, self.request.spec.mode, self.request.spec.spec_id)

    def wasm(self) -> Path:
        return Path(self.request.project_root) / self.request.wasm_path

    def record(self) -> Path:
        return Path(self.request.project_root) / self.request.record_path


class _Prefetch:
    """One build compiled ahead. A plain class: as a dataclass its methods were compiled each
    time the module loads, which every call does (issue 40)."""

    __slots__ = ("build", "done", "dropped", "environ", "output", "scratch", "stamps", "thread")

    def __init__(self, build: PlannedBuild, stamps: Stamps, scratch: Path) -> None:
        self.build = build
        self.stamps = stamps
        self.scratch = scratch
        # The environment the compile saw: an in-process runner script may change ours meanwhile.
        self.environ = dict(os.environ)
        self.thread: threading.Thread | None = None
        self.output: CompileOutput | None = None
        self.done = threading.Event()
        self.dropped = False  # nobody will take it: its folder goes, also what is written later


def input_stamps(paths: Sequence[str]) -> Stamps:
    """Each input's (mtime in ns, size), None for a missing one."""
    stamps: Stamps = {}
    for path in paths:
        try:
            info = os.stat(path)
        except OSError:
            stamps[path] = None
        else:
            stamps[path] = (info.st_mtime_ns, info.st_size)
    return stamps


def outputs_missing(build: PlannedBuild) -> bool:
    """Its module or record is missing: doit is sure to run it."""
    return not (build.wasm().is_file() and build.record().is_file())


def bound_to_build(build: PlannedBuild) -> bool:
    """Whether doit will run this build: its outputs are missing or older than an input. (An
    input touched but unchanged makes doit skip it after all, by its checksum: a wasted compile.)"""
    try:
        built_ns = min(build.wasm().stat().st_mtime_ns, build.record().stat().st_mtime_ns)
    except OSError:
        return True
    return any(
        stamp is not None and stamp[0] > built_ns for stamp in input_stamps(build.inputs).values()
    )


def first_bound_build(planned: Sequence[PlannedBuild]) -> PlannedBuild | None:
    """The first of the planned builds (within ``LOOK_AHEAD``) that doit is bound to run."""
    return next((build for build in planned[:LOOK_AHEAD] if bound_to_build(build)), None)


def next_build(
    current: tuple[str, str, str], following: Sequence[PlannedBuild]
) -> PlannedBuild | None:
    """Which of the builds doit meets after the current one to compile ahead: the first never
    built (a cold run goes through them in order); else the same spec in another mode, when it is
    bound to build (an edited spec is rebuilt in every mode, while touched but unchanged files
    elsewhere, after a checkout, would mislead an mtime test); else the first bound to build."""
    # A run that repeats on every doit (a failing spec) must not stat a whole big suite's
    # inputs each time: look a bounded way ahead, where a head start is of use anyway.
    near = following[:LOOK_AHEAD]
    missing = next((build for build in near if outputs_missing(build)), None)
    if missing is not None:
        return missing
    same_spec = [build for build in following if build.key[::2] == current[::2]]
    others = [build for build in near if build.key[::2] != current[::2]]
    return next((build for build in [*same_spec, *others] if bound_to_build(build)), None)


class BuildPrefetcher:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._planned: list[PlannedBuild] = []
        self._place: dict[tuple[str, str, str], int] = {}  # key -> index in _planned
        # a build's module (absolute path) -> its key: one module is one build, as doit requires
        self._key_of_module: dict[str, tuple[str, str, str]] = {}
        self._current: _Prefetch | None = None
        self._closed = False

    def plan(self, basename: str, request: BuildRequest, inputs: Sequence[str]) -> None:
        """Remember a spec build, in the order doit will meet it."""
        if request.build_cmd:
            return
        build = PlannedBuild(basename, request, tuple(inputs))
        with self._lock:
            # Tasks made again in the same process (watch mode's cycles): the new plan wins.
            place = self._place.get(build.key)
            if place is not None:
                self._planned[place] = build
            else:
                self._place[build.key] = len(self._planned)
                self._planned.append(build)
            self._key_of_module[str(build.wasm())] = build.key
            stale = self._current
            if stale is None or stale.build.key != build.key or stale.build == build:
                return
            self._current = None
        _discard(stale)

    def start_after(
        self, key: tuple[str, str, str], compiler: Compiler, then: FollowUp | None = None
    ) -> bool:
        """Start compiling one of the builds planned after the one of ``key`` (basename, mode,
        spec id), chosen by ``next_build``; False when there is none, or a prefetch is already
        under way."""
        with self._lock:
            place = self._place.get(key)
            if self._closed or place is None:
                return False
            passed = self._current
            if passed is not None:
                # Still ahead of this run, or not finished: let it be.
                passed_place = self._place.get(passed.build.key)
                if passed_place is None or not passed.done.is_set():
                    return False
                if passed_place > place:
                    return False
                # doit went past its build without taking it (it was up to date after all).
                self._current = None
            following = self._planned[place + 1 :]
        if passed is not None:
            _discard(passed)
        chosen = next_build(key, following)
        return chosen is not None and self._start(chosen, compiler, then)

    def start_after_build(self, request: BuildRequest, compiler: Compiler) -> bool:
        """``start_after`` the planned build of ``request``, whose compile has just ended: the
        next build's compile need not wait for this one's module to be checked and recorded, and
        for its run to start (measured on a cold run of 20 specs: about 15 ms a spec)."""
        module = str(Path(request.project_root) / request.wasm_path)
        with self._lock:
            key = self._key_of_module.get(module)
        return key is not None and self.start_after(key, compiler)

    def start_for(
        self, changed: Collection[str], compiler: Compiler, then: FollowUp | None = None
    ) -> bool:
        """Start compiling the first planned build that reads one of ``changed`` (absolute paths)
        and is bound to build: watch mode's head start, before its cycle has even loaded the
        tasks. False when there is none, or a compile ahead is under way."""
        with self._lock:
            if self._closed:
                return False
            passed = self._current
            if passed is not None and not passed.done.is_set():
                return False
            self._current = None
            planned = list(self._planned)
        if passed is not None:
            _discard(passed)
        wanted = set(changed)
        chosen = next(
            (b for b in planned if wanted.intersection(b.inputs) and bound_to_build(b)), None
        )
        return chosen is not None and self._start(chosen, compiler, then)

    def _start(self, chosen: PlannedBuild, compiler: Compiler, then: FollowUp | None) -> bool:
        wasm = chosen.wasm()
        try:
            wasm.parent.mkdir(parents=True, exist_ok=True)
            scratch = Path(tempfile.mkdtemp(prefix=".asc-prefetch-", dir=wasm.parent))
        except OSError:
            return False
        prefetch = _Prefetch(chosen, input_stamps(chosen.inputs), scratch)
        thread = threading.Thread(
            target=_compile, args=(prefetch, compiler, then), name="astest-prefetch", daemon=True
        )
        prefetch.thread = thread
        with self._lock:
            if self._closed or self._current is not None:
                shutil.rmtree(scratch, ignore_errors=True)
                return False
            self._current = prefetch
        thread.start()
        return True

    def planned(self) -> list[PlannedBuild]:
        with self._lock:
            return list(self._planned)

    def take(self, request: BuildRequest, into: Path) -> CompileOutput | None:
        """The prefetched compile of this request, its files moved into ``into`` (a scratch
        folder of the build's own); None when there is none or it no longer holds.

        A compile ahead of another build, still under way, is waited for: it holds the compile
        server, and a build that went on would start a second server, cold (measured: two specs
        changed after a checkout had touched the others, the second one's build took 1.34 s on
        a new server, where the compile ahead it would have waited for ended 0.27 s later)."""
        with self._lock:
            prefetch = self._current
            if prefetch is None:
                return None
            mine = prefetch.build.request == request
            if mine:
                self._current = None
        if not mine:
            prefetch.done.wait()
            return None
        try:
            prefetch.done.wait()
            output = prefetch.output
            if output is None or output.exit_code != 0:
                return None  # a failure is reported from a compile of the build's own
            if input_stamps(prefetch.build.inputs) != prefetch.stamps:
                return None
            if dict(os.environ) != prefetch.environ:
                return None
            for produced in sorted(prefetch.scratch.iterdir()):
                os.replace(produced, into / produced.name)
            return output
        except OSError:
            return None
        finally:
            shutil.rmtree(prefetch.scratch, ignore_errors=True)

    def settle(self, timeout: float | None = None) -> bool:
        """Wait until the compile under way, if any, has finished; False on a timeout."""
        with self._lock:
            prefetch = self._current
        return prefetch is None or prefetch.done.wait(timeout)

    def close(self) -> None:
        """Drop whatever is prefetched (at exit): nothing will take it."""
        with self._lock:
            self._closed = True
            prefetch, self._current = self._current, None
        if prefetch is not None:
            _discard(prefetch)


def _discard(prefetch: _Prefetch) -> None:
    # A compile still running may write into the folder while it is being removed, and leave it
    # behind with what it wrote: the compile's thread then removes it again (_compile).
    prefetch.dropped = True
    shutil.rmtree(prefetch.scratch, ignore_errors=True)


def _compile(prefetch: _Prefetch, compiler: Compiler, then: FollowUp | None) -> None:
    later: Callable[[], None] | None = None
    try:
        out_file = prefetch.scratch / prefetch.build.wasm().name
        prefetch.output = compiler(prefetch.build.request, out_file)
        if then is not None and prefetch.output is not None and prefetch.output.exit_code == 0:
            # Before the build may move the module away, and before its run may look for it.
            later = then(out_file.read_bytes())
    except Exception:  # a prefetch is only a head start: the build compiles again itself
        prefetch.output = None
    finally:
        if prefetch.dropped:
            shutil.rmtree(prefetch.scratch, ignore_errors=True)
        prefetch.done.set()
    if later is not None:
        with contextlib.suppress(Exception):  # only a head start too: the run compiles itself
            later()


def enabled(environ: Mapping[str, str] | None = None) -> bool:
    """Prefetch only in doit's main process and thread, unless switched off."""
    from astest_tasks.core.process_role import in_doits_main_thread  # when a build is (issue 40)

    env = os.environ if environ is None else environ
    return env.get(SWITCH_VARIABLE, "1") != "0" and in_doits_main_thread()
