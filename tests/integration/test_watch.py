"""``astest --watch`` on a real project: a save runs exactly the affected specs, and Ctrl-C
leaves a state from which a plain ``astest`` runs nothing but the summary."""

from __future__ import annotations

import fcntl
import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from astest_tasks.model.results import read_result
from tests.integration.conftest import (
    EXECUTED,
    Project,
    _doit_environment,
    passing_tests_line,
)
from tests.integration.pausing import HOOK, REACH_LIMIT_S
from tests.integration.toolchains import Toolchain

# The watch loop is our own machinery: what each cycle runs is a plain run, which every other
# integration test covers on both toolchains.
pytestmark = [pytest.mark.integration, pytest.mark.toolchains("1.0.7")]

CYCLE_LIMIT_S = 300.0  # a loaded 2-core machine can take minutes for a first cycle
SPEC_LINE = re.compile(r"^ (PASS|FAIL|SKIP) +(\S+) +(\S+) ")
WATCHING = "watching "


class Watcher:
    """``astest --watch`` in the background, its stdout read line by line by a thread."""

    def __init__(
        self,
        project: Project,
        *args: str,
        env: dict[str, str] | None = None,
        launcher: tuple[str, ...] = ("-m", "astest_tasks"),
    ) -> None:
        self.process = subprocess.Popen(
            [sys.executable, *launcher, "--watch", *args],
            cwd=project.root,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=_doit_environment(env),
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.stderr: list[str] = []
        self._stdout_reader = threading.Thread(target=self._read, daemon=True)
        self._stdout_reader.start()
        self._stderr_reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._stderr_reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def _read_stderr(self) -> None:
        assert self.process.stderr is not None
        self.stderr.extend(self.process.stderr)

    def cycle(self) -> list[str]:
        """The lines of the next cycle, up to its ``watching ...`` line."""
        deadline = time.monotonic() + CYCLE_LIMIT_S
        seen: list[str] = []
        while True:
            left = deadline - time.monotonic()
            try:
                line = self.lines.get(timeout=max(left, 0.01))
            except queue.Empty:
                self.stop()
                pytest.fail(f"no end of cycle within {CYCLE_LIMIT_S} s: {seen}{self.stderr}")
            if line is None:
                pytest.fail(f"astest --watch ended: {seen}{self.stderr}")
            seen.append(line)
            if line.startswith(WATCHING):
                return seen

    def interrupt(self, signum: int = signal.SIGINT) -> int:
        self.process.send_signal(signum)
        code = self.process.wait(timeout=60)
        self._stderr_reader.join(timeout=60)  # all it wrote, up to its last words
        return code

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        # Each pipe is closed once its reader has read it to the end (else each leaks a file,
        # which pytest reports as a ResourceWarning).
        for reader, pipe in (
            (self._stdout_reader, self.process.stdout),
            (self._stderr_reader, self.process.stderr),
        ):
            reader.join(timeout=60)
            if pipe is not None and not reader.is_alive():
                pipe.close()


def ran(lines: list[str]) -> list[tuple[str, str, str]]:
    """(verdict, mode, spec) of each spec line a cycle printed."""
    return sorted(m.groups() for line in lines if (m := SPEC_LINE.match(line)))  # type: ignore[misc]


def totals_line(lines: list[str]) -> str:
    return next(line for line in lines if line.startswith("tests: "))


def astest(project: Project, *args: str) -> tuple[int, str]:
    proc = subprocess.run(
        [sys.executable, "-m", "astest_tasks", *args],
        cwd=project.root,
        capture_output=True,
        text=True,
        timeout=600,
        env=_doit_environment(None),
        stdin=subprocess.DEVNULL,
    )
    return proc.returncode, proc.stdout + proc.stderr


def edit(path: Path, change: Callable[[str], str]) -> None:
    path.write_text(change(path.read_text()))


ADDED_TEST = """
describe("added while watching", () => {
  test("sums", () => {
    expect(2 + 2).toBe(4);
  });
});
"""


def test_a_save_runs_exactly_the_affected_specs(
    fresh_project: Callable[[str], Project], toolchain: Toolchain
) -> None:
    project = fresh_project("passing")
    watcher = Watcher(project)
    try:
        first = watcher.cycle()
        assert first[0].endswith("astest --watch: first run")
        assert len(ran(first)) == 10  # every spec in both modes, none cached
        assert totals_line(first) == passing_tests_line(toolchain)

        # A spec: that spec alone, in both modes.
        edit(project.root / "assembly/__tests__/geometry.spec.ts", lambda text: text + ADDED_TEST)
        saved = time.monotonic()
        spec_cycle = watcher.cycle()
        print(f"spec saved -> result printed: {time.monotonic() - saved:.2f} s")
        assert "changed: assembly/__tests__/geometry.spec.ts" in spec_cycle[0]
        assert ran(spec_cycle) == [
            ("PASS", "bindings", "geometry"),
            ("PASS", "wasi", "geometry"),
        ]
        assert totals_line(spec_cycle).startswith("tests: 26 passed, 0 failed")

        # An imported helper, broken: the two specs that import it, failing.
        counter = project.root / "assembly/lib/counter.ts"
        original = counter.read_text()
        edit(counter, lambda text: text.replace("n++", "n += 2"))
        saved = time.monotonic()
        broken = watcher.cycle()
        print(f"helper saved -> result printed: {time.monotonic() - saved:.2f} s")
        assert ran(broken) == [
            ("FAIL", "bindings", "right/shared"),
            ("FAIL", "bindings", "snap"),
            ("FAIL", "wasi", "right/shared"),
            ("FAIL", "wasi", "snap"),
        ]
        # with what failed, under each failing spec
        assert " FAIL  assembly/__tests__/right/shared.spec.ts [wasi]" in broken
        assert totals_line(broken).startswith("tests: 20 passed, 6 failed")

        # Mended: the same specs pass again; the last cycle passed, so Ctrl-C exits 0.
        counter.write_text(original)
        mended = watcher.cycle()
        assert [(mode, spec) for _, mode, spec in ran(mended)] == [
            (mode, spec) for _, mode, spec in ran(broken)
        ]
        assert {verdict for verdict, _, _ in ran(mended)} == {"PASS"}
        started = time.monotonic()
        assert watcher.interrupt() == 0, "".join(watcher.stderr)
        print(f"Ctrl-C -> exit: {time.monotonic() - started:.2f} s")
    finally:
        watcher.stop()

    # doit's state and the results are whole: a plain run finds everything cached.
    code, output = astest(project)
    assert code == 0, output
    assert EXECUTED.findall(output) == ["astest:summary"], output
    assert "tests: 26 passed, 0 failed" in output


def test_a_compile_error_is_reported_and_watching_goes_on(
    fresh_project: Callable[[str], Project],
) -> None:
    project = fresh_project("passing")
    watcher = Watcher(project, "--mode", "wasi", "--spec", "geometry")
    try:
        first = watcher.cycle()
        assert ran(first) == [("PASS", "wasi", "geometry")]

        spec = project.root / "assembly/__tests__/geometry.spec.ts"
        edit(spec, lambda text: text + "\nlet broken: i32 = ;\n")
        failed = watcher.cycle()
        assert ran(failed) == [("FAIL", "wasi", "geometry")]
        assert any("build failed" in line for line in failed), failed

        # A broken config stops the run before any task, and is named; watching goes on, and
        # mending the config reloads the tasks.
        config = project.root / "as-test.config.json"
        original = config.read_text()
        config.write_text(original.replace('"modes"', '"modes": 3, "x"', 1))
        refused = watcher.cycle()
        assert "changed: as-test.config.json" in refused[0]
        assert "the run stopped with exit code 3 (see above)" in refused
        assert ran(refused) == []
        config.write_text(original)
        reloaded = watcher.cycle()
        assert ran(reloaded) == [("FAIL", "wasi", "geometry")]  # the spec is still broken
        # SIGTERM (how CI cancels) stops it as Ctrl-C does; the last cycle failed: exit 1.
        assert watcher.interrupt(signal.SIGTERM) == 1, "".join(watcher.stderr)
    finally:
        watcher.stop()


def test_started_while_another_doit_runs_it_waits_for_it_then_runs(
    fresh_project: Callable[[str], Project],
) -> None:
    project = fresh_project("passing")
    lock = project.root / ".as-test/cache/project.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    holder = os.open(lock, os.O_RDWR | os.O_CREAT)  # held here as another doit would hold it
    fcntl.flock(holder, fcntl.LOCK_EX)
    os.pwrite(holder, b"pid 4242", 0)
    watcher = Watcher(project, "--mode", "wasi", "--spec", "geometry")
    try:
        refused = watcher.cycle()
        assert "the run stopped with exit code 3 (see above)" in refused, refused
        assert ran(refused) == []
        waiting = watcher.lines.get(timeout=CYCLE_LIMIT_S)
        assert waiting == "waiting for the other doit (pid 4242) to finish; Ctrl-C stops"
        os.close(holder)  # that doit is done: the watch runs at once, no save needed
        holder = -1
        resumed = watcher.cycle()
        assert "the other doit has finished: running again" in resumed[0], resumed
        assert ran(resumed) == [("PASS", "wasi", "geometry")]
        # From now on it holds the project: a plain run beside it is refused.
        code, output = astest(project, "--mode", "wasi")
        assert code == 3 and f"(pid {watcher.process.pid})" in output, output
        assert watcher.interrupt() == 0
    finally:
        if holder >= 0:
            os.close(holder)
        watcher.stop()


def test_stopped_mid_cycle_it_leaves_every_file_whole(
    fresh_project: Callable[[str], Project],
) -> None:
    project = fresh_project("passing")
    selection = ("--mode", "wasi", "--spec", "geometry")
    # The second cycle stops mid-write of its result (pause_hook), where the signal lands.
    marker = project.root.parent / ".paused-watch"
    point = {"kind": "fsync", "target": "*/.*.result.jsonl.*.tmp", "nth": 2, "marker": str(marker)}
    hooked = {
        "ASTEST_TEST_PAUSE": json.dumps(point),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(HOOK), os.environ.get("PYTHONPATH")])),
    }
    watcher = Watcher(project, *selection, env=hooked)
    try:
        assert ran(watcher.cycle()) == [("PASS", "wasi", "geometry")]
        edit(project.root / "assembly/__tests__/geometry.spec.ts", lambda text: text + ADDED_TEST)
        deadline = time.monotonic() + REACH_LIMIT_S
        while not marker.exists():  # the hook's own signal that it waits there
            assert watcher.process.poll() is None, "".join(watcher.stderr)
            assert time.monotonic() < deadline, "the second cycle never wrote its result"
            time.sleep(0.05)
        assert watcher.interrupt() == 1, "an interrupted cycle counts as failed"
    finally:
        watcher.stop()

    for path in (project.root / ".as-test").rglob("*.json"):
        if path.name.endswith(".result.jsonl"):
            assert read_result(path) is not None, path  # none torn (three JSON lines)
        else:
            json.loads(path.read_text())  # none torn
    assert not list((project.root / ".as-test").rglob("*.tmp")), "no temporary file is left"
    # The interrupted run was not recorded: a plain run runs it, and the next one nothing.
    code, output = astest(project, *selection)
    assert code == 0 and "astest:run:wasi:geometry" in EXECUTED.findall(output), output
    assert "tests: 7 passed, 0 failed" in output
    code, output = astest(project, *selection)
    assert code == 0 and EXECUTED.findall(output) == ["astest:summary"], output


# astest --watch counting the builds that took a compile started ahead of them, and the runs that
# took a module compiled ahead (build_prefetch, module_shelf).
_COUNTING_WATCH = """
import atexit, sys
import astest_tasks.run.module_shelf as module_shelf
from astest_tasks.schedule.scheduler import Scheduler
taken, modules = [], []
take_prefetched, take_module = Scheduler.take_prefetched, module_shelf.ModuleShelf.take
def counting_take(self, request, into):
    output = take_prefetched(self, request, into)
    if output is not None:
        taken.append(request.spec.spec_id)
    return output
def counting_module(self, engine, wasm):
    module = take_module(self, engine, wasm)
    if module is not None:
        modules.append(module)
    return module
Scheduler.take_prefetched, module_shelf.ModuleShelf.take = counting_take, counting_module
atexit.register(lambda: print(f"AHEAD taken={taken} modules={len(modules)}", file=sys.stderr))
from astest_tasks.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_a_saved_spec_is_compiled_from_its_first_event_and_its_module_ready_for_the_run(
    fresh_project: Callable[[str], Project],
) -> None:
    """The head start: the build of a saved spec starts before its cycle loads the tasks, and
    the cycle's build and run take what it made; the result is the plain run's."""
    project = fresh_project("passing")
    watcher = Watcher(
        project, "--mode", "wasi", "--spec", "geometry", launcher=("-c", _COUNTING_WATCH)
    )
    try:
        first = watcher.cycle()
        assert ran(first) == [("PASS", "wasi", "geometry")]
        assert totals_line(first).startswith("tests: 6 passed, 0 failed"), first
        edit(project.root / "assembly/__tests__/geometry.spec.ts", lambda text: text + ADDED_TEST)
        saved = watcher.cycle()
        assert ran(saved) == [("PASS", "wasi", "geometry")]
        assert totals_line(saved).startswith("tests: 7 passed, 0 failed"), saved
        assert watcher.interrupt() == 0, "".join(watcher.stderr)
    finally:
        watcher.stop()
    counts = next((line for line in watcher.stderr if line.startswith("AHEAD ")), "")
    assert counts.strip() == "AHEAD taken=['geometry'] modules=1", "".join(watcher.stderr)
    # What the head start built is what a plain build makes: nothing left to do.
    code, output = astest(project, "--mode", "wasi", "--spec", "geometry")
    assert code == 0 and EXECUTED.findall(output) == ["astest:summary"], output
    assert not list((project.root / ".as-test").rglob(".asc-prefetch-*"))


def test_stopped_while_warming_its_compiler_it_leaves_no_scratch_folder(
    fresh_project: Callable[[str], Project], tmp_path: Path
) -> None:
    """Between cycles the watcher compiles the project's specs again into a scratch folder of
    its own, to warm its compile server; Ctrl-C in the middle of that removes the folder."""
    scratch_parent = tmp_path / "tmp"
    scratch_parent.mkdir()
    project = fresh_project("passing")
    watcher = Watcher(
        project, "--mode", "wasi", "--spec", "geometry", env={"TMPDIR": str(scratch_parent)}
    )
    try:
        assert ran(watcher.cycle()) == [("PASS", "wasi", "geometry")]
        deadline = time.monotonic() + CYCLE_LIMIT_S
        while not list(scratch_parent.glob("astest-warmup-*")):  # the warm-up has begun
            assert watcher.process.poll() is None, "".join(watcher.stderr)
            assert time.monotonic() < deadline, "no warm-up began after the first cycle"
            time.sleep(0.01)
        assert watcher.interrupt(signal.SIGTERM) == 0, "".join(watcher.stderr)
    finally:
        watcher.stop()
    assert list(scratch_parent.iterdir()) == []
