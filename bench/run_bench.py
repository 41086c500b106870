"""Benchmark astest-tasks (`doit`) against as-test 1.0.7 and 1.8.0's own CLI (`npx ast test`).

    /path/to/venv/bin/python bench/run_bench.py             # full run (long: see --help)
    /path/to/venv/bin/python bench/run_bench.py --quick     # a smoke run of a few minutes

Run it with the Python of the environment astest-tasks and its dependencies are installed in (its
`doit` is used), from anywhere; the suites are generated under ``bench/.work/`` (gitignored) with
``node_modules`` linked to the repository's, so ``npm ci`` must have run at the repository root.
By default the astest_tasks measured is the committed one (HEAD, exported to ``bench/.work/`` and
put first on PYTHONPATH), so half-finished edits in the working tree do not leak into the figures;
``--code worktree`` measures the installed package instead.

What is measured, for each as-test version of ``--against`` (both by default) on a generated
suite of passing specs (one wasi target; ``--compare-size`` specs against 1.0.7, with the
repository's node_modules, ``--compare-size-18`` against 1.8.0, with
tests/toolchains/as-test-1.8.0's, which doit then compiles with too), alternating the two tools
(which one goes first flips every repetition), each tool in its own copy of the suite so neither
sees the other's outputs:

- cold, serial: ``npx ast test`` vs ``doit``, both from clean outputs (everything under
  ``.as-test/`` but the runner scripts and snapshots, which a real project keeps, doit's
  ``.doit.db*``, and the user-level cache folder each run is pointed at with XDG_CACHE_HOME,
  where wasmtime keeps compiled code, deleted);
- no-change rerun: the same commands again right after;
- one spec changed: one spec's code rewritten (a new revision constant, so its wasm changes), then
  the same commands;
- cold, parallel: ``npx ast test --parallel`` (``--their-parallel``; against 1.8.0
  ``--jobs 2``, ``--their-parallel-18``) vs ``doit -n 2``.

Against 1.8.0 the serial runs pass ``--cache`` (its incremental cache: unchanged specs are
neither rebuilt nor rerun), its best for reruns; clean outputs remove that cache too.

Then the cost of ``doit`` alone at each of ``--sizes`` specs: cold and no-op.

Every run must exit 0 and report every spec, with the same spec and test counts from both tools;
otherwise the benchmark stops (a benchmark of a broken run is worthless). It prints the medians,
the ratios ours/theirs against the goals of issues 4 and 17, and writes every sample to a JSON
file.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import platform
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import NoReturn

import generate_suite

REPO = Path(__file__).resolve().parents[1]
WORK = REPO / "bench" / ".work"
NODE_MODULES = REPO / "node_modules"
NODE_MODULES_18 = REPO / "tests" / "toolchains" / "as-test-1.8.0" / "node_modules"
RUN_TIMEOUT_S = 3600.0

# Goals from issue 4 (ratios are ours / theirs), but for a serial cold run: issue 17 set it to
# 0.8 for both as-test versions.
GOAL_COLD_PARALLEL = 0.5
GOAL_COLD_SERIAL = 0.8
GOAL_NO_CHANGE = 0.05
GOAL_ONE_CHANGED = 0.25
GOAL_NOOP_100_S = 1.0
# Goal from issue 17: `doit -n 2` no slower than serial `doit` (ratio parallel / serial).
GOAL_PARALLEL_VS_SERIAL = 1.0


@dataclass(frozen=True)
class Rival:
    """An as-test version measured against: its toolchain and the flags of its best serial run."""

    version: str
    node_modules: Path
    serial_flags: tuple[str, ...]  # added to its cold, no-change and one-changed runs
    goals: tuple[tuple[str, float], ...]  # (scenario, goal ratio ours/theirs)

    def goal(self, scenario: str) -> float | None:
        return dict(self.goals).get(scenario)


RIVALS = {
    # Goals from issue 4, and issue 17's for a serial cold run.
    "1.0.7": Rival(
        "1.0.7",
        NODE_MODULES,
        (),
        (
            ("cold", GOAL_COLD_SERIAL),
            ("cold-parallel", GOAL_COLD_PARALLEL),
            ("no-change", GOAL_NO_CHANGE),
            ("one-changed", GOAL_ONE_CHANGED),
        ),
    ),
    # Goals from issue 17: against 1.8's --cache, its best.
    "1.8.0": Rival(
        "1.8.0", NODE_MODULES_18, ("--cache",), (("cold", GOAL_COLD_SERIAL), ("no-change", 0.35))
    ),
}

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
AST_COUNT = re.compile(r"^(Files|Tests):\s+(\d+) failed,\s+(\d+) skipped,\s+(\d+) total")
DOIT_FILES = re.compile(
    r"^files:\s+(\d+) passed,\s+(\d+) failed,\s+(\d+) skipped(?:\s+\((\d+) cached\))?"
)
DOIT_TESTS = re.compile(r"^tests:\s+(\d+) passed,\s+(\d+) failed,\s+(\d+) skipped")


class BenchError(Exception):
    """A run failed or reported something other than every spec passing: stop the benchmark."""


def exit_with(main: Callable[[], int]) -> NoReturn:
    """Exit with ``main()``'s status; a ``BenchError`` is one line on stderr and status 1, and
    Ctrl-C status 130 (for the benchmarks that keep no partial figures)."""
    try:
        sys.exit(main())
    except BenchError as exc:
        print(f"bench: {exc}", file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:
        sys.exit(130)


@dataclass(frozen=True)
class Counts:
    specs: int
    tests: int
    cached: int | None  # doit only: results shown from the cache


@dataclass
class Sample:
    tool: str  # "as-test" or "doit"
    scenario: str
    size: int
    seconds: float
    command: str
    counts: Counts
    against: str = "1.0.7"  # the as-test version (toolchain) of the comparison


@dataclass
class Results:
    samples: list[Sample] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def times(self, tool: str, scenario: str, size: int, against: str = "1.0.7") -> list[float]:
        return [
            s.seconds
            for s in self.samples
            if s.tool == tool and s.scenario == scenario and s.size == size and s.against == against
        ]


# ---------------------------------------------------------------------------------------------
# Projects and commands


@dataclass(frozen=True)
class Project:
    tool: str
    path: Path
    size: int
    against: str = "1.0.7"  # the as-test version whose toolchain node_modules links to

    @property
    def label(self) -> str:
        return f"as-test {self.against}" if self.tool == "as-test" else self.tool


def prepare(tool: str, size: int, against: str = "1.0.7") -> Project:
    suffix = "" if against == "1.0.7" else f"-{against}"
    path = WORK / f"suite-{size}-{tool}{suffix}"
    # Also resets a changed spec to revision 0.
    generate_suite.generate(path, size, RIVALS[against].node_modules, toolchain=against)
    return Project(tool, path, size, against)


def clean(project: Project) -> None:
    """Remove the tool's outputs, doit's state and the run's user-level caches.

    The runner scripts and snapshots under ``.as-test/`` stay: a real project keeps them in git.
    """
    out = project.path / ".as-test"
    if out.is_dir():
        for entry in out.iterdir():
            if entry.name in {"runners", "snapshots"}:
                continue
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
    shutil.rmtree(project.path / CACHE_DIR_NAME, ignore_errors=True)
    for state in project.path.glob(".doit.db*"):
        if state.is_dir():
            shutil.rmtree(state)
        else:
            state.unlink()


# Where the astest_tasks package the suites' dodo.py imports comes from: None means the
# installed one (the working tree, for an editable install); else a folder put first on PYTHONPATH.
CODE_DIR: Path | None = None


def export_head() -> tuple[Path, str]:
    """Export the committed tree (HEAD) once per commit; its astest_tasks is what gets measured.

    The working tree may hold someone's half-finished edits; HEAD is what is on main.
    """
    commit = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.strip()
    dest = WORK / f"code-{commit[:12]}"
    if not (dest / "astest_tasks").is_dir():
        archive = subprocess.run(
            ["git", "archive", "--format=tar", commit], cwd=REPO, capture_output=True, check=True
        ).stdout
        partial = dest.with_name(dest.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir(parents=True)
        with tempfile.TemporaryFile() as buffer:
            buffer.write(archive)
            buffer.seek(0)
            with tarfile.open(fileobj=buffer, mode="r:") as tar:
                tar.extractall(partial, filter="data")
        shutil.rmtree(dest, ignore_errors=True)
        partial.rename(dest)
        for old in WORK.glob("code-*"):  # exports of earlier commits
            if old != dest:
                shutil.rmtree(old, ignore_errors=True)
    return dest, commit


CACHE_DIR_NAME = ".bench-cache"


def run_env(project: Project | None = None) -> dict[str, str]:
    # Colour off (plain, parseable output). Bytecode caching on, as on a user's machine: a
    # PYTHONDONTWRITEBYTECODE inherited from a CI-like shell would make every doit recompile
    # astest_tasks from source.
    dropped = {"FORCE_COLOR", "CLICOLOR_FORCE", "PYTHONDONTWRITEBYTECODE"}
    # Ours reads ASTEST_*; a value left in the caller's shell must not change what is measured.
    env = {k: v for k, v in os.environ.items() if k not in dropped and not k.startswith("ASTEST_")}
    if CODE_DIR is not None:
        env["PYTHONPATH"] = os.pathsep.join(
            [str(CODE_DIR), *filter(None, [os.environ.get("PYTHONPATH")])]
        )
    env["NO_COLOR"] = "1"
    if project is not None:
        # User-level caches (wasmtime's compiled-code cache, which astest-tasks turns on, lives
        # in $XDG_CACHE_HOME/wasmtime) go to a folder of the project's own, which clean()
        # empties: a cold run starts with nothing cached anywhere, a rerun keeps what it made.
        env["XDG_CACHE_HOME"] = str(project.path / CACHE_DIR_NAME)
    return env


def doit_executable() -> str:
    beside = Path(sys.executable).parent / "doit"
    if beside.is_file():
        return str(beside)
    found = shutil.which("doit")
    if found is None:
        raise BenchError("no `doit` beside this Python or on PATH; run with the venv's Python")
    return found


def timed_run(project: Project, argv: Sequence[str], scenario: str) -> tuple[float, str, int]:
    """Run argv in the project; return (seconds, combined output, exit code).

    The command runs in a session of its own, so that a timeout or an interruption of the
    benchmark ends it with everything it started (asc processes included), and nothing else.
    """
    with tempfile.TemporaryFile(mode="w+") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(
            list(argv),
            cwd=project.path,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=run_env(project),
            start_new_session=True,
        )
        # A blocking wait, ended by a timer at the limit: Popen.wait(timeout=...) polls with
        # sleeps of up to 50 ms, which rounded every run up to a 50 ms step (a no-change run of
        # 0.27 s read as 0.315 s).
        timed_out = threading.Event()

        def stop() -> None:
            timed_out.set()
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)

        timer = threading.Timer(RUN_TIMEOUT_S, stop)
        timer.start()
        try:
            code = proc.wait()
        except BaseException:
            stop()
            proc.wait()
            raise
        finally:
            timer.cancel()
        seconds = time.perf_counter() - start
        if timed_out.is_set():
            raise BenchError(
                f"{project.tool} {scenario} at {project.size} specs: `{shlex.join(argv)}` "
                f"did not finish within {RUN_TIMEOUT_S:.0f} s"
            )
        out.seek(0)
        text = ANSI.sub("", out.read())
    return seconds, text, code


def interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def tail(text: str, lines: int = 25) -> str:
    return "\n".join("    " + line for line in text.rstrip().splitlines()[-lines:])


def as_test_counts(text: str) -> Counts:
    found: dict[str, tuple[int, int, int]] = {}
    for line in text.splitlines():
        match = AST_COUNT.match(line.strip())
        if match:
            failed, skipped, total = (int(g) for g in match.groups()[1:])
            found[match.group(1)] = (failed, skipped, total)
    if "Files" not in found or "Tests" not in found:
        raise ValueError("no `Files:`/`Tests:` totals in the output")
    files, tests = found["Files"], found["Tests"]
    if files[0] or tests[0]:
        raise ValueError(f"failures reported: {files[0]} files, {tests[0]} tests")
    return Counts(specs=files[2] - files[1], tests=tests[2] - tests[1], cached=None)


def report_path(project: Project) -> Path:
    return project.path / ".as-test" / "report.json"


def file_state(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_mtime_ns, st.st_ino


def doit_counts(text: str, project: Project, before: tuple[int, int] | None) -> Counts:
    """Counts from `.as-test/report.json` if this run wrote it, else from the summary's totals."""
    report = report_path(project)
    after = file_state(report)
    if after is not None and after != before:
        data = json.loads(report.read_text())
        totals = data.get("totals", {})
        files, tests = totals.get("files", {}), totals.get("tests", {})
        if isinstance(files, dict) and isinstance(tests, dict) and "passed" in files:
            if files.get("failed") or tests.get("failed"):
                raise ValueError(f"failures reported in {report}: {totals}")
            cached = totals.get("cached")
            return Counts(
                specs=int(files["passed"]),
                tests=int(tests["passed"]),
                cached=int(cached) if isinstance(cached, int) else None,
            )
    files_m = tests_m = None
    for line in text.splitlines():
        files_m = DOIT_FILES.match(line.strip()) or files_m
        tests_m = DOIT_TESTS.match(line.strip()) or tests_m
    if files_m is None or tests_m is None:
        raise ValueError("no fresh report.json and no `files:`/`tests:` summary lines")
    if int(files_m.group(2)) or int(tests_m.group(2)):
        raise ValueError("failures reported in the summary")
    cached_text = files_m.group(4)
    return Counts(
        specs=int(files_m.group(1)),
        tests=int(tests_m.group(1)),
        cached=int(cached_text) if cached_text else None,
    )


def measure(
    results: Results, project: Project, argv: Sequence[str], scenario: str, expect_cached: int
) -> Sample:
    report_before = file_state(report_path(project))
    seconds, text, code = timed_run(project, argv, scenario)
    where = f"{project.label} {scenario} at {project.size} specs (`{shlex.join(argv)}`)"
    if code != 0:
        raise BenchError(f"{where} exited {code}:\n{tail(text)}")
    try:
        if project.tool == "as-test":
            counts = as_test_counts(text)
        else:
            counts = doit_counts(text, project, report_before)
    except ValueError as exc:
        raise BenchError(f"{where}: {exc}:\n{tail(text)}") from None
    if counts.specs != project.size:
        raise BenchError(
            f"{where} reported {counts.specs} passing specs, expected {project.size}:\n{tail(text)}"
        )
    if project.tool == "doit" and counts.cached is not None and counts.cached != expect_cached:
        note = (
            f"{where}: {counts.cached} results cached, expected {expect_cached} "
            "(incomplete clean, or the tool re-ran what it could have reused)"
        )
        if note not in results.notes:
            results.notes.append(note)
        print(f"  NOTE {note}", flush=True)
    sample = Sample(
        project.tool, scenario, project.size, seconds, shlex.join(argv), counts, project.against
    )
    results.samples.append(sample)
    cached = "" if counts.cached is None else f", {counts.cached} cached"
    print(
        f"  {project.label:13} {scenario:18} {project.size:4} specs  {seconds:8.2f} s  "
        f"({counts.specs} specs, {counts.tests} tests{cached})",
        flush=True,
    )
    return sample


def check_agreement(theirs: Sample, ours: Sample) -> None:
    if (theirs.counts.specs, theirs.counts.tests) != (ours.counts.specs, ours.counts.tests):
        raise BenchError(
            f"{theirs.scenario}: the tools disagree: as-test {theirs.against} reported "
            f"{theirs.counts.specs} specs "
            f"and {theirs.counts.tests} tests, doit {ours.counts.specs} specs and "
            f"{ours.counts.tests} tests"
        )


# ---------------------------------------------------------------------------------------------
# The benchmark


@dataclass(frozen=True)
class Plan:
    compare_size: int
    sizes: tuple[int, ...]
    repeat: int
    scale_repeat: int
    their_parallel: tuple[str, ...]
    our_jobs: int
    against: tuple[str, ...] = ("1.0.7",)  # the as-test versions compared with, in order
    compare_size_18: int = 20
    their_parallel_18: tuple[str, ...] = ("--jobs", "2")

    def size_for(self, against: str) -> int:
        return self.compare_size if against == "1.0.7" else self.compare_size_18

    def parallel_for(self, against: str) -> tuple[str, ...]:
        return self.their_parallel if against == "1.0.7" else self.their_parallel_18


def npx_ast(*extra: str) -> list[str]:
    # --no-install: never fetch as-test from a registry if node_modules is not where it should be.
    return ["npx", "--no-install", "ast", "test", *extra]


def pair(
    results: Results,
    theirs: Project,
    ours: Project,
    theirs_first: bool,
    scenario: str,
    their_argv: Sequence[str],
    our_argv: Sequence[str],
    from_clean: bool,
    expect_cached: int,
) -> None:
    """Measure one scenario with both tools, in the given order, and check that they agree."""
    order = [(theirs, their_argv), (ours, our_argv)]
    if not theirs_first:
        order.reverse()
    samples: dict[str, Sample] = {}
    for project, argv in order:
        if from_clean:
            clean(project)
        samples[project.tool] = measure(results, project, argv, scenario, expect_cached)
    check_agreement(samples["as-test"], samples["doit"])


def compare(plan: Plan, results: Results) -> None:
    for against in plan.against:
        compare_with(plan, results, RIVALS[against])


def compare_with(plan: Plan, results: Results, rival: Rival) -> None:
    """The four scenarios against one as-test version, on a suite linked to its toolchain."""
    size = plan.size_for(rival.version)
    theirs = prepare("as-test", size, rival.version)
    ours = prepare("doit", size, rival.version)
    doit = doit_executable()
    changed_index = size // 2
    changed = generate_suite.spec_path(Path(), changed_index)
    serial = npx_ast(*rival.serial_flags)

    # Warm the page cache and let as-test write its runner script (a real project has it); for
    # doit, `doit list` imports everything and creates the tasks without building anything.
    print(
        f"\nas-test {rival.version}: warm-up (not measured): `npx ast test` and `doit list` on "
        f"{size} specs",
        flush=True,
    )
    clean(theirs)
    measure(Results(), theirs, npx_ast(), "warm-up", 0)
    clean(ours)
    seconds, text, code = timed_run(ours, [doit, "list"], "warm-up")
    if code != 0:
        raise BenchError(f"`doit list` in {ours.path} exited {code}:\n{tail(text)}")
    print(f"  doit          warm-up (doit list)  {size:4} specs  {seconds:8.2f} s", flush=True)

    for rep in range(plan.repeat):
        first_theirs = rep % 2 == 0
        print(
            f"\nas-test {rival.version}, repetition {rep + 1}/{plan.repeat} "
            f"({'as-test' if first_theirs else 'doit'} first)",
            flush=True,
        )

        pair(results, theirs, ours, first_theirs, "cold", serial, [doit], True, 0)
        pair(results, theirs, ours, first_theirs, "no-change", serial, [doit], False, size)
        revision = rep + 1
        for project in (theirs, ours):
            (project.path / changed).write_text(generate_suite.spec_source(changed_index, revision))
        pair(results, theirs, ours, first_theirs, "one-changed", serial, [doit], False, size - 1)
        pair(
            results,
            theirs,
            ours,
            first_theirs,
            "cold-parallel",
            npx_ast(*plan.parallel_for(rival.version)),
            [doit, "-n", str(plan.our_jobs)],
            True,
            0,
        )


def scale(plan: Plan, results: Results) -> None:
    doit = doit_executable()
    for size in plan.sizes:
        if size == plan.compare_size and results.times("doit", "cold", size):
            print(f"\n{size} specs: doit cold and no-op taken from the comparison runs", flush=True)
            continue
        project = prepare("doit", size)
        print(f"\ndoit alone on {size} specs", flush=True)
        for rep in range(max(plan.scale_repeat, plan.repeat)):
            if rep < plan.scale_repeat:
                clean(project)
                measure(results, project, [doit], "cold", 0)
            measure(results, project, [doit], "no-change", size)


# ---------------------------------------------------------------------------------------------
# Reporting


def median(values: Sequence[float]) -> float | None:
    return statistics.median(values) if values else None


def fmt_s(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def render_comparison(plan: Plan, results: Results, rival: Rival) -> list[str]:
    """The table of one as-test version against doit, and doit -n N against serial doit."""
    size, version = plan.size_for(rival.version), rival.version
    serial = shlex.join(["npx", "ast", "test", *rival.serial_flags])
    rows = [
        ("cold, serial", "cold", serial, "doit"),
        (
            "cold, parallel",
            "cold-parallel",
            shlex.join(["npx", "ast", "test", *plan.parallel_for(version)]),
            f"doit -n {plan.our_jobs}",
        ),
        ("no-change rerun", "no-change", serial, "doit"),
        ("one spec changed", "one-changed", serial, "doit"),
    ]
    out = [
        f"as-test {version} vs doit on {size} specs: medians of {plan.repeat} run(s), seconds",
        "",
        f"| scenario | theirs | as-test {version} (s) | ours | doit (s) | ours/theirs | goal "
        "| met |",
        "|---|---|---:|---|---:|---:|---:|---|",
    ]
    for label, scenario, their_cmd, our_cmd in rows:
        t = median(results.times("as-test", scenario, size, version))
        o = median(results.times("doit", scenario, size, version))
        ratio = None if t is None or o is None or t == 0 else o / t
        goal = rival.goal(scenario)
        met = "-" if ratio is None or goal is None else ("yes" if ratio <= goal else "no")
        out.append(
            f"| {label} | `{their_cmd}` | {fmt_s(t)} | `{our_cmd}` | {fmt_s(o)} | "
            f"{'-' if ratio is None else f'{ratio:.3f}'} | "
            f"{'-' if goal is None else f'<= {goal:g}'} | {met} |"
        )
    cold = median(results.times("doit", "cold", size, version))
    parallel = median(results.times("doit", "cold-parallel", size, version))
    if cold and parallel is not None:
        ratio = parallel / cold
        met = "yes" if ratio <= GOAL_PARALLEL_VS_SERIAL else "no"
        out.append(
            f"\ndoit -n {plan.our_jobs} / serial doit, cold: {ratio:.3f} "
            f"(goal <= {GOAL_PARALLEL_VS_SERIAL:g}: {met})"
        )
    return out


def render(plan: Plan, results: Results) -> str:
    out: list[str] = []
    for against in plan.against:
        out += [*render_comparison(plan, results, RIVALS[against]), ""]
    out += [
        "doit alone: medians, seconds (per spec = cold / N)",
        "",
        "| specs | cold (s) | per spec (s) | no-op (s) | runs (cold/no-op) |",
        "|---:|---:|---:|---:|---|",
    ]
    for n in sorted(set(plan.sizes)):
        cold = results.times("doit", "cold", n)
        noop = results.times("doit", "no-change", n)
        c, z = median(cold), median(noop)
        per = None if c is None else c / n
        out.append(
            f"| {n} | {fmt_s(c)} | {'-' if per is None else f'{per:.3f}'} | {fmt_s(z)} | "
            f"{len(cold)}/{len(noop)} |"
        )
    noop100 = median(results.times("doit", "no-change", 100))
    if noop100 is None:
        out.append("\nno-op on 100 specs: not measured (add 100 to --sizes)")
    else:
        met = "yes" if noop100 < GOAL_NOOP_100_S else "no"
        out.append(f"\nno-op on 100 specs: {noop100:.2f} s (goal < {GOAL_NOOP_100_S:g} s: {met})")
    return "\n".join(out)


def read_version(package: str, node_modules: Path = NODE_MODULES) -> str:
    path = node_modules / package / "package.json"
    try:
        return str(json.loads(path.read_text())["version"])
    except (OSError, ValueError, KeyError):
        return "not installed"


def tool_output(argv: Sequence[str]) -> str:
    try:
        proc = subprocess.run(
            list(argv), capture_output=True, text=True, timeout=60, check=False, cwd=REPO
        )
    except (OSError, subprocess.TimeoutExpired):
        return "unavailable"
    if proc.returncode != 0:
        return "?"
    lines = (proc.stdout or proc.stderr).strip().splitlines()
    return lines[0] if lines else ""


def py_version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def imported_astest_tasks() -> str:
    """Where the suites' dodo.py will import astest_tasks from, asked in a child like doit's."""
    probe = "import astest_tasks, sys; sys.stdout.write(astest_tasks.__file__ or '?')"
    try:
        proc = subprocess.run(
            [sys.executable, "-c", probe],
            capture_output=True,
            text=True,
            timeout=60,
            env=run_env(),
            cwd=WORK,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"unavailable ({exc})"
    if proc.returncode != 0:
        return "cannot be imported: " + (proc.stderr.strip().splitlines() or ["?"])[-1]
    return str(Path(proc.stdout).parent)


def versions(code: str) -> dict[str, str]:
    commit = tool_output(["git", "rev-parse", "--short", "HEAD"])
    dirty = tool_output(["git", "status", "--porcelain", "--untracked-files=no", "astest_tasks"])
    if code == "head":
        source = f"HEAD {commit} exported"
    else:
        source = f"working tree at {commit}" + (
            ", astest_tasks/ has uncommitted changes" if dirty not in {"", "?"} else ", clean"
        )
    return {
        "astest-tasks": f"{py_version('astest-tasks')} ({source}; imported from "
        f"{imported_astest_tasks()})",
        "doit": py_version("doit"),
        "wasmtime (PyPI)": py_version("wasmtime"),
        "python": f"{platform.python_version()} ({sys.executable})",
        **{
            f"{package} ({where})": read_version(package, modules)
            for where, modules in (
                ("1.0.7 toolchain", NODE_MODULES),
                ("1.8 toolchain", NODE_MODULES_18),
            )
            for package in ("as-test", "assemblyscript", "@assemblyscript/wasi-shim")
        },
        "node": tool_output(["node", "--version"]),
        "npm": tool_output(["npm", "--version"]),
        "cpus": str(os.cpu_count()),
        "load average": " ".join(f"{x:.2f}" for x in os.getloadavg()),
        "platform": platform.platform(),
    }


def parallel_note(their_parallel: Sequence[str], version: str = "1.0.7") -> str | None:
    if list(their_parallel) != ["--parallel"]:
        return None
    cpus = os.cpu_count() or 1
    option = "--their-parallel" if version == "1.0.7" else "--their-parallel-18"
    return (
        f"as-test {version}'s --parallel picks its worker count itself: at most "
        f"max(1, cpus - 1) = {max(1, cpus - 1)} on this {cpus}-cpu machine (bin/index.js "
        f"resolveAutoJobs); pass {option} '--jobs 2' to compare against two as-test workers"
    )


def cache_note() -> str:
    return (
        f"both tools ran with XDG_CACHE_HOME=<suite>/{CACHE_DIR_NAME}, emptied before every cold "
        "run and kept for reruns (astest-tasks keeps wasmtime's compiled-code cache there)"
    )


# ---------------------------------------------------------------------------------------------


def parse_sizes(text: str) -> tuple[int, ...]:
    try:
        sizes = tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated counts, got {text!r}") from None
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError(f"expected positive counts, got {text!r}")
    return sizes


def parse_against(text: str) -> tuple[str, ...]:
    versions = tuple(part.strip() for part in text.split(",") if part.strip())
    unknown = [v for v in versions if v not in RIVALS]
    if not versions or unknown:
        raise argparse.ArgumentTypeError(f"expected some of {','.join(RIVALS)}, got {text!r}")
    return versions


def positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return value


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Benchmark astest-tasks (doit) against as-test 1.0.7's and 1.8.0's "
        "`npx ast test`.",
        epilog="--quick means --compare-size 10 --compare-size-18 10 --sizes 10,50 --repeat 1 "
        "unless those are given.",
    )
    parser.add_argument(
        "--compare-size", type=positive, default=None, help="specs in the head-to-head suite [50]"
    )
    parser.add_argument(
        "--sizes", type=parse_sizes, default=None, help="doit-alone suite sizes [10,50,100,200]"
    )
    parser.add_argument("--repeat", type=positive, default=None, help="repetitions [3]")
    parser.add_argument(
        "--scale-repeat",
        type=positive,
        default=None,
        help="cold repetitions per doit-alone size [--repeat]; no-op runs still get --repeat",
    )
    parser.add_argument(
        "--their-parallel",
        default="--parallel",
        help="as-test's parallel flags, one shell-quoted string [--parallel]",
    )
    parser.add_argument("--our-jobs", type=positive, default=2, help="doit -n value [2]")
    parser.add_argument(
        "--against",
        type=parse_against,
        default=("1.0.7", "1.8.0"),
        help="the as-test versions to compare with, comma-separated [1.0.7,1.8.0]",
    )
    parser.add_argument(
        "--compare-size-18",
        type=positive,
        default=None,
        help="specs in the head-to-head suite against as-test 1.8.0 [20]",
    )
    parser.add_argument(
        "--their-parallel-18",
        default="--jobs 2",
        help="as-test 1.8.0's parallel flags, one shell-quoted string [--jobs 2]",
    )
    parser.add_argument("--quick", action="store_true", help="a small, fast configuration")
    parser.add_argument(
        "--from-json",
        type=Path,
        default=None,
        help="measure nothing: print the tables of a results file written by an earlier run",
    )
    parser.add_argument(
        "--code",
        choices=["head", "worktree"],
        default="head",
        help="measure astest_tasks as committed (HEAD, exported to bench/.work/) or as installed "
        "(for an editable install: the working tree, uncommitted edits included) [head]",
    )
    parser.add_argument(
        "--json",
        type=Path,
        default=WORK / "results.json",
        help="where to write every sample [bench/.work/results.json]",
    )
    return parser.parse_args(argv)


def load_saved(path: Path) -> tuple[Plan, Results, dict[str, str], list[str]]:
    """A results file written by an earlier run: its plan, samples, versions and command."""
    data = json.loads(path.read_text())
    raw_plan = data["plan"]
    plan = Plan(
        compare_size=int(raw_plan["compare_size"]),
        sizes=tuple(int(n) for n in raw_plan["sizes"]),
        repeat=int(raw_plan["repeat"]),
        scale_repeat=int(raw_plan["scale_repeat"]),
        their_parallel=tuple(str(a) for a in raw_plan["their_parallel"]),
        our_jobs=int(raw_plan["our_jobs"]),
        # Files of runs before the 1.8.0 comparison existed compared with 1.0.7 only.
        against=tuple(str(a) for a in raw_plan.get("against", ["1.0.7"])),
        compare_size_18=int(raw_plan.get("compare_size_18", 20)),
        their_parallel_18=tuple(str(a) for a in raw_plan.get("their_parallel_18", ["--jobs", "2"])),
    )
    results = Results(notes=[str(n) for n in data.get("notes", [])])
    for raw in data["samples"]:
        counts = Counts(**raw.pop("counts"))
        results.samples.append(Sample(counts=counts, **raw))
    info = {str(k): str(v) for k, v in data.get("versions", {}).items()}
    return plan, results, info, [str(a) for a in data.get("command", [])]


def save(path: Path, plan: Plan, results: Results, info: dict[str, str], complete: bool) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {
        "command": [sys.executable, *sys.argv],
        "complete": complete,
        "plan": dataclasses.asdict(plan),
        "versions": info,
        "notes": results.notes,
        "samples": [dataclasses.asdict(s) for s in results.samples],
    }
    path.write_text(json.dumps(data, indent=2) + "\n")


def print_report(plan: Plan, results: Results) -> None:
    print(render(plan, results))
    print("\n`npx ast test` ran as `npx --no-install ast test` (never fetch as-test).")
    for note in results.notes:
        print(f"\nnote: {note}")


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.from_json is not None:
        plan, results, info, command = load_saved(args.from_json)
        print("command:", shlex.join(command))
        print("plan:", json.dumps(dataclasses.asdict(plan)))
        for name, value in info.items():
            print(f"  {name}: {value}")
        print()
        print_report(plan, results)
        return 0
    quick: bool = args.quick
    repeat: int = args.repeat or (1 if quick else 3)
    plan = Plan(
        compare_size=args.compare_size or (10 if quick else 50),
        sizes=args.sizes or ((10, 50) if quick else (10, 50, 100, 200)),
        repeat=repeat,
        scale_repeat=args.scale_repeat or repeat,
        their_parallel=tuple(shlex.split(args.their_parallel)),
        our_jobs=args.our_jobs,
        against=args.against,
        compare_size_18=args.compare_size_18 or (10 if quick else 20),
        their_parallel_18=tuple(shlex.split(args.their_parallel_18)),
    )
    global CODE_DIR
    if args.code == "head":
        CODE_DIR, _ = export_head()
    print("command:", shlex.join([sys.executable, *sys.argv]))
    print("plan:", json.dumps(dataclasses.asdict(plan)))
    info = versions(args.code)
    for name, value in info.items():
        print(f"  {name}: {value}")
    results = Results()
    notes = [parallel_note(plan.parallel_for(v), v) for v in plan.against]
    for note in (*notes, cache_note()):
        if note:
            results.notes.append(note)
    if "1.8.0" in plan.against:
        results.notes.append(
            "as-test 1.8.0's serial runs pass --cache (its incremental cache, emptied by every "
            "clean); the suite's node_modules is tests/toolchains/as-test-1.8.0's, for doit too"
        )
    for against in plan.against:
        modules = RIVALS[against].node_modules
        if not (modules / "as-test").is_dir():
            print(f"ERROR: {modules / 'as-test'} is missing; run `npm ci` in {modules.parent}")
            return 3
    # End cleanly (partial tables, samples saved) on Ctrl-C or SIGTERM, also when started in the
    # background by a shell that set SIGINT to be ignored.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, interrupt)
    started = time.perf_counter()
    try:
        compare(plan, results)
        scale(plan, results)
    except BenchError as exc:
        save(args.json, plan, results, info, complete=False)
        print(f"\nBENCHMARK INVALID: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        save(args.json, plan, results, info, complete=False)
        print(f"\ninterrupted: the figures below are partial (samples in {args.json})\n")
        print_report(plan, results)
        return 130
    save(args.json, plan, results, info, complete=True)
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    total = time.perf_counter() - started
    print(f"\n(total {total:.0f} s; load average at the end {load}; samples in {args.json})\n")
    print_report(plan, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
