"""The floor of a run with nothing to do: astest-tasks' no-change `doit` against a plain doit
no-op with as many file-dep tasks, and against as-test 1.8.0's `npx ast test --cache` rerun.

    /path/to/venv/bin/python bench/run_floor_bench.py                 # 20 specs, 10 rounds
    /path/to/venv/bin/python bench/run_floor_bench.py --size 50 --repeat 20

Issue 40's goals: our no-change run at most 1.5x a plain doit no-op of the same task count, and
at most 0.25x as-test 1.8's cached rerun. Three projects, each settled first (run until nothing is
left to do): the generated suite for us (as run_bench.py's, on as-test 1.8.0's toolchain), the
same suite for as-test, and a dodo.py of N tasks that each copy one file to another (file_dep and
targets, the sqlite3 backend, as ours), N being the task count `doit list --all` gives for ours.
Each round runs the three in an order that rotates, so no tool always follows another. Every
run must exit 0, and ours must say every spec came from the cache. The measured astest_tasks is
HEAD's (run_bench.py's ``--code head``), unless ``--code worktree``.

``--instructions`` also counts, once each, the instructions our no-change call and the plain doit
no-op execute, under valgrind's callgrind (when installed): unlike their timings, which drift with
the machine by more than one change gains, those counts repeat to about 0.1%, so a change is
judged by them and the timings say what a user waits.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import sys
from collections.abc import Sequence

import run_bench
from run_bench import WORK, BenchError, Project, doit_executable, npx_ast, prepare, timed_run

AGAINST = "1.8.0"
GOAL_AGAINST_PLAIN_DOIT = 1.5
GOAL_AGAINST_AS_TEST = 0.25

PLAIN_DODO = '''"""A plain doit pipeline of {count} file-dep tasks, all up to date after one run."""

from pathlib import Path

DOIT_CONFIG = {{"backend": "sqlite3", "verbosity": 0}}


def copy(source, target):
    Path(target).write_bytes(Path(source).read_bytes())


def task_copy():
    for number in range({count}):
        source, target = f"in/{{number}}.txt", f"out/{{number}}.txt"
        yield {{
            "name": str(number),
            "file_dep": [source],
            "targets": [target],
            "actions": [(copy, [source, target])],
        }}
'''


def plain_project(count: int) -> Project:
    path = WORK / f"floor-plain-{count}"
    (path / "in").mkdir(parents=True, exist_ok=True)
    (path / "out").mkdir(exist_ok=True)
    for number in range(count):
        source = path / "in" / f"{number}.txt"
        if not source.exists():
            source.write_text(f"input {number}\n")
    (path / "dodo.py").write_text(PLAIN_DODO.format(count=count))
    return Project("plain doit", path, count)


def our_task_count(ours: Project) -> int:
    _, text, code = timed_run(ours, [doit_executable(), "list", "--all", "--quiet"], "list")
    if code != 0:
        raise BenchError(f"`doit list --all` failed in {ours.path}:\n{text}")
    # Subtasks are listed as basename:..., the group tasks that hold them as a bare name.
    return sum(1 for line in text.splitlines() if ":" in line.strip())


def settle(project: Project, argv: Sequence[str]) -> str:
    """Run until a run has nothing left to do (the second run of each), checking it passed."""
    text = ""
    for _ in range(2):
        _, text, code = timed_run(project, argv, "settle")
        if code != 0:
            raise BenchError(f"{project.label}: `{' '.join(argv)}` exited {code}:\n{text[-3000:]}")
    return text


def measure(projects: Sequence[tuple[Project, list[str]]], rounds: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {project.label: [] for project, _ in projects}
    for round_number in range(rounds):
        shift = round_number % len(projects)
        for project, argv in [*projects[shift:], *projects[:shift]]:
            seconds, text, code = timed_run(project, argv, "no-change")
            if code != 0:
                raise BenchError(f"{project.label}: exited {code}:\n{text[-3000:]}")
            if project.tool == "doit" and "(cached)" not in text:
                raise BenchError(f"ours ran something in a no-change run:\n{text[-3000:]}")
            times[project.label].append(seconds)
        print(f"  round {round_number + 1}/{rounds} done", flush=True)
    return times


def instructions(project: Project, argv: list[str]) -> int:
    """What the whole process executes, under callgrind (about a hundred times slower)."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise BenchError("--instructions needs valgrind; fix: install it, or leave the option out")
    # The interpreter itself, not doit's script: valgrind follows no #! line into a venv.
    command = [valgrind, "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable]
    _, text, code = timed_run(project, [*command, *argv], "instructions")
    found = re.search(r"Collected : (\d+)", text)
    if code != 0 or found is None:
        raise BenchError(f"{project.label} under callgrind: exited {code}:\n{text[-3000:]}")
    return int(found.group(1))


def spread(values: Sequence[float]) -> str:
    return f"{statistics.median(values):.3f} s ({min(values):.3f}-{max(values):.3f})"


def ratio_line(name: str, ours: list[float], theirs: list[float], goal: float) -> str:
    # Each round's own ratio: the two ran one after the other, on the same machine state.
    per_round = [mine / other for mine, other in zip(ours, theirs, strict=True)]
    median = statistics.median(ours) / statistics.median(theirs)
    met = "met" if median <= goal else "NOT met"
    return (
        f"| ours / {name} | {median:.2f} | {min(per_round):.2f}-{max(per_round):.2f} | "
        f"<= {goal:g}: {met} |"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=20, help="specs in the suite (default 20)")
    parser.add_argument("--repeat", type=int, default=10, help="rounds (default 10)")
    parser.add_argument("--code", choices=("head", "worktree"), default="head")
    parser.add_argument(
        "--instructions", action="store_true", help="also count instructions under callgrind"
    )
    args = parser.parse_args(argv)
    if args.code == "head":
        run_bench.CODE_DIR, commit = run_bench.export_head()
        print(f"astest_tasks of HEAD {commit[:12]}", flush=True)
    ours = prepare("doit", args.size, AGAINST)
    theirs = prepare("as-test", args.size, AGAINST)
    ours_argv, theirs_argv = [doit_executable()], npx_ast("--cache")
    print(f"settling the {args.size}-spec suites (cold runs, not measured)", flush=True)
    settle(ours, ours_argv)
    settle(theirs, theirs_argv)
    count = our_task_count(ours)
    plain = plain_project(count)
    plain_argv = [doit_executable()]
    settle(plain, plain_argv)
    print(f"measuring {args.repeat} rounds; a plain doit of {count} tasks", flush=True)
    times = measure([(ours, ours_argv), (plain, plain_argv), (theirs, theirs_argv)], args.repeat)
    mine = times[ours.label]
    print(f"\nno-change run, {args.size} specs, {count} tasks (median, min-max):")
    for label, values in times.items():
        print(f"- {label}: {spread(values)}")
    print("\n| ratio | median | per round | goal |\n|---|---:|---:|---|")
    print(ratio_line("plain doit", mine, times[plain.label], GOAL_AGAINST_PLAIN_DOIT))
    print(ratio_line("as-test 1.8 --cache", mine, times[theirs.label], GOAL_AGAINST_AS_TEST))
    if args.instructions:
        ours_count, plain_count = instructions(ours, ours_argv), instructions(plain, plain_argv)
        print(f"\ninstructions, whole process: ours {ours_count:,}, plain doit {plain_count:,}")
        print(f"ours / plain doit: {ours_count / plain_count:.2f} (goal <= 1.5 in time)")
    return 0


if __name__ == "__main__":
    run_bench.exit_with(main)
