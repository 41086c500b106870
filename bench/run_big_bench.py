"""Benchmark a big suite: astest-tasks (`doit`) against as-test 1.8.0's `ast test --cache`.

    /path/to/venv/bin/python bench/run_big_bench.py                 # 3 specs x 60,000, 3 runs
    /path/to/venv/bin/python bench/run_big_bench.py --rows 6000 --repeat 1   # a smoke run

A few specs, each looping over tables of tens of thousands of expectations (as-test counts every
one as a test), in two modes (wasi and bindings): see generate_big_suite.py. The suite is
generated under ``bench/.work/`` twice, one copy per tool, with ``node_modules`` linked to
``tests/toolchains/as-test-1.8.0/node_modules`` (run ``npm ci`` there first). The tools alternate
(which goes first flips every repetition) over three scenarios, with medians over ``--repeat``:

- cold: both from clean outputs (run_bench.clean: everything under ``.as-test/`` but the runner
  scripts, which removes as-test's ``--cache`` too, doit's state and the user-level caches);
- no-change: the same commands again;
- one-changed: one spec rewritten with a new revision constant, then the same commands.

Each run's wall time (``time.perf_counter``) and the peak resident memory of the largest process
of the run (``os.wait4``'s resource usage: the largest of the command and the descendants it
waited for) are taken by a small Python launcher around the command: no external timing tool is
needed. Every run must exit 0 with every
test passing, and both tools must count the same tests; otherwise the benchmark stops.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import generate_big_suite
import run_bench
from run_bench import ANSI, BenchError, Project, as_test_counts, clean, doit_counts, tail

REPO = run_bench.REPO
NODE_MODULES = REPO / "tests" / "toolchains" / "as-test-1.8.0" / "node_modules"
WORK = run_bench.WORK

# Goals from issue 19 (ratios are ours / theirs).
GOALS = {"cold": 0.8, "no-change": 0.5}


@dataclass
class Sample:
    tool: str
    scenario: str
    seconds: float
    peak_rss_mib: float
    tests: int


@dataclass
class Results:
    samples: list[Sample] = field(default_factory=list)
    # Seconds our summary spends rendering the HTML report of the suite (output/html/), measured
    # apart after each of our runs, with the page's size in bytes.
    html_renders: list[tuple[float, int]] = field(default_factory=list)

    def values(self, tool: str, scenario: str, what: str) -> list[float]:
        return [
            float(getattr(s, what))
            for s in self.samples
            if s.tool == tool and s.scenario == scenario
        ]


def their_argv(extra: Sequence[str] = ()) -> list[str]:
    return ["node", "node_modules/as-test/bin/index.js", "test", "--cache", *extra]


# Runs the command and reports its wall time and the peak RSS of the largest process of its tree.
# A small process of its own: a child forked from the benchmark (which holds big reports in
# memory) would start out with the benchmark's resident pages counted as its own.
_LAUNCHER = """
import os, subprocess, sys, time
start = time.perf_counter()
proc = subprocess.Popen(sys.argv[2:])
_, status, usage = os.wait4(proc.pid, 0)
seconds = time.perf_counter() - start
with open(sys.argv[1], "w") as out:
    out.write(f"{seconds} {usage.ru_maxrss} {os.waitstatus_to_exitcode(status)}")
"""


def timed_run(project: Project, argv: Sequence[str]) -> tuple[float, float, str, int]:
    """Run argv in the project: (seconds, peak RSS of its largest process in MiB, output, code)."""
    with tempfile.TemporaryFile(mode="w+") as out, tempfile.TemporaryDirectory() as scratch:
        figures = Path(scratch) / "figures"
        proc = subprocess.Popen(
            [sys.executable, "-c", _LAUNCHER, str(figures), *argv],
            cwd=project.path,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=run_bench.run_env(project),
            start_new_session=True,
        )
        try:
            proc.wait()
        except BaseException:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            raise
        out.seek(0)
        text = ANSI.sub("", out.read())
        try:
            seconds, rss_kib, code = figures.read_text().split()
        except (OSError, ValueError):
            raise BenchError(f"`{shlex.join(argv)}` left no figures:\n{tail(text)}") from None
    return float(seconds), int(rss_kib) / 1024, text, int(code)


# Renders the HTML report from the stored results the run left in report.json (each spec's whole
# result), with the code measured (run_bench.run_env), and prints the seconds and the page's size.
_HTML_TIMER = """
import json, sys, time
from pathlib import Path
from astest_tasks.model.results import SpecResult
from astest_tasks.output.ci_reports import points
from astest_tasks.output.console import Shown
from astest_tasks.output.report_input import ReportContext, ReportInput
from astest_tasks.output.html.page import render_page
document = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
shown = [
    Shown(SpecResult.from_json(json.dumps(entry["result"])), bool(entry["cached"]))
    for entry in document["specs"]
]
whole = [item.result.to_json() for item in shown]
cases = [points(item.result) for item in shown]  # the summary reads them from the result files
start = time.perf_counter()
reports = ReportInput(shown, whole, cases, context=ReportContext(Path.cwd()))
page = render_page(reports)
print(time.perf_counter() - start, len(page.encode("utf-8")))
"""


def html_render(results: Results, project: Project) -> None:
    """Time the HTML report's rendering of our last run's results (the summary renders it when a
    result changed; this isolates its share)."""
    proc = subprocess.run(
        [sys.executable, "-c", _HTML_TIMER, str(run_bench.report_path(project))],
        cwd=project.path,
        capture_output=True,
        text=True,
        env=run_bench.run_env(project),
        stdin=subprocess.DEVNULL,
    )
    try:
        seconds, size = proc.stdout.split()
    except ValueError:
        raise BenchError(f"the HTML report did not render:\n{tail(proc.stderr)}") from None
    results.html_renders.append((float(seconds), int(size)))
    print(f"  {'html':8} {'render':12} {float(seconds):8.3f} s  page {int(size) / 1024:.0f} KiB")


def measure(
    results: Results, project: Project, argv: Sequence[str], scenario: str, expected_tests: int
) -> Sample:
    before = run_bench.file_state(run_bench.report_path(project))
    seconds, rss, text, code = timed_run(project, argv)
    where = f"{project.tool} {scenario} (`{shlex.join(argv)}`)"
    if code != 0:
        raise BenchError(f"{where} exited {code}:\n{tail(text)}")
    try:
        if project.tool == "as-test":
            tests = as_test_counts(text).tests
        else:
            tests = doit_counts(text, project, before).tests
    except ValueError as exc:
        raise BenchError(f"{where}: {exc}:\n{tail(text)}") from None
    if tests != expected_tests:
        raise BenchError(f"{where} counted {tests} passing tests, not {expected_tests}")
    sample = Sample(project.tool, scenario, seconds, rss, tests)
    results.samples.append(sample)
    print(
        f"  {project.tool:8} {scenario:12} {seconds:8.2f} s  peak {rss:7.1f} MiB  ({tests} tests)",
        flush=True,
    )
    if project.tool == "doit" and scenario != "warm-up":
        html_render(results, project)
    return sample


def prepare(tool: str, specs: int, rows: int) -> Project:
    path = WORK / f"big-{specs}x{rows}-{tool}"
    generate_big_suite.generate(path, specs, rows, NODE_MODULES)  # resets a changed spec
    return Project(tool, path, specs)


def run(
    specs: int,
    rows: int,
    repeat: int,
    results: Results,
    our_argv: list[str],
    their_extra: Sequence[str] = (),
) -> None:
    theirs, ours = prepare("as-test", specs, rows), prepare("doit", specs, rows)
    doit = run_bench.doit_executable()
    tests = 2 * generate_big_suite.expected_tests(specs, rows)  # two modes
    print("\nwarm-up (not measured): as-test writes its runner scripts; `doit list`", flush=True)
    clean(theirs)
    measure(Results(), theirs, their_argv(), "warm-up", tests)
    clean(ours)
    timed_run(ours, [doit, "list"])
    for rep in range(repeat):
        order = [(theirs, their_argv(their_extra)), (ours, [doit, *our_argv])]
        if rep % 2:
            order.reverse()
        print(f"\nrepetition {rep + 1}/{repeat} ({order[0][0].tool} first)", flush=True)
        for project, argv in order:
            clean(project)
            measure(results, project, argv, "cold", tests)
        for project, argv in order:
            measure(results, project, argv, "no-change", tests)
        for project, argv in order:
            generate_big_suite.change_spec(project.path, 0, rows, revision=rep + 1)
            measure(results, project, argv, "one-changed", tests)


def median(values: Sequence[float]) -> float | None:
    return statistics.median(values) if values else None


def render(
    specs: int,
    rows: int,
    repeat: int,
    results: Results,
    our_argv: Sequence[str] = (),
    their_extra: Sequence[str] = (),
) -> str:
    tests = 2 * generate_big_suite.expected_tests(specs, rows)
    theirs = shlex.join(["--cache", *their_extra])
    ours = shlex.join(["doit", *our_argv])
    out = [
        f"{specs} specs x {rows} expectations x 2 modes ({tests} tests): medians of {repeat} "
        "run(s)",
        "",
        f"| scenario | as-test 1.8.0 `{theirs}` (s) | `{ours}` (s) | ours/theirs | goal | met "
        "| peak RSS theirs / ours (MiB) |",
        "|---|---:|---:|---:|---:|---|---:|",
    ]
    for scenario in ("cold", "no-change", "one-changed"):
        t = median(results.values("as-test", scenario, "seconds"))
        o = median(results.values("doit", scenario, "seconds"))
        ratio = None if t is None or o is None or t == 0 else o / t
        goal = GOALS.get(scenario)
        met = "-" if ratio is None or goal is None else ("yes" if ratio <= goal else "no")
        rss_t = max(results.values("as-test", scenario, "peak_rss_mib"), default=0.0)
        rss_o = max(results.values("doit", scenario, "peak_rss_mib"), default=0.0)
        out.append(
            f"| {scenario} | {run_bench.fmt_s(t)} | {run_bench.fmt_s(o)} | "
            f"{'-' if ratio is None else f'{ratio:.3f}'} | "
            f"{'-' if goal is None else f'<= {goal:g}'} | {met} | {rss_t:.0f} / {rss_o:.0f} |"
        )
    renders = results.html_renders
    if renders:
        seconds = median([render for render, _ in renders])
        largest = max(size for _, size in renders)
        out += [
            "",
            f"HTML report render (ours; the summary renders it when a result changed, so in the "
            f"cold and one-changed times): median "
            f"{seconds:.3f} s over {len(renders)} renders, page up to "
            f"{largest / 1024:.0f} KiB",
        ]
    return "\n".join(out)


def begin(code: str) -> dict[str, str] | None:
    """What both as-test 1.8.0 benchmarks do first: check the toolchain, export the code measured
    (``--code head``), print the command line and the versions, and let Ctrl-C or SIGTERM end
    the run with partial tables. The versions printed, or None when the toolchain is missing."""
    if not (NODE_MODULES / "as-test").is_dir():
        print(f"ERROR: {NODE_MODULES} is missing; run `npm ci` in {NODE_MODULES.parent}")
        return None
    if code == "head":
        run_bench.CODE_DIR, _ = run_bench.export_head()
    print("command:", shlex.join([sys.executable, *sys.argv]))
    info = versions()
    for name, value in info.items():
        print(f"  {name}: {value}")
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, run_bench.interrupt)
    return info


def versions() -> dict[str, str]:
    def package(name: str) -> str:
        try:
            return str(json.loads((NODE_MODULES / name / "package.json").read_text())["version"])
        except (OSError, ValueError, KeyError):
            return "not installed"

    return {
        "astest-tasks": f"{run_bench.py_version('astest-tasks')} "
        f"({run_bench.tool_output(['git', 'rev-parse', '--short', 'HEAD'])}; imported from "
        f"{run_bench.imported_astest_tasks()})",
        "as-test": package("as-test"),
        "assemblyscript": package("assemblyscript"),
        "@assemblyscript/wasi-shim": package("@assemblyscript/wasi-shim"),
        "node": run_bench.tool_output(["node", "--version"]),
        "python": platform.python_version(),
        "doit": run_bench.py_version("doit"),
        "wasmtime (PyPI)": run_bench.py_version("wasmtime"),
        "cpus": str(os.cpu_count()),
        "load average": " ".join(f"{x:.2f}" for x in os.getloadavg()),
        "platform": platform.platform(),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--specs", type=run_bench.positive, default=3, help="specs [3]")
    parser.add_argument("--rows", type=run_bench.positive, default=60000, help="per spec [60000]")
    parser.add_argument("--repeat", type=run_bench.positive, default=3, help="repetitions [3]")
    parser.add_argument(
        "--code",
        choices=["head", "worktree"],
        default="head",
        help="measure astest_tasks as committed (HEAD) or as installed [head]",
    )
    parser.add_argument(
        "--our-args",
        default="",
        help="extra doit arguments, one shell-quoted string (e.g. '-n 2') ['']",
    )
    parser.add_argument(
        "--their-args",
        default="",
        help="extra `ast test` arguments after --cache (e.g. '--jobs 2') ['']",
    )
    parser.add_argument("--json", type=Path, default=WORK / "big-results.json")
    args = parser.parse_args(argv)
    info = begin(args.code)
    if info is None:
        return 3
    results = Results()
    status = 0
    shape = (args.specs, args.rows, args.repeat)
    our_argv, their_extra = shlex.split(args.our_args), shlex.split(args.their_args)
    try:
        run(*shape, results, our_argv, their_extra)
    except BenchError as exc:
        print(f"\nBENCHMARK INVALID: {exc}", file=sys.stderr)
        status = 1
    except KeyboardInterrupt:
        print("\ninterrupted: the figures below are partial\n")
        status = 130
    args.json.parent.mkdir(parents=True, exist_ok=True)
    info["load average at the end"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    args.json.write_text(
        json.dumps({"versions": info, "samples": [asdict(s) for s in results.samples]}, indent=2)
        + "\n"
    )
    print(f"\n(load average at the end {info['load average at the end']}; samples in {args.json})")
    print()
    print(render(*shape, results, our_argv, their_extra))
    return status


if __name__ == "__main__":
    sys.exit(main())
