"""Benchmark the remote cache (issue 32): a "second machine" against as-test 1.8.0 and ourselves.

    /path/to/venv/bin/python bench/run_remote_bench.py             # 5 repetitions (see --help)
    /path/to/venv/bin/python bench/run_remote_bench.py --repeat 1  # a smoke run
    /path/to/venv/bin/python bench/run_remote_bench.py --big 60000 --repeat 3  # the big suite

On a generated suite of ``--size`` (20) passing specs (or, with ``--big ROWS``, the big suite
of bench/generate_big_suite.py: 3 specs of ROWS rows in two modes, 360,006 tests at 60,000),
with as-test 1.8.0's toolchain (tests/toolchains/as-test-1.8.0) for both tools, it starts
Debian's nginx with WebDAV on a free loopback port (the server of the tests,
tests/nginx_cache.py) and measures, in an order that rotates every repetition, each from
clean outputs (run_bench.clean):

- **second machine**: ``doit`` with ``--remote-cache`` on a copy of the suite at its own path,
  the cache warmed once beforehand by another copy; every build and run must be a hit;
- **as-test 1.8.0**: ``npx ast test --cache`` cold;
- **ours, no cache**: ``doit`` cold without a remote cache;
- **first machine (uploading)**: ``doit`` with ``--remote-cache`` on an emptied cache, so every
  build and passing run is uploaded beside the work.

It prints each sample, then the medians with their spread (min-max) and the ratios against the
issue's goals: second machine / as-test <= 0.15, first machine / ours without cache <= 1.05.
Every run must exit 0 and report every spec passing (run_bench's checks); the second machine's
summary must say every lookup hit, the uploading one that it uploaded every entry.
"""

from __future__ import annotations

import argparse
import re
import shlex
import shutil
import signal
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import generate_big_suite
import generate_suite
import run_bench
from run_bench import BenchError, Project, fmt_s, median, npx_ast

sys.path.insert(0, str(run_bench.REPO))  # the nginx of the tests: no pytest in it
from tests.nginx_cache import CacheServer, running_nginx

AGAINST = "1.8.0"
GOAL_SECOND_MACHINE = 0.15  # of as-test 1.8.0's cold run
GOAL_UPLOAD_OVERHEAD = 1.05  # of our own cold run without the cache
REMOTE_LINE = re.compile(r"^remote cache: (\d+) hits?, (\d+) miss(?:es)?, (\d+) uploaded")
SCENARIOS = ("second machine", "as-test 1.8.0", "ours, no cache", "first machine (uploading)")


@dataclass
class Measured:
    seconds: dict[str, list[float]] = field(default_factory=lambda: {s: [] for s in SCENARIOS})


BIG_SPECS, BIG_MODES = 3, 2  # generate_big_suite's shape: a few specs, wasi and bindings


def prepare(name: str, size: int, big_rows: int | None) -> Project:
    """One copy of the suite; its ``size`` is the (spec, mode) pairs a run reports."""
    tool = "as-test" if name == "as-test" else "doit"
    modules = run_bench.RIVALS[AGAINST].node_modules
    if big_rows is not None:
        path = run_bench.WORK / f"remote-big-{big_rows}-{name}"
        generate_big_suite.generate(path, BIG_SPECS, big_rows, modules)
        return Project(tool, path, BIG_SPECS * BIG_MODES, AGAINST)
    path = run_bench.WORK / f"remote-{size}-{name}"
    generate_suite.generate(path, size, modules, toolchain=AGAINST)
    return Project(tool, path, size, AGAINST)


def remote_counts(text: str) -> tuple[int, int, int]:
    for line in reversed(text.splitlines()):
        match = REMOTE_LINE.match(line.strip())
        if match:
            hits, misses, uploaded = (int(group) for group in match.groups())
            return hits, misses, uploaded
    raise BenchError(f"no `remote cache:` line in the output:\n{run_bench.tail(text)}")


def run(project: Project, argv: Sequence[str], scenario: str) -> tuple[float, str, int]:
    """Seconds, output and tests passed of one run from clean outputs."""
    run_bench.clean(project)
    seconds, text, code = run_bench.timed_run(project, argv, scenario)
    where = f"{scenario} (`{shlex.join(argv)}` in {project.path})"
    if code != 0:
        raise BenchError(f"{where} exited {code}:\n{run_bench.tail(text)}")
    try:
        if project.tool == "as-test":
            counts = run_bench.as_test_counts(text)
        else:
            counts = run_bench.doit_counts(text, project, None)
    except ValueError as exc:
        raise BenchError(f"{where}: {exc}:\n{run_bench.tail(text)}") from None
    # as-test counts a spec once over its modes; the test counts are compared instead.
    if project.tool != "as-test" and counts.specs != project.size:
        raise BenchError(f"{where}: {counts.specs} passing specs, expected {project.size}")
    print(f"  {scenario:26} {seconds:8.2f} s  ({counts.specs} specs, {counts.tests} tests)")
    return seconds, text, counts.tests


def empty_cache(server: CacheServer) -> None:
    # nginx makes ac/ and cas/ again on the next PUT (create_full_put_path).
    for folder in ("ac", "cas"):
        shutil.rmtree(server.stored / folder, ignore_errors=True)


def one_repetition(
    order: Sequence[str], projects: dict[str, Project], url: str, server: CacheServer
) -> dict[str, float]:
    doit = run_bench.doit_executable()
    pairs = 2 * projects["second"].size  # a build and a run per (spec, mode)
    cached = [doit, "astest", f"--remote-cache={url}"]
    taken: dict[str, float] = {}
    tests: dict[str, int] = {}
    for scenario in order:
        if scenario == "second machine":
            seconds, text, tests[scenario] = run(projects["second"], cached, scenario)
            if remote_counts(text)[:2] != (pairs, 0):
                raise BenchError(f"the second machine missed: {remote_counts(text)}")
        elif scenario == "as-test 1.8.0":
            seconds, _, tests[scenario] = run(projects["as-test"], npx_ast("--cache"), scenario)
        elif scenario == "ours, no cache":
            seconds, _, tests[scenario] = run(projects["plain"], [doit], scenario)
        else:
            empty_cache(server)
            seconds, text, tests[scenario] = run(projects["first"], cached, scenario)
            if remote_counts(text)[2] != pairs:
                raise BenchError(f"the first machine did not upload every entry: {text[-300:]}")
            # Its entries are the second machine's next hits: the same suite, another path.
        taken[scenario] = seconds
    if len(set(tests.values())) != 1:
        raise BenchError(f"the runs passed different numbers of tests: {tests}")
    return taken


def warm_cache(project: Project, url: str) -> None:
    run_bench.clean(project)
    argv = [run_bench.doit_executable(), "astest", f"--remote-cache={url}"]
    _, text, code = run_bench.timed_run(project, argv, "warm-up")
    if code != 0:
        raise BenchError(f"warming the cache failed:\n{run_bench.tail(text)}")


def spread(values: Sequence[float]) -> str:
    if not values:
        return "-"
    return f"{min(values):.2f}-{max(values):.2f}"


def report(measured: Measured) -> str:
    lines = [f"{'scenario':28} {'median s':>9} {'spread s':>13} {'n':>3}"]
    for scenario in SCENARIOS:
        values = measured.seconds[scenario]
        lines.append(
            f"{scenario:28} {fmt_s(median(values)):>9} {spread(values):>13} {len(values):>3}"
        )
    second = median(measured.seconds["second machine"])
    theirs = median(measured.seconds["as-test 1.8.0"])
    plain = median(measured.seconds["ours, no cache"])
    first = median(measured.seconds["first machine (uploading)"])
    lines.append("")
    if second and theirs:
        verdict = "met" if second / theirs <= GOAL_SECOND_MACHINE else "NOT met"
        lines.append(
            f"second machine / as-test 1.8.0 cold: {second / theirs:.3f} "
            f"(goal <= {GOAL_SECOND_MACHINE}: {verdict})"
        )
    if second and plain:
        lines.append(f"second machine / ours cold without cache: {second / plain:.3f}")
    if first and plain:
        verdict = "met" if first / plain <= GOAL_UPLOAD_OVERHEAD else "NOT met"
        lines.append(
            f"first machine (uploading) / ours cold without cache: {first / plain:.3f} "
            f"(goal <= {GOAL_UPLOAD_OVERHEAD}: {verdict})"
        )
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--size", type=run_bench.positive, default=20, help="specs [20]")
    parser.add_argument("--repeat", type=run_bench.positive, default=5, help="repetitions [5]")
    parser.add_argument(
        "--big",
        type=run_bench.positive,
        metavar="ROWS",
        help="the big suite instead: 3 specs of ROWS rows in two modes (60000: 360,006 tests)",
    )
    parser.add_argument(
        "--code",
        choices=("head", "worktree"),
        default="head",
        help="measure the committed astest_tasks (head) or the installed one [head]",
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.code == "head":
        run_bench.CODE_DIR, _ = run_bench.export_head()
    modules = run_bench.RIVALS[AGAINST].node_modules
    if not (modules / "as-test").is_dir():
        print(f"ERROR: {modules / 'as-test'} is missing; run `npm ci` in {modules.parent}")
        return 3
    print("command:", shlex.join([sys.executable, *sys.argv]))
    for name, value in run_bench.versions(args.code).items():
        print(f"  {name}: {value}")
    signal.signal(signal.SIGTERM, run_bench.interrupt)
    names = ("second", "as-test", "plain", "first", "warmer")
    projects = {name: prepare(name, args.size, args.big) for name in names}
    measured = Measured()
    started = time.perf_counter()
    nginx_root = run_bench.WORK / "remote-nginx"
    shutil.rmtree(nginx_root, ignore_errors=True)
    try:
        with running_nginx(nginx_root) as server:
            url = server.url()
            # Warm-ups: as-test writes its stock runner once, and the cache gets its entries.
            run(projects["as-test"], npx_ast("--cache"), "warm-up (as-test)")  # its runners
            warm_cache(projects["warmer"], url)
            for repetition in range(args.repeat):
                shift = repetition % len(SCENARIOS)
                order = SCENARIOS[shift:] + SCENARIOS[:shift]
                print(f"repetition {repetition + 1}/{args.repeat}:")
                for scenario, seconds in one_repetition(order, projects, url, server).items():
                    measured.seconds[scenario].append(seconds)
    except BenchError as exc:
        print(f"\nBENCHMARK INVALID: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\ninterrupted: the figures below are partial\n")
        print(report(measured))
        return 130
    finally:
        shutil.rmtree(nginx_root, ignore_errors=True)
    print(f"\n(total {time.perf_counter() - started:.0f} s)\n")
    print(report(measured))
    return 0


if __name__ == "__main__":
    sys.exit(main())
