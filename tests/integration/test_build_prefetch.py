"""Compiling the next build while a spec runs (build_prefetch): the same artifacts, the same
results, nothing left behind, and the head start really taken.

Real asc and as-test from npm, real wasmtime, on copies of the passing fixture.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from astest_tasks.schedule.build_prefetch import SWITCH_VARIABLE
from tests.integration.conftest import Project, _doit_environment, copy_project
from tests.integration.toolchains import Toolchain

# The compile-ahead is our own machinery around the compile server, the same for any asc: the
# other integration tests compile through that server on both toolchains.
pytestmark = [pytest.mark.integration, pytest.mark.toolchains("1.8.0")]

# doit in a process of its own, counting the compiles started ahead and the ones builds took.
_COUNTING_DOIT = """
import atexit, sys
from astest_tasks.schedule.scheduler import Scheduler
started, taken = [], []
compile_ahead, take_prefetched = Scheduler.compile_ahead, Scheduler.take_prefetched
def counting_ahead(self, request, out_file):
    started.append(request.spec.spec_id)
    return compile_ahead(self, request, out_file)
def counting_take(self, request, into):
    output = take_prefetched(self, request, into)
    if output is not None:
        taken.append(request.spec.spec_id)
    return output
Scheduler.compile_ahead, Scheduler.take_prefetched = counting_ahead, counting_take
def tell():
    print(f"PREFETCH started={len(started)} taken={len(taken)}", file=sys.stderr)
atexit.register(tell)
from doit.doit_cmd import DoitMain
from doit.cmd_base import DodoTaskLoader
sys.exit(DoitMain(DodoTaskLoader()).run(sys.argv[1:]))
"""


def counting_doit(project: Project, env: dict[str, str]) -> tuple[int, str, int, int]:
    proc = subprocess.run(
        [sys.executable, "-c", _COUNTING_DOIT],
        cwd=project.root,
        capture_output=True,
        text=True,
        timeout=600,
        env=_doit_environment(env),
        stdin=subprocess.DEVNULL,
    )
    found = re.search(r"PREFETCH started=(\d+) taken=(\d+)", proc.stderr)
    assert found, proc.stderr
    return proc.returncode, proc.stdout + proc.stderr, int(found[1]), int(found[2])


def artifacts(project: Project) -> dict[str, bytes]:
    """Every build output, build records with the project's own path taken out."""
    build = project.root / ".as-test" / "build"
    found = {}
    for path in sorted(build.rglob("*")):
        if path.is_file() and not path.name.endswith(".result.jsonl"):
            data = path.read_bytes().replace(str(project.root).encode(), b"<root>")
            found[str(path.relative_to(build))] = data
    return found


def test_a_cold_run_compiles_ahead_and_builds_what_a_run_without_it_builds(
    tmp_path: Path, toolchain: Toolchain
) -> None:
    ahead = copy_project("passing", tmp_path / "ahead", toolchain)
    plain = copy_project("passing", tmp_path / "plain", toolchain)

    code, output, started, taken = counting_doit(ahead, {})
    assert code == 0, output
    # Five specs in two modes: every build but the first is compiled ahead, from the moment the
    # compile before it ended (while that module is checked and its spec runs).
    builds = len(list((ahead.root / ".as-test" / "build").rglob("*.build.json")))
    assert builds == 10
    assert started == taken == builds - 1

    code, output, started, taken = counting_doit(plain, {SWITCH_VARIABLE: "0"})
    assert code == 0, output
    assert started == taken == 0

    assert artifacts(ahead) == artifacts(plain)
    assert ahead.report()["totals"] == plain.report()["totals"]
    assert list(ahead.root.rglob(".asc-*")) == []


def test_edited_specs_rebuild_with_a_head_start_and_no_change_starts_nothing(
    tmp_path: Path, toolchain: Toolchain
) -> None:
    project = copy_project("passing", tmp_path, toolchain)
    assert project.doit().exit_code == 0
    tests = project.root / "assembly" / "__tests__"
    # A new expectation, so the module changes (a comment alone gives the same bytes).
    edit = 'describe("edited", () => {\n  test("area of a square", () => {\n'
    edit += "    expect(area(2, 2)).toBe(4.0);\n  });\n});\n"
    (tests / "geometry.spec.ts").write_text((tests / "geometry.spec.ts").read_text() + edit)
    edit = 'describe("edited", () => {\n  test("sums", () => {\n'
    edit += "    expect(1 + 1).toBe(2);\n  });\n});\n"
    (tests / "skips.spec.ts").write_text((tests / "skips.spec.ts").read_text() + edit)
    code, output, started, taken = counting_doit(project, {})
    assert code == 0, output
    # Four builds, each compiled ahead from the end of the compile before it but the first:
    # geometry's second mode, then skips' two (the tasks go spec by spec).
    assert (started, taken) == (3, 3)
    code, output, started, taken = counting_doit(project, {})
    assert code == 0, output
    assert (started, taken) == (0, 0)
    record = project.root / ".as-test" / "build" / "bindings" / "geometry.build.json"
    assert json.loads(record.read_text())["status"] == "ok"
