"""A library edit that rebuilds every spec: astest-tasks' `doit` against as-test 1.8.0's
`npx ast test --cache`, both on a settled project.

    /path/to/venv/bin/python bench/run_library_edit_bench.py                # 20 specs, 10 rounds
    /path/to/venv/bin/python bench/run_library_edit_bench.py --repeat 2     # a smoke run

Issue 40's goal: ours at most 0.6x as-test 1.8's `--cache` run, as for a cold run. The suite is
run_bench.py's and run_floor_bench.py's generated one on as-test 1.8.0's toolchain (default 20
specs), generated with ``shared_edition``: lib/numeric.ts, the helper module the others build
on (lib/arrays imports it), also exports a constant EDITION that every spec imports and checks,
the self-contained specs too (in the plain suite they import no helper, so a library edit would
leave them cached). One copy per tool, each cleaned, then settled (run until nothing is left to
do; this also empties the wasmtime cache and as-test's cache, so nothing from an earlier
benchmark serves a round).

Each round then, for each tool in an order that rotates, writes the next value of EDITION into
lib/numeric.ts (a counter: no value comes back, so neither tool's cache nor wasmtime's
compiled-code cache can serve it) and times the tool's run to its end. The edit is a realistic
one: a changed value in a shared helper module, the kind of change that touches no spec yet
reaches every spec's build, by a direct or a transitive import; the value is compiled into
every spec's wasm and no verdict depends on it. Every run must exit 0 with every spec passing,
the two tools must count the same tests, every spec's wasm must have changed, ours must have
run every build and run task and show no spec "(cached)", and as-test must report "0 cached"
and no replayed spec. The measured astest_tasks is HEAD's (run_bench.py's ``--code head``),
unless ``--code worktree``.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
from collections.abc import Sequence
from pathlib import Path

import generate_suite
import run_bench
from run_bench import (
    RIVALS,
    WORK,
    BenchError,
    Counts,
    Project,
    as_test_counts,
    clean,
    doit_counts,
    doit_executable,
    npx_ast,
    report_path,
    tail,
    timed_run,
)
from run_floor_bench import ratio_line, settle, spread

AGAINST = "1.8.0"
GOAL_AGAINST_AS_TEST = 0.6
EDITED = generate_suite.LIB_DIR / "numeric.ts"
BUILD_DIR = Path(".as-test") / "build"

# as-test 1.8: ` PASS  s0000.spec.ts 4.1ms`, or `... (cache)` for a replayed spec, and the totals
# line `Cache:   0 cached, 20 skipped,  20 total`.
AST_SPEC_LINE = re.compile(r"^(PASS|FAIL)\s+(\S+\.spec\.ts)(.*)$")
AST_CACHE_LINE = re.compile(r"^Cache:\s+(\d+) cached")
# Ours: doit's `.  astest:build:default:s0000` for a task it ran (`--` for one up to date), and
# the summary's ` PASS  default  s0000  33 passed, ...  85 ms` (the live lines start `[k/N]`).
DOIT_RAN = re.compile(r"^\.\s+astest:(build|run):\S+$")
OUR_SPEC_LINE = re.compile(r"^ ?(PASS|FAIL)\s+\S+\s+(s\d+)\s.*$")


def prepare(tool: str, size: int) -> Project:
    path = WORK / f"suite-{size}-{tool}-{AGAINST}-library-edit"
    # Also puts EDITION back to 0 after an earlier benchmark's rounds.
    generate_suite.generate(
        path, size, RIVALS[AGAINST].node_modules, toolchain=AGAINST, shared_edition=True
    )
    return Project(tool, path, size, AGAINST)


def edit_library(project: Project, edition: int) -> None:
    (project.path / EDITED).write_text(generate_suite.numeric_source(edition))


def wasm_digests(project: Project) -> dict[str, str]:
    return {
        path.name: hashlib.sha256(path.read_bytes()).hexdigest()
        for path in (project.path / BUILD_DIR).rglob("*.spec.wasm")
    }


def check_rebuilt(project: Project, before: dict[str, str], after: dict[str, str]) -> None:
    """Every spec's module was written again, with other bytes: the tool compiled every spec."""
    same = sorted(name for name, digest in after.items() if before.get(name) == digest)
    if len(after) != project.size or same:
        raise BenchError(
            f"{project.label}: expected {project.size} rebuilt modules under {BUILD_DIR}, found "
            f"{len(after)}, {len(same)} of them unchanged ({', '.join(same[:5])})"
        )


def check_ours(project: Project, text: str, report_before: tuple[int, int] | None) -> Counts:
    lines = [line.rstrip() for line in text.splitlines()]
    ran = [line for line in lines if DOIT_RAN.match(line)]
    specs = [match for line in lines if (match := OUR_SPEC_LINE.match(line))]
    cached = [match.group(2) for match in specs if match.group(0).endswith("(cached)")]
    if len(ran) != 2 * project.size or len(specs) != project.size or cached:
        raise BenchError(
            f"ours did not rebuild and rerun every spec: {len(ran)} build and run tasks ran "
            f"(expected {2 * project.size}), {len(specs)} spec lines, cached: {cached}\n"
            f"{tail(text)}"
        )
    counts = doit_counts(text, project, report_before)
    if counts.cached not in (None, 0):
        raise BenchError(f"ours counted {counts.cached} cached results:\n{tail(text)}")
    return counts


def check_theirs(project: Project, text: str) -> Counts:
    lines = [line.strip() for line in text.splitlines()]
    specs = [match for line in lines if (match := AST_SPEC_LINE.match(line))]
    replayed = [match.group(2) for match in specs if "(cache)" in match.group(3)]
    cache_line = next((match for line in lines if (match := AST_CACHE_LINE.match(line))), None)
    if cache_line is None or int(cache_line.group(1)) or replayed:
        raise BenchError(
            f"as-test {AGAINST} did not compile and run every spec again (its `Cache:` line: "
            f"{cache_line.group(0) if cache_line else 'missing'}; replayed: {replayed})\n"
            f"{tail(text)}"
        )
    return as_test_counts(text)


def timed_edit(project: Project, argv: Sequence[str], edition: int) -> tuple[float, Counts]:
    """Edit the library, run the tool and check it rebuilt and reran every spec, all passing."""
    edit_library(project, edition)
    modules_before = wasm_digests(project)
    report_before = run_bench.file_state(report_path(project))
    seconds, text, code = timed_run(project, argv, "library-edit")
    if code != 0:
        raise BenchError(f"{project.label}: `{' '.join(argv)}` exited {code}:\n{tail(text)}")
    try:
        if project.tool == "doit":
            counts = check_ours(project, text, report_before)
        else:
            counts = check_theirs(project, text)
    except ValueError as exc:
        raise BenchError(f"{project.label}: {exc}:\n{tail(text)}") from None
    if counts.specs != project.size:
        raise BenchError(f"{project.label}: {counts.specs} passing specs, not {project.size}")
    check_rebuilt(project, modules_before, wasm_digests(project))
    return seconds, counts


def measure(projects: Sequence[tuple[Project, list[str]]], rounds: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {project.label: [] for project, _ in projects}
    for round_number in range(rounds):
        shift = round_number % len(projects)
        tests: dict[str, int] = {}
        for project, argv in [*projects[shift:], *projects[:shift]]:
            # Edition 0 is the settled one: round k writes k + 1, new to both tools.
            seconds, counts = timed_edit(project, argv, round_number + 1)
            times[project.label].append(seconds)
            tests[project.label] = counts.tests
            print(f"  {project.label:13} {seconds:6.2f} s  ({counts.tests} tests)", flush=True)
        if len(set(tests.values())) != 1:
            raise BenchError(f"the tools counted different tests: {tests}")
        print(f"  round {round_number + 1}/{rounds} done", flush=True)
    return times


def load_average() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--size", type=run_bench.positive, default=20, help="specs in the suite (default 20)"
    )
    parser.add_argument("--repeat", type=run_bench.positive, default=10, help="rounds (default 10)")
    parser.add_argument("--code", choices=("head", "worktree"), default="head")
    args = parser.parse_args(argv)
    if args.code == "head":
        run_bench.CODE_DIR, commit = run_bench.export_head()
        print(f"astest_tasks of HEAD {commit[:12]}", flush=True)
    ours, theirs = prepare("doit", args.size), prepare("as-test", args.size)
    ours_argv, theirs_argv = [doit_executable()], npx_ast("--cache")
    print(f"settling the {args.size}-spec suites (cold runs, not measured)", flush=True)
    for project, project_argv in ((ours, ours_argv), (theirs, theirs_argv)):
        clean(project)
        settle(project, project_argv)
    print(f"measuring {args.repeat} rounds; load average {load_average()}", flush=True)
    times = measure([(ours, ours_argv), (theirs, theirs_argv)], args.repeat)
    print(f"load average at the end {load_average()}")
    print(f"\nlibrary edit ({EDITED} changed), {args.size} specs rebuilt (median, min-max):")
    for label, values in times.items():
        print(f"- {label}: {spread(values)}")
    print("\n| ratio | median | per round | goal |\n|---|---:|---:|---|")
    print(
        ratio_line(
            "as-test 1.8 --cache", times[ours.label], times[theirs.label], GOAL_AGAINST_AS_TEST
        )
    )
    return 0


if __name__ == "__main__":
    run_bench.exit_with(main)
