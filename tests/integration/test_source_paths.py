"""Source text is read only from the project's own files, on every route a file's name takes:
real specs compiled by real asc and as-test, run in wasmtime by a real doit.

The secret is a marker in a file outside the project and a marker in doit's own environment
(``/proc/self/environ``). The names reach us four ways: a committed symlink a spec imports (the
transform records coverage points in it), a spec that forges its own report (its WIPC frames
name ``../x.ts``, an absolute path and a symlink to ``/proc/self/environ``), a result record
changed on disk, and a passing result another machine put in the remote cache (a real nginx).
After each, neither marker may be anywhere in the console, the HTML page or any report or
coverage file.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.conftest import DoitRun, Project, copy_project
from tests.integration.test_remote_cache import Machine
from tests.integration.toolchains import Toolchain
from tests.nginx_cache import CacheServer

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("source-paths")]

FILE_MARKER = "OUTSIDE-FILE-MARKER-51d3"
ENV_MARKER = "DOIT-ENV-MARKER-a7e2"
HTML = ".as-test/html/index.html"
NOT_AVAILABLE = "source not available"

# A spec that sends its own report: one DATA frame (and CLOSE, which 1.1+ hosts read as its
# end), with a failing expectation and coverage points in files outside the project.
FORGED_SPEC = """\
function frame(kind: u8, payload: string): ArrayBuffer {
  const body = Uint8Array.wrap(String.UTF8.encode(payload));
  const out = new Uint8Array(9 + body.length);
  out[0] = 0x57;
  out[1] = 0x49;
  out[2] = 0x50;
  out[3] = 0x43;
  out[4] = kind;
  const size = body.length;
  out[5] = <u8>(size & 0xff);
  out[6] = <u8>((size >> 8) & 0xff);
  out[7] = <u8>((size >> 16) & 0xff);
  out[8] = <u8>((size >>> 24) & 0xff);
  out.set(body, 9);
  return out.buffer;
}
process.stdout.write(frame(3, REPORT));
process.stdout.write(frame(1, ""));
"""


# A FIFO in the project is named too: no writer ever opens it, so a reader that waited on it
# would hang the run.
RELATIVE_NAMES = ("../outside/secret.ts", "assembly/src/environ.ts", "assembly/src/pipe.ts")


def outside_names(outside: Path) -> tuple[str, ...]:
    return (*RELATIVE_NAMES, str(outside / "secret.ts"))


def forged_points(names: tuple[str, ...]) -> list[dict[str, object]]:
    return [
        {"hash": f"h{index}", "file": name, "line": 1, "column": 1, "type": "Function",
         "executed": False}
        for index, name in enumerate(names)
    ]  # fmt: skip


def forged_spec(names: tuple[str, ...], verdict: str) -> str:
    """A spec that sends a report of one expectation (``verdict``: "ok" or "fail") and
    coverage points in the files ``names``."""
    expectation = {
        "order": 0, "verdict": verdict, "left": 1, "right": 2, "instr": "toBe", "message": "",
        "location": "1:1",
    }  # fmt: skip
    suite = {
        "order": 0, "time": {"start": 0, "end": 1}, "description": "forged", "depth": 0,
        "suites": [], "tests": [expectation], "logs": [], "kind": "describe", "verdict": verdict,
        "file": "assembly/__tests__/forged.spec.ts",
    }  # fmt: skip
    points = forged_points(names)
    coverage = {"total": len(points), "covered": 0, "uncovered": len(points), "percent": 0,
                "points": points}  # fmt: skip
    report = json.dumps({"suites": [suite], "coverage": coverage})
    return FORGED_SPEC.replace("REPORT", json.dumps(report))


def plant_outside_files(project: Project) -> Path:
    """The secret beside the project, and the committed symlinks that point out of it."""
    outside = project.root.parent / "outside"
    outside.mkdir()
    (outside / "secret.ts").write_text(
        f"export function leak(): i32 {{\n  return 2; // {FILE_MARKER}\n}}\n"
    )
    (project.root / "assembly" / "src" / "env.ts").symlink_to(outside / "secret.ts")
    (project.root / "assembly" / "src" / "environ.ts").symlink_to("/proc/self/environ")
    os.mkfifo(project.root / "assembly" / "src" / "pipe.ts")
    return outside


def everything_written(project: Project, run: DoitRun) -> dict[str, str]:
    """The console and every file the run left under .as-test/ but the wasm modules."""
    texts = {"stdout": run.stdout, "stderr": run.stderr}
    for path in sorted((project.root / ".as-test").rglob("*")):
        if path.is_file() and path.suffix != ".wasm":
            texts[str(path.relative_to(project.root))] = path.read_text("utf-8", "replace")
    return texts


def assert_no_marker(project: Project, run: DoitRun) -> None:
    texts = everything_written(project, run)
    assert HTML in texts
    leaks = [
        f"{marker} in {name}"
        for name, text in texts.items()
        for marker in (FILE_MARKER, ENV_MARKER)
        if marker in text
    ]
    assert leaks == []


@pytest.fixture(scope="module")
def ran(
    tmp_path_factory: pytest.TempPathFactory, toolchain: Toolchain
) -> Iterator[tuple[Project, Path, DoitRun]]:
    project = copy_project("sourcepaths", tmp_path_factory.mktemp("source-paths"), toolchain)
    outside = plant_outside_files(project)
    spec = forged_spec(outside_names(outside), "fail")
    (project.root / "assembly" / "__tests__" / "forged.spec.ts").write_text(spec)
    run = project.doit("astest", "--show-coverage=all", env={"PROBE_SECRET": ENV_MARKER})
    yield project, outside, run


def test_the_routes_reached_the_reports(ran: tuple[Project, Path, DoitRun]) -> None:
    """The names did reach the reports (so the next test checks something): the linked spec's
    coverage names its symlink, the forged spec's failure and points are counted."""
    project, _, run = ran
    assert run.exit_code == 1, run.stdout + run.stderr
    verdicts = {spec: verdict for (spec, _mode), verdict in project.verdicts().items()}
    assert verdicts == {"forged": "failed", "linked": "passed", "plain": "passed"}, verdicts
    lcov = next((project.root / ".as-test").rglob("lcov.info")).read_text()
    for name in ("assembly/src/env.ts", *RELATIVE_NAMES):
        assert f"SF:{name}\n" in lcov, lcov
    page = (project.root / HTML).read_text()
    assert "assembly/src/env.ts" in page
    assert "../outside/secret.ts" in page


def test_no_text_outside_the_project_reaches_the_console_or_a_report(
    ran: tuple[Project, Path, DoitRun],
) -> None:
    project, _, run = ran
    assert_no_marker(project, run)
    page = (project.root / HTML).read_text()
    assert "double(value: i32)" in page  # the project's own sources still show
    assert NOT_AVAILABLE in page


def test_a_planted_result_naming_outside_files_shows_none_of_them(
    ran: tuple[Project, Path, DoitRun],
) -> None:
    """The plain spec's stored PASS gains points in outside files, as a remote-cache entry
    made elsewhere could carry them; the next run shows it cached and reads none of them."""
    project, outside, _ = ran
    record = next((project.root / ".as-test").rglob("plain*.result.jsonl"))
    head, suites, cases = record.read_text().splitlines()
    fields = json.loads(head)
    coverage = fields["coverage"]
    coverage["points"] = [*coverage["points"], *forged_points(outside_names(outside))]
    record.write_text("\n".join([json.dumps(fields), suites, cases]) + "\n")
    again = project.doit("astest", "--show-coverage=all", env={"PROBE_SECRET": ENV_MARKER})
    assert "../outside/secret.ts" in (project.root / HTML).read_text(), again.stdout
    assert_no_marker(project, again)


def test_a_remote_cache_entry_naming_outside_files_shows_none_of_them(
    tmp_path: Path, toolchain: Toolchain, cache_server: CacheServer
) -> None:
    """Another machine stored a PASS whose coverage names ``../outside/secret.ts`` and a symlink
    to ``/proc/self/environ``; this machine, with its own secret beside the project, takes every
    result from the cache (no spec runs here) and reads none of those files."""
    url = cache_server.url()
    spec = forged_spec(RELATIVE_NAMES, "ok")
    other = Machine(tmp_path / "other", toolchain, fixture="sourcepaths")
    (other.project.root / "assembly" / "src" / "env.ts").write_text(
        "export function leak(): i32 {\n  return 2;\n}\n"
    )
    (other.project.root / "assembly" / "__tests__" / "forged.spec.ts").write_text(spec)
    stored = other.doit(url, "astest", "--show-coverage=all")  # the same run's key as here
    assert stored.exit_code == 0, stored.stdout[-3000:] + stored.stderr[-3000:]

    here = Machine(tmp_path / "here", toolchain, fixture="sourcepaths")
    plant_outside_files(here.project)
    (here.project.root / "assembly" / "src" / "env.ts").unlink()  # the same text as the other's
    (here.project.root / "assembly" / "src" / "env.ts").write_text(
        "export function leak(): i32 {\n  return 2;\n}\n"
    )
    (here.project.root / "assembly" / "__tests__" / "forged.spec.ts").write_text(spec)
    taken = here.doit(url, "astest", "--show-coverage=all", PROBE_SECRET=ENV_MARKER)
    assert taken.exit_code == 0, taken.stdout[-3000:] + taken.stderr[-3000:]
    assert "remote cache: 6 hits, 0 misses" in taken.stdout, taken.stdout[-3000:]
    assert here.compiler_calls() == []  # nothing was built or run here
    assert_no_marker(here.project, taken)
    page = (here.project.root / HTML).read_text()
    assert "../outside/secret.ts" in page and NOT_AVAILABLE in page
