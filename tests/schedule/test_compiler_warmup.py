"""Tests for astest_tasks.schedule.compiler_warmup: warming the compile server while watch idles."""

from __future__ import annotations

import tempfile
import threading
from pathlib import Path

import pytest

from astest_tasks.build.build_request import BuildRequest
from astest_tasks.build.compile_server import CompileOutput
from astest_tasks.schedule.build_prefetch import PlannedBuild
from astest_tasks.schedule.compiler_warmup import HEAVY_COMPILE_S, CompilerWarmup
from tests.conftest import make_build_request


def builds(root: Path, *spec_ids: str) -> list[PlannedBuild]:
    return [
        PlannedBuild(
            "astest",
            make_build_request(root, spec_id),
            (str(root / f"{spec_id}.spec.ts"),),
        )
        for spec_id in spec_ids
    ]


class CountingCompiler:
    """Writes a module where it is told; may hold every compile until let go."""

    def __init__(self, hold: bool = False, serve: bool = True) -> None:
        self.compiled: list[str] = []
        self.out_files: list[Path] = []
        self.started = threading.Semaphore(0)
        self.go = threading.Event()
        if not hold:
            self.go.set()
        self.serve = serve

    def __call__(self, request: BuildRequest, out_file: Path) -> CompileOutput | None:
        self.started.release()
        assert self.go.wait(timeout=30)
        if not self.serve:
            return None
        self.compiled.append(str(request.spec.spec_id))
        self.out_files.append(out_file)
        out_file.write_bytes(b"\0asm\1\0\0\0")
        return CompileOutput(0, b"", b"")


def warm_up_ended() -> None:
    """Wait for the warm-up thread to end by itself (stop() would end it early)."""
    for thread in threading.enumerate():
        if thread.name == "astest-warmup":
            thread.join(timeout=30)
            assert not thread.is_alive()


def test_it_compiles_the_builds_in_turn_until_its_budget_is_spent(tmp_path: Path) -> None:
    warmup = CompilerWarmup(budget=5)
    compiler = CountingCompiler()
    assert warmup.start(builds(tmp_path, "a", "b"), compiler)
    warm_up_ended()
    assert compiler.compiled == ["a", "b", "a", "b", "a"]
    assert warmup.left == 0
    assert not warmup.start(builds(tmp_path, "a"), compiler)  # spent for the session
    # Into a scratch folder of its own, removed afterwards: never over a real build.
    assert all(not out.parent.exists() for out in compiler.out_files)
    assert not (tmp_path / ".as-test").exists()


def test_stop_waits_for_the_compile_in_flight_and_starts_no_other(tmp_path: Path) -> None:
    warmup = CompilerWarmup(budget=10)
    compiler = CountingCompiler(hold=True)
    assert warmup.start(builds(tmp_path, "a", "b"), compiler)
    assert compiler.started.acquire(timeout=30)  # the first compile is under way
    stopping = threading.Thread(target=warmup.stop)
    stopping.start()
    compiler.go.set()
    stopping.join(timeout=30)
    assert not stopping.is_alive()
    assert compiler.compiled == ["a"]
    assert warmup.left == 9  # what is left is for the next idle time
    assert warmup.start(builds(tmp_path, "b"), CountingCompiler())


def test_no_compile_server_ends_the_warm_up_for_good(tmp_path: Path) -> None:
    warmup = CompilerWarmup(budget=10)
    assert warmup.start(builds(tmp_path, "a"), CountingCompiler(serve=False))
    warm_up_ended()
    assert warmup.left == 0


def test_a_heavy_compile_ends_the_warm_up_for_good(tmp_path: Path) -> None:
    ticks = iter([0.0, 0.1, 1.0, 1.1 + HEAVY_COMPILE_S])  # the second compile is heavy
    warmup = CompilerWarmup(budget=10, clock=lambda: next(ticks))
    compiler = CountingCompiler()
    assert warmup.start(builds(tmp_path, "a", "b"), compiler)
    warm_up_ended()
    assert compiler.compiled == ["a", "b"]
    assert warmup.left == 0


def test_the_first_compile_of_a_session_is_not_judged_heavy(tmp_path: Path) -> None:
    # On a project already built it also starts Node, and is V8's slowest compile.
    ticks = iter([0.0, 0.9 + HEAVY_COMPILE_S, 2.0, 2.1, 3.0, 3.1])
    warmup = CompilerWarmup(budget=3, clock=lambda: next(ticks))
    compiler = CountingCompiler()
    assert warmup.start(builds(tmp_path, "a", "b"), compiler)
    warm_up_ended()
    assert compiler.compiled == ["a", "b", "a"]  # the whole budget
    assert warmup.left == 0


def test_nothing_to_compile_starts_nothing(tmp_path: Path) -> None:
    warmup = CompilerWarmup(budget=10)
    assert not warmup.start([], CountingCompiler())
    warmup.stop()  # nothing to wait for
    assert warmup.left == 10


def test_a_stop_without_waiting_can_still_be_waited_for(tmp_path: Path) -> None:
    """Watch mode's exit: stop at once, close the servers, then wait for the thread to have
    removed its scratch folder."""
    warmup = CompilerWarmup(budget=10)
    compiler = CountingCompiler(hold=True)
    assert warmup.start(builds(tmp_path, "a"), compiler)
    assert compiler.started.acquire(timeout=30)
    warmup.stop(wait=False)
    waiting = threading.Thread(target=warmup.stop)
    waiting.start()
    waiting.join(timeout=0.2)
    assert waiting.is_alive()  # still waiting for the compile in flight
    compiler.go.set()
    waiting.join(timeout=30)
    assert not waiting.is_alive()
    assert all(not out.parent.exists() for out in compiler.out_files)


def test_a_start_that_ctrl_c_cut_short_is_stopped_without_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Ctrl-C inside Thread.start, as the watch starts a warm-up right after a cycle's last
    # line: the watch's clean-up then stops a thread that never said it runs. Its join raised
    # RuntimeError, and the watch ended with a traceback and status 1 instead of 0.
    def interrupted_start(thread: threading.Thread) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(threading.Thread, "start", interrupted_start)
    warmup = CompilerWarmup(budget=5)
    compiler = CountingCompiler()
    with pytest.raises(KeyboardInterrupt):
        warmup.start(builds(tmp_path, "a"), compiler)
    warmup.stop(wait=False)
    warmup.stop()
    assert compiler.compiled == []


def test_a_warm_up_thread_that_runs_after_its_stop_makes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stop = threading.Event()
    stop.set()
    compiler = CountingCompiler()
    made: list[Path] = []

    def mkdtemp(prefix: str = "") -> str:  # a real folder of the test's own, whatever happens
        folder = tmp_path / f"{prefix}{len(made)}"
        folder.mkdir()
        made.append(folder)
        return str(folder)

    monkeypatch.setattr(tempfile, "mkdtemp", mkdtemp)
    CompilerWarmup(budget=5)._warm(builds(tmp_path, "a"), compiler, stop)
    assert made == [] and compiler.compiled == []
