"""Builders shared by the unit tests: result records, suites, and an as-test project on disk.

Import the plain builders (``from tests.conftest import make_spec_result``); ``tmp_project`` is a
fixture because it also puts a stand-in ``node`` on PATH, so that creating tasks needs no
Node.js (nothing is compiled or run by the tests that use it).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import tracemalloc
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Protocol, TypeVar

import pytest

from astest_tasks.build.build_request import BuildRequest
from astest_tasks.config.as_test import AsTest
from astest_tasks.config.as_test_version import OLDEST_TESTED
from astest_tasks.config.layout import SpecFiles
from astest_tasks.config.pipeline import Pipeline
from astest_tasks.coverage.model import ReportCoverage
from astest_tasks.model.counting import count, failures
from astest_tasks.model.guest_report import Counts, Expectation, FailureDetail, Suite, Verdict
from astest_tasks.model.results import (
    SnapshotCounts,
    SpecIdentity,
    SpecResult,
    Stage,
    Status,
    failure_result,
)
from astest_tasks.model.snapshot_update import SnapshotUpdate
from astest_tasks.run import wasm_compiler
from astest_tasks.run.limits import ModeLimits
from astest_tasks.run.run_request import Progress, RunRequest, SnapshotChoice
from astest_tasks.run.runtime import Runtime
from tests.nginx_cache import CacheServer, NginxMissing, running_nginx

# -- which wasmtime compiler a test gets ---------------------------------------------------------


@pytest.fixture(autouse=True)
def no_spec_run_here_yet(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test chooses wasmtime's compiler as a fresh process would (run/wasm_compiler.py): no
    earlier test's run steers it, nor an ``ASTEST_WASM_COMPILER`` of the shell's."""
    monkeypatch.setattr(wasm_compiler._LastRunHere, "seconds", None)
    monkeypatch.delenv(wasm_compiler.SWITCH_VARIABLE, raising=False)


# -- the session's signals ------------------------------------------------------------------------


def pytest_configure(config: pytest.Config) -> None:
    """Let SIGINT through when the suite was started with it ignored.

    A shell starts a background job (``cmd &`` in a script, ``nohup``) with SIGINT ignored, and
    every process started from it inherits that: the tests that press Ctrl-C on a doit, a watcher
    or a browser run would wait in vain, and those that check our handlers would find someone
    else's. Python's own handler is what an ordinary terminal start gives; children started from
    a process with a handler (not an ignored signal) get the default action back.
    """
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


# -- memory ----------------------------------------------------------------------------------------

T = TypeVar("T")


def peak_of(call: Callable[[], T]) -> tuple[T, int]:
    """What ``call`` answers and the peak of Python's allocations while it ran, in every thread
    (upload threads' and the socket's reads too): deterministic up to a few buffers, where a
    process's resident size is not."""
    tracemalloc.start()
    try:
        answer = call()
        return answer, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# -- result records --------------------------------------------------------------------------------

# What one spec file with one passing (failing, skipped) test counts, when a test gives none.
_COUNTS_OF = {
    Status.PASSED: Counts(1, 0, 0, 1, 0, 0, 1.0),
    Status.FAILED: Counts(0, 1, 0, 0, 1, 0, 1.0),
    Status.SKIPPED: Counts(0, 0, 1, 0, 0, 1, 0.0),
}


def make_expectation(
    verdict: Verdict = Verdict.OK,
    *,
    order: int = 0,
    matcher: str = "toBe",
    message: str = "",
    location: str = "3:5",
    received: str | None = "1",
    expected: str | None = "1",
    kind: str = "",
) -> Expectation:
    """One ``expect(...)`` as the guest reports it."""
    return Expectation(order, verdict, matcher, message, location, received, expected, kind)


def make_suite(
    description: str = "math",
    *tests: Expectation,
    kind: str = "test",
    depth: int = 0,
    children: tuple[Suite, ...] = (),
    logs: tuple[str, ...] = (),
    verdict: Verdict | None = None,
) -> Suite:
    """A block; its verdict is FAIL when an expectation or a child failed, else OK (or give
    one: a disabled ``xtest`` reports SKIP)."""
    if verdict is None:
        verdicts = [t.verdict for t in tests] + [c.verdict for c in children]
        verdict = Verdict.FAIL if Verdict.FAIL in verdicts else Verdict.OK
    return Suite(description, kind, depth, verdict, 0.0, 1.0, children, tests, logs)


def make_spec_result(
    spec_id: str = "math",
    status: Status = Status.PASSED,
    *,
    spec: str | None = None,
    mode: str = "wasi",
    target: str | None = None,
    stage: Stage = Stage.RUN,
    suites: tuple[Suite, ...] = (),
    counts: Counts | None = None,
    failure_list: tuple[FailureDetail, ...] | None = None,
    duration_s: float = 0.25,
    session: str = "s",
    build_command: str = "node asc.js",
    error: str = "",
    warnings: tuple[str, ...] = (),
    written: tuple[str, ...] = (),
    output: str = "",
    snapshots: SnapshotCounts | None = None,
    coverage: ReportCoverage | None = None,
    every_block_is_suite: bool = False,
) -> SpecResult:
    """A spec's result in one mode. Left out: the spec lives in ``assembly/__tests__``, the
    target is the mode's name (or wasi), and counts and failures follow from ``suites`` (from
    ``status`` when there are none: one test of that verdict; none for a build failure)."""
    if counts is None:
        if suites:
            counts = count(suites, every_block_is_suite)
        elif stage is Stage.BUILD:
            counts = Counts.zero()
        else:
            counts = _COUNTS_OF[status]
    if target is None:
        target = _target_of(mode)
    return SpecResult(
        spec=spec if spec is not None else f"assembly/__tests__/{spec_id}.spec.ts",
        spec_id=spec_id,
        mode=mode,
        target=target,
        status=status,
        stage=stage,
        counts=counts,
        failures=tuple(failures(suites)) if failure_list is None else failure_list,
        suites=suites,
        duration_s=duration_s,
        session=session,
        build_command=build_command,
        error=error,
        warnings=warnings,
        written=written,
        output=output,
        snapshots=snapshots if snapshots is not None else SnapshotCounts(),
        coverage=coverage,
        every_block_is_suite=every_block_is_suite,
    )


def _target_of(mode: str) -> str:
    return mode if mode in ("wasi", "bindings", "web") else "wasi"


def make_crashed_result(
    spec_id: str = "math", *, mode: str = "wasi", session: str = "s", output: str = ""
) -> SpecResult:
    """A spec whose wasm trapped mid-run: a failed run with the runtime's reason, as the host
    records it."""
    return make_spec_result(
        spec_id,
        Status.FAILED,
        mode=mode,
        session=session,
        counts=Counts(0, 1, 0, 0, 1, 0, 0.0),
        failure_list=(FailureDetail("runtime", "", "", None, None, "wasm trap: unreachable"),),
        error="test runtime failed with exit code 1",
        output=output,
    )


def make_build_failure(
    spec_id: str = "math", *, mode: str = "wasi", session: str = "s"
) -> SpecResult:
    """A spec that did not compile, recorded as the run task records it: it never ran."""
    spec = f"assembly/__tests__/{spec_id}.spec.ts"
    who = SpecIdentity(path=spec, spec_id=spec_id, mode=mode, target=_target_of(mode))
    diagnostics = f"ERROR TS2304: Cannot find name 'x'.\n   in {spec}(3,5)"
    return failure_result(who, session, Stage.BUILD, "build failed", diagnostics, f"asc {spec}")


# -- an as-test project on disk --------------------------------------------------------------------

# Two library modules and a spec for each, as in a small real project.
LIBRARY_FILES = {
    "assembly/lib/geometry.ts": (
        "export class Point {\n"
        "  constructor(public x: f64, public y: f64) {}\n"
        "  distanceTo(other: Point): f64 {\n"
        "    const dx = this.x - other.x;\n"
        "    const dy = this.y - other.y;\n"
        "    return Math.sqrt(dx * dx + dy * dy);\n"
        "  }\n"
        "}\n"
    ),
    "assembly/lib/counter.ts": (
        "export class Counter {\n"
        "  private count: i32 = 0;\n"
        "  increment(): i32 {\n"
        "    return ++this.count;\n"
        "  }\n"
        "}\n"
    ),
}
SPEC_FILES = {
    "assembly/__tests__/geometry.spec.ts": (
        'import { describe, expect, test } from "as-test";\n'
        'import { Point } from "../lib/geometry";\n\n'
        'describe("points", () => {\n'
        '  test("distance", () => {\n'
        "    expect(new Point(0, 0).distanceTo(new Point(3, 4))).toBe(5.0);\n"
        "  });\n"
        "});\n"
    ),
    "assembly/__tests__/counter.spec.ts": (
        'import { expect, test } from "as-test";\n'
        'import { Counter } from "../lib/counter";\n\n'
        'test("counts up", () => {\n'
        "  const counter = new Counter();\n"
        "  counter.increment();\n"
        "  expect(counter.increment()).toBe(2);\n"
        "});\n"
    ),
}
# Two modes, one per target that runs in-process.
TWO_MODES_CONFIG: dict[str, object] = {
    "input": ["assembly/__tests__/**/*.spec.ts"],
    "output": ".as-test/",
    "modes": {
        "wasi": {"buildOptions": {"target": "wasi"}},
        "bindings": {"buildOptions": {"target": "bindings"}},
    },
}
TOOLCHAIN_VERSIONS = {"assemblyscript": "0.28.20", "@assemblyscript/wasi-shim": "0.1.0"}


def write_project(
    root: Path,
    config: Mapping[str, object] | None = None,
    *,
    as_test: str = "1.8.0",
    files: Mapping[str, str] | None = None,
    packages: Mapping[str, str] | None = None,
) -> Path:
    """An as-test project in ``root``: its config, library and specs (``files`` replaces
    both), and ``node_modules`` holding only the packages' manifests, which is all that finding
    the toolchain and its versions reads (config/toolchain.py, config/as_test_version.py)."""
    versions = {**TOOLCHAIN_VERSIONS, "as-test": as_test, **(packages or {})}
    for name, version in versions.items():
        package = root / "node_modules" / name
        package.mkdir(parents=True, exist_ok=True)
        (package / "package.json").write_text(json.dumps({"name": name, "version": version}))
    chosen = files if files is not None else {**LIBRARY_FILES, **SPEC_FILES}
    for relative, text in chosen.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    (root / "package.json").write_text(json.dumps({"name": "fixture", "private": True}))
    config_data = TWO_MODES_CONFIG if config is None else config
    (root / "as-test.config.json").write_text(json.dumps(config_data, indent=2))
    return root


class ProjectBuilder(Protocol):
    def __call__(
        self,
        config: Mapping[str, object] | None = None,
        *,
        as_test: str = "1.8.0",
        files: Mapping[str, str] | None = None,
        packages: Mapping[str, str] | None = None,
    ) -> Path: ...


@pytest.fixture
def tmp_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ProjectBuilder:
    """``tmp_project(config=None, *, as_test=..., files=..., packages=...)`` lays out a project
    (``write_project``) in a fresh folder and returns its root. A stand-in ``node`` that only
    answers ``--version`` goes first on PATH, and the command line is a bare ``doit`` run (the
    task creator reads it), so no test depends on how pytest was started. The project becomes
    the current folder, as for a doit run in it."""
    tools = tmp_path / "toolchain-bin"
    tools.mkdir()
    node = tools / "node"
    node.write_text("#!/bin/sh\necho v20.11.0\n")
    node.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tools}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setattr(sys, "argv", ["doit"])
    root = tmp_path / "project"

    def build(
        config: Mapping[str, object] | None = None,
        *,
        as_test: str = "1.8.0",
        files: Mapping[str, str] | None = None,
        packages: Mapping[str, str] | None = None,
    ) -> Path:
        root.mkdir(exist_ok=True)
        write_project(root, config, as_test=as_test, files=files, packages=packages)
        monkeypatch.chdir(root)  # as doit runs: task paths come out relative to the project
        return root

    return build


def make_run_request(
    root: Path | str,
    spec_id: str,
    runtime: Runtime,
    *,
    timeout_s: float = 10.0,
    memory_mib: float = 1024.0,
    snapshot_files: tuple[str, ...] | None = None,
    crash_dir: str = ".as-test/crashes",
    logs_dir: str | None = None,
) -> RunRequest:
    """The run request of ``assembly/__tests__/<spec_id>.spec.ts`` in mode wasi, with its files
    under ``.as-test/build/wasi``."""
    stem = f".as-test/build/wasi/{spec_id}.spec"
    snapshot = f".as-test/snapshots/{spec_id}.spec.snap"
    return RunRequest(
        project_root=str(root),
        spec=SpecIdentity(f"assembly/__tests__/{spec_id}.spec.ts", spec_id, "wasi", "wasi"),
        files=SpecFiles(f"{stem}.wasm", f"{stem}.build.json", f"{stem}.result.jsonl", snapshot),
        runtime=runtime,
        limits=ModeLimits(timeout_s, memory_mib, 64.0),
        run_env={},
        snapshots=SnapshotChoice(
            directory=".as-test/snapshots",
            files=(snapshot,) if snapshot_files is None else snapshot_files,
            update=SnapshotUpdate.NONE,
            no_snapshot=False,
            input_patterns=(),
        ),
        progress=Progress(position=0, total=0, counter_file=""),
        crash_dir=crash_dir,
        logs_dir=logs_dir,
        pipeline=Pipeline(),
        as_test=AsTest.parse(OLDEST_TESTED),  # 1.0.7, the rules these fixtures were written to
        coverage_detail=False,
    )


def make_build_request(
    root: Path | str, spec_id: str, mode: str = "wasi", build_cmd: str = ""
) -> BuildRequest:
    """The build of ``assembly/__tests__/<spec_id>.spec.ts`` for ``mode`` (its target too)."""
    return BuildRequest(
        project_root=str(root),
        spec=SpecIdentity(f"assembly/__tests__/{spec_id}.spec.ts", spec_id, mode, mode),
        wasm_path=f".as-test/build/{mode}/{spec_id}.spec.wasm",
        record_path=f".as-test/build/{mode}/{spec_id}.build.json",
        build_cmd=build_cmd,
    )


@pytest.fixture
def cache_server(tmp_path: Path) -> Iterator[CacheServer]:
    """Debian's nginx with WebDAV on a free loopback port: the real server of the remote-cache
    tests (tests/nginx_cache.py), stopped by its pid afterwards."""
    try:
        with running_nginx(tmp_path / "nginx") as server:
            yield server
    except NginxMissing as exc:
        pytest.fail(str(exc))
