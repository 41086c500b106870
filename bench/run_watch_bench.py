"""Benchmark the watch cycle: `astest --watch` against as-test 1.8.0's `ast test --watch`.

    /path/to/venv/bin/python bench/run_watch_bench.py                # 10 specs, 5 edits each
    /path/to/venv/bin/python bench/run_watch_bench.py --edits 2      # a smoke run

A small suite (generate_suite.py, ``--specs`` specs, ``node_modules`` linked to
tests/toolchains/as-test-1.8.0's, so both tools compile with the same assemblyscript) is generated
under ``bench/.work/`` twice, one copy per tool. Both watchers are started, one after the other,
and each is ready when it prints the line that ends a cycle (ours: ``watching N files for
changes``; as-test 1.8: ``Watching for changes.``). Then, in rounds (which tool goes first flips
every round), the smallest spec of the suite is saved with a new ``REVISION`` constant
(``--save``: rewritten in place by default, or a temporary dotfile renamed over it), and the
benchmark waits, reading the watcher's output as it comes, for that spec's ``PASS`` line, then for
the end of the cycle. The figures are the time from the save to each line (``time.perf_counter``
on the line's arrival); the first round is a warm-up, not measured. The watchers idle while the
other one works. Each save waits until its watcher is idle (its processes used no CPU for
0.5 s, read from /proc), as a person saves at a human pace: ours warms its compile server for a
few seconds after its first cycle, and a save made meanwhile waits for one warm-up compile.
``--no-idle-wait`` saves as soon as the last cycle ended.

Every wait is for an event (a line of output), with a timeout that fails the benchmark rather
than a figure: there are no fixed sleeps. A failing spec, a watcher that exits, or a cycle that
does not name the saved spec stops the benchmark. Ctrl-C stops both watchers (SIGINT to each
one's process group).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import queue
import re
import shlex
import signal
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import generate_suite
import run_bench
import run_big_bench
from run_bench import ANSI, BenchError, Project, clean, fmt_s, positive, run_env

WORK = run_bench.WORK
NODE_MODULES = run_bench.NODE_MODULES_18
WAIT_TIMEOUT_S = 300.0  # a cycle that takes longer is broken, not slow
IDLE_WINDOW_S = 0.5  # a watcher is idle once its processes used no CPU for this long
IDLE_POLL_S = 0.1

# Goals from issue 17: one small spec saved -> its result printed.
GOAL_OURS_S = 0.5
GOAL_RATIO = 0.5


@dataclass(frozen=True)
class Watcher:
    """How one tool watches, and the lines that mark its cycles."""

    tool: str
    ready: re.Pattern[str]  # the line that ends a cycle: the watcher waits for changes
    started: re.Pattern[str]  # the line that starts a cycle caused by a change (group 1: file)
    failed: re.Pattern[str]

    def result(self, spec: str) -> re.Pattern[str]:
        """The line that reports the spec passing."""
        if self.tool == "as-test":  # " PASS  s0003.spec.ts 8.1ms"
            return re.compile(rf"^\s*PASS\s+{re.escape(spec)}\.spec\.ts\b")
        return re.compile(rf"^\s*PASS\s+\S+\s+{re.escape(spec)}\s")  # " PASS  default  s0003  …"


OURS = Watcher(
    "astest",
    ready=re.compile(r"^watching \d+ files for changes"),
    started=re.compile(r"^\[[0-9:]+\] changed: (.*)"),
    failed=re.compile(r"^\s*(FAIL|ERROR)\b|the run stopped with exit code"),
)
THEIRS = Watcher(
    "as-test",
    ready=re.compile(r"^Watching for changes\."),
    started=re.compile(r"Change detected: (.*)"),
    failed=re.compile(r"^\s*FAIL\b|Currently failing|^Error: "),
)


class Running:
    """A watcher process whose output lines are read, and stamped on arrival, by a thread."""

    def __init__(self, watcher: Watcher, argv: Sequence[str], project: Project) -> None:
        self.watcher = watcher
        self.argv = list(argv)
        self.lines: queue.Queue[tuple[float, str | None]] = queue.Queue()
        self.log: list[str] = []
        self.proc = subprocess.Popen(
            self.argv,
            cwd=project.path,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=run_env(project),
            start_new_session=True,  # stopped with everything it started, and nothing else
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in iter(self.proc.stdout.readline, b""):
            arrived = time.perf_counter()
            self.lines.put((arrived, ANSI.sub("", raw.decode(errors="replace")).rstrip()))
        self.lines.put((time.perf_counter(), None))

    def wait_for(self, pattern: re.Pattern[str], what: str) -> tuple[float, str]:
        """The arrival time and text of the next line matching pattern; fails on a failure
        line, on the watcher's exit and after WAIT_TIMEOUT_S."""
        deadline = time.perf_counter() + WAIT_TIMEOUT_S
        while True:
            try:
                arrived, line = self.lines.get(timeout=max(0.0, deadline - time.perf_counter()))
            except queue.Empty:
                raise self.error(f"no {what} within {WAIT_TIMEOUT_S:.0f} s") from None
            if line is None:
                raise self.error(f"exited ({self.proc.wait()}) while waiting for {what}")
            self.log.append(line)
            if self.watcher.failed.search(line):
                raise self.error(f"reported a failure while waiting for {what}: {line!r}")
            if pattern.search(line):
                return arrived, line

    def drain(self) -> list[str]:
        """The lines printed since the last wait (an idle watcher prints none)."""
        found: list[str] = []
        while True:
            try:
                _, line = self.lines.get_nowait()
            except queue.Empty:
                return found
            if line is None:
                raise self.error(f"exited ({self.proc.wait()}) while idle")
            self.log.append(line)
            found.append(line)

    def cpu_ticks(self) -> int:
        """CPU time (clock ticks) used so far by the watcher's processes still running (its
        session: it and every process it started)."""
        total = 0
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rpartition(")")[2].split()
            except OSError:
                continue  # ended meanwhile
            if int(fields[3]) == self.proc.pid:  # the process group: its session's leader
                total += int(fields[11]) + int(fields[12])  # utime + stime
        return total

    def wait_until_idle(self) -> float:
        """Wait until the watcher has used no CPU for IDLE_WINDOW_S (after a cycle it may still
        work: ours warms its compile server); the seconds waited. Polls /proc, which has no
        event to wait for."""
        started = deadline = time.perf_counter()
        deadline += WAIT_TIMEOUT_S
        quiet_since, last = time.perf_counter(), self.cpu_ticks()
        while time.perf_counter() - quiet_since < IDLE_WINDOW_S:
            if time.perf_counter() > deadline:
                raise self.error(f"never idle for {IDLE_WINDOW_S} s within {WAIT_TIMEOUT_S:.0f} s")
            time.sleep(IDLE_POLL_S)
            now = self.cpu_ticks()
            if now != last:
                quiet_since, last = time.perf_counter(), now
        return time.perf_counter() - started

    def error(self, message: str) -> BenchError:
        tail = "\n".join("    " + line for line in self.log[-25:])
        return BenchError(f"{self.watcher.tool} (`{shlex.join(self.argv)}`) {message}:\n{tail}")

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGINT)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


@dataclass
class Sample:
    tool: str
    edit: int
    to_result_s: float  # save -> the spec's PASS line
    to_ready_s: float  # save -> the line that ends the cycle


@dataclass
class Results:
    samples: list[Sample] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def values(self, tool: str, what: str) -> list[float]:
        return [float(getattr(s, what)) for s in self.samples if s.tool == tool]


def smallest_spec(specs: int) -> int:
    """The index of the generated spec with the least code: the "one small spec" edited."""
    return min(range(specs), key=lambda index: len(generate_suite.spec_source(index)))


SAVES = ("in-place", "rename")


def save(path: Path, text: str, how: str) -> float:
    """Save the file the way an editor does; the time the save started.

    ``in-place``: the file rewritten in one write (VS Code's way). ``rename``: a new file
    renamed over the old one, atomically (vim's and many others'); its temporary file is a
    dotfile not ending in .ts, which neither watcher treats as a source.
    """
    if how == "in-place":
        saved = time.perf_counter()
        with path.open("w", encoding="utf-8") as out:
            out.write(text)
        return saved
    temporary = path.with_name(f".{path.name}.bench-tmp")
    temporary.write_text(text, encoding="utf-8")
    saved = time.perf_counter()
    os.replace(temporary, path)
    return saved


def one_edit(
    running: Running, project: Project, index: int, revision: int, how: str, idle: bool
) -> tuple[float, float]:
    """Save the spec with a new revision (once the watcher is idle, with ``idle``); (seconds to
    its result line, to the cycle's end)."""
    watcher = running.watcher
    if idle:
        running.wait_until_idle()
    for line in running.drain():  # an idle watcher has printed nothing since its last cycle
        if watcher.started.search(line):
            raise running.error(f"started a cycle nobody asked for: {line!r}")
    spec = generate_suite.spec_name(index)
    path = generate_suite.spec_path(project.path, index)
    saved = save(path, generate_suite.spec_source(index, revision), how)
    _, header = running.wait_for(watcher.started, "cycle for the saved spec")
    if spec not in header:
        raise running.error(f"started a cycle for something else than {spec}: {header!r}")
    result, _ = running.wait_for(watcher.result(spec), f"PASS line of {spec}")
    ready, _ = running.wait_for(watcher.ready, "end of the cycle")
    return result - saved, ready - saved


def our_argv() -> list[str]:
    beside = Path(sys.executable).parent / "astest"
    if beside.is_file():
        return [str(beside), "--watch"]
    return [sys.executable, "-c", "import sys; from astest_tasks.cli import main; sys.exit(main())"]


def their_argv() -> list[str]:
    return ["node", "node_modules/as-test/bin/index.js", "test", "--watch"]


def prepare(tool: str, specs: int) -> Project:
    path = WORK / f"watch-{specs}-{tool}"
    generate_suite.generate(path, specs, NODE_MODULES, toolchain="1.8.0")  # resets the edited spec
    project = Project(tool, path, specs, "1.8.0")
    clean(project)
    return project


def build_once(project: Project, argv: Sequence[str]) -> None:
    """A plain run of the tool (its watch argv without --watch), so that the watcher starts on a
    project already built, as it usually does after a first ``doit``."""
    plain = [word for word in argv if word != "--watch"]
    done = subprocess.run(
        plain,
        cwd=project.path,
        env=run_env(project),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"ERROR: {' '.join(plain)} exited {done.returncode} in {project.path}")


def run(specs: int, edits: int, how: str, idle: bool, results: Results, built: bool) -> None:
    index = smallest_spec(specs)
    projects = {"astest": prepare("astest", specs), "as-test": prepare("as-test", specs)}
    if built:
        build_once(projects["astest"], our_argv())
        build_once(projects["as-test"], their_argv())
    print(f"\nedited spec: {generate_suite.spec_name(index)} (the smallest of {specs})", flush=True)
    running: dict[str, Running] = {}
    try:
        for watcher, argv in ((OURS, our_argv()), (THEIRS, their_argv())):
            project = projects[watcher.tool]
            started = time.perf_counter()
            running[watcher.tool] = Running(watcher, argv, project)
            running[watcher.tool].wait_for(watcher.ready, "end of the first cycle")
            seconds = time.perf_counter() - started
            start = "built" if built else "cold"
            print(
                f"  {watcher.tool:8} first cycle ({specs} specs, {start}) {seconds:6.2f} s",
                flush=True,
            )
        for edit in range(edits + 1):  # edit 0 is the warm-up
            order = ["astest", "as-test"] if edit % 2 == 0 else ["as-test", "astest"]
            for tool in order:
                to_result, to_ready = one_edit(
                    running[tool], projects[tool], index, edit + 1, how, idle
                )
                label = "warm-up" if edit == 0 else f"edit {edit}/{edits}"
                print(
                    f"  {tool:8} {label:10} result {to_result:6.3f} s  cycle end {to_ready:6.3f} s",
                    flush=True,
                )
                if edit:
                    results.samples.append(Sample(tool, edit, to_result, to_ready))
    finally:
        for proc in running.values():
            proc.stop()


def median(values: Sequence[float]) -> float | None:
    return statistics.median(values) if values else None


def render(specs: int, results: Results) -> str:
    edits = len(results.values("astest", "to_result_s"))
    out = [
        f"watch cycle on {specs} specs, one small spec saved: medians of {edits} edit(s), seconds",
        "",
        "| save -> | as-test 1.8.0 `ast test --watch` (s) | `astest --watch` (s) | ours/theirs |",
        "|---|---:|---:|---:|",
    ]
    for label, what in (("its PASS line", "to_result_s"), ("end of the cycle", "to_ready_s")):
        t = median(results.values("as-test", what))
        o = median(results.values("astest", what))
        ratio = None if t is None or o is None or t == 0 else o / t
        out.append(
            f"| {label} | {fmt_s(t)} | {fmt_s(o)} | {'-' if ratio is None else f'{ratio:.3f}'} |"
        )
    t = median(results.values("as-test", "to_result_s"))
    o = median(results.values("astest", "to_result_s"))
    if t and o is not None:
        out += [
            "",
            f"ours, save -> result: {o:.3f} s (goal < {GOAL_OURS_S:g} s: "
            f"{'yes' if o < GOAL_OURS_S else 'no'}); ours/theirs {o / t:.3f} "
            f"(goal <= {GOAL_RATIO:g}: {'yes' if o / t <= GOAL_RATIO else 'no'})",
        ]
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--specs", type=positive, default=10, help="specs in the suite [10]")
    parser.add_argument("--edits", type=positive, default=5, help="measured edits per tool [5]")
    parser.add_argument(
        "--save",
        choices=SAVES,
        default="in-place",
        help="how the spec is saved: rewritten in place, or a new file renamed over it (as-test "
        "1.8 on Node 20 sees only the first such save: its recursive fs.watch loses the "
        "replaced file) [in-place]",
    )
    parser.add_argument(
        "--code",
        choices=["head", "worktree"],
        default="head",
        help="measure astest_tasks as committed (HEAD) or as installed [head]",
    )
    parser.add_argument(
        "--no-idle-wait",
        dest="idle",
        action="store_false",
        help="save as soon as the last cycle ended, not once the watcher is idle (ours warms "
        "its compile server for a few seconds after its first cycle; a save then waits for "
        "one warm-up compile)",
    )
    parser.add_argument(
        "--built",
        action="store_true",
        help="build each project once with a plain run before its watcher starts (the usual "
        "case: watching a project already built), instead of starting from clean outputs",
    )
    parser.add_argument("--json", type=Path, default=WORK / "watch-results.json")
    args = parser.parse_args(argv)
    info = run_big_bench.begin(args.code)
    if info is None:
        return 3
    results = Results()
    status = 0
    try:
        run(args.specs, args.edits, args.save, args.idle, results, args.built)
    except BenchError as exc:
        print(f"\nBENCHMARK INVALID: {exc}", file=sys.stderr)
        status = 1
    except KeyboardInterrupt:
        print("\ninterrupted: the figures below are partial\n")
        status = 130
    info["load average at the end"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(
        json.dumps({"versions": info, "samples": [asdict(s) for s in results.samples]}, indent=2)
        + "\n"
    )
    print(f"\n(load average at the end {info['load average at the end']}; samples in {args.json})")
    print()
    print(render(args.specs, results))
    return status


if __name__ == "__main__":
    sys.exit(main())
