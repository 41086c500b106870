"""The persistent compiler against a spawned asc: same bytes, same diagnostics, no leftovers.

Real asc 0.28.14 and the as-test transform from npm, on copies of the fixture projects.
"""

from __future__ import annotations

import contextlib
import hashlib
import multiprocessing
import os
import shutil
import signal
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

import pytest

from astest_tasks.build.build_request import BuildRequest
from astest_tasks.build.compile_server import CompileOutput, CompileServer
from astest_tasks.build.compiler import asc_arguments, compile_spec, spawn_compiler
from astest_tasks.config.toolchain import Toolchain, load_toolchain
from astest_tasks.model.results import SpecIdentity
from astest_tasks.schedule.compile_pool import DISABLE_VARIABLE, CompilePool
from astest_tasks.schedule.scheduler import Scheduler
from tests.fakes import processes_mentioning, wait_until_gone
from tests.integration.conftest import ANSI, NODE_MODULES, Project, copy_project
from tests.process_tree import alive, wait_until_ended

pytestmark = pytest.mark.integration

PASSING_SPECS = [
    "assembly/__tests__/geometry.spec.ts",
    "assembly/__tests__/skips.spec.ts",
    "assembly/__tests__/snap.spec.ts",
    "assembly/__tests__/left/shared.spec.ts",
    "assembly/__tests__/right/shared.spec.ts",
]


@pytest.fixture
def planner() -> Iterator[Scheduler]:
    """A fresh scheduler, the route compile_spec takes; its servers closed afterwards."""
    fresh = Scheduler()
    yield fresh
    fresh.close()


@pytest.fixture
def pool(planner: Scheduler) -> CompilePool:
    return planner.compile_pool


def toolchain_of(project: Project) -> Toolchain:
    return load_toolchain(project.root, need_wasi_shim=True)


def build_request(project: Project, spec: str, target: str) -> BuildRequest:
    spec_id = spec.removeprefix("assembly/__tests__/").removesuffix(".spec.ts")
    out = f".as-test/build/{target}/{spec_id}"
    return BuildRequest(
        project_root=str(project.root),
        spec=SpecIdentity(spec, spec_id, target, target),
        wasm_path=f"{out}.spec.wasm",
        record_path=f"{out}.build.json",
        build_env={"AS_TEST_COVERAGE_ENABLED": "0"},
    )


Artifacts = dict[str, bytes]


class Compiles:
    """The same compiles served (by one pool) and spawned, each into a folder of its own."""

    def __init__(
        self, pool: CompilePool, project: Project, out: Path, args: tuple[str, ...] = ()
    ) -> None:
        self.pool = pool
        self.project = project
        self.toolchain = toolchain_of(project)
        self.out = out
        self.args = args
        self.count = 0

    def served(
        self, spec: str, target: str, env: dict[str, str] | None = None
    ) -> tuple[CompileOutput, Artifacts]:
        folder, argv, full_env = self._prepare(spec, target, env)
        root = self.toolchain.assemblyscript.root
        output = self.pool.compile(
            self.toolchain.node, root, argv, self.project.root, full_env, 300
        )
        assert output is not None, "the compile server did not start"
        return output, artifacts(folder)

    def spawned(
        self, spec: str, target: str, env: dict[str, str] | None = None
    ) -> tuple[CompileOutput, Artifacts]:
        folder, argv, full_env = self._prepare(spec, target, env)
        command = [self.toolchain.node, str(self.toolchain.asc_js), *argv]
        return spawn_compiler(command, self.project.root, full_env), artifacts(folder)

    def _prepare(
        self, spec: str, target: str, env: dict[str, str] | None
    ) -> tuple[Path, list[str], dict[str, str]]:
        self.count += 1
        folder = self.out / str(self.count)
        folder.mkdir(parents=True)
        # Every compile names its output x.wasm: asc writes the basename into the bindings.
        request = replace(build_request(self.project, spec, target), build_args=self.args)
        argv = asc_arguments(request, self.toolchain, str(folder / "x.wasm"))
        return folder, argv, {**os.environ, "AS_TEST_COVERAGE_ENABLED": "0", **(env or {})}


def artifacts(folder: Path) -> Artifacts:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


def test_served_builds_match_a_spawned_asc_byte_for_byte_across_target_switches(
    pool: CompilePool, tmp_path: Path
) -> None:
    # asc adds the wasi-shim's --lib files to a global; without restoring it, a bindings build
    # after a wasi build fails to find ~lib/bindings/wasi_snapshot_preview1. So one server
    # compiles every spec for wasi, then bindings, then wasi again, each checked against a spawn.
    project = copy_project("passing", tmp_path)
    compiles = Compiles(pool, project, tmp_path / "out")
    expected_files = {"wasi": {"x.wasm"}, "bindings": {"x.wasm", "x.js", "x.d.ts"}}
    reference: dict[tuple[str, str], tuple[CompileOutput, Artifacts]] = {}
    for target in ["wasi", "bindings", "wasi"]:
        for spec in PASSING_SPECS:
            served = compiles.served(spec, target)
            if (spec, target) not in reference:
                reference[spec, target] = compiles.spawned(spec, target)
            assert served == reference[spec, target], f"{spec} [{target}]"
            assert served[0].exit_code == 0, served[0].diagnostics
            assert set(served[1]) == expected_files[target]
    assert (
        reference["assembly/__tests__/geometry.spec.ts", "wasi"]
        != (reference["assembly/__tests__/geometry.spec.ts", "bindings"])
    )
    assert len(pool.server_pids) == 1


@pytest.mark.parametrize("first_args", [(), ("-O3",)], ids=["unoptimised-first", "O3-first"])
def test_an_optimised_build_is_the_same_bytes_on_either_v8_tier(
    pool: CompilePool, tmp_path: Path, first_args: tuple[str, ...]
) -> None:
    # The compile that starts a server chooses its V8 flags (--liftoff-only unless it asks
    # binaryen to optimise); a later build that differs is served there too, and must come out
    # exactly as a spawned asc makes it.
    project = copy_project("passing", tmp_path)
    spec = PASSING_SPECS[0]
    Compiles(pool, project, tmp_path / "first", first_args).served(spec, "wasi")
    (pid,) = pool.server_pids
    command_line = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    assert (b"--liftoff-only" in command_line) == (first_args == ())
    assert b"--always-sparkplug" in command_line
    assert b"--max-semi-space-size=64" in command_line
    optimised = Compiles(pool, project, tmp_path / "optimised", ("-O3",))
    served = optimised.served(spec, "wasi")
    assert served[0].exit_code == 0, served[0].diagnostics
    assert served == optimised.spawned(spec, "wasi")
    unoptimised = Compiles(pool, project, tmp_path / "unoptimised")
    assert unoptimised.served(spec, "wasi") == unoptimised.spawned(spec, "wasi")
    assert pool.server_pids == [pid]


def test_each_compile_sees_its_own_build_environment(pool: CompilePool, tmp_path: Path) -> None:
    # The as-test transform reads AS_TEST_COVERAGE_ENABLED from process.env while compiling.
    project = copy_project("passing", tmp_path)
    compiles = Compiles(pool, project, tmp_path / "out")
    spec = "assembly/__tests__/geometry.spec.ts"
    reference = {
        flag: compiles.spawned(spec, "wasi", {"AS_TEST_COVERAGE_ENABLED": flag}) for flag in "10"
    }
    assert reference["1"][1] != reference["0"][1]
    for flag in ["1", "0", "1"]:
        served = compiles.served(spec, "wasi", {"AS_TEST_COVERAGE_ENABLED": flag})
        assert served == reference[flag], f"coverage {flag}"


def test_a_compile_error_returns_ascs_own_diagnostics(pool: CompilePool, tmp_path: Path) -> None:
    project = copy_project("failing", tmp_path)
    compiles = Compiles(pool, project, tmp_path / "out")
    for target in ["wasi", "bindings"]:
        served = compiles.served("assembly/__tests__/broken.spec.ts", target)
        spawned = compiles.spawned("assembly/__tests__/broken.spec.ts", target)
        assert served[0].exit_code == 1
        # asc colours its messages when CI is set: compare the words, not the escapes.
        words = ANSI.sub("", served[0].diagnostics)
        assert "ERROR TS2322" in words
        assert "broken.spec.ts" in words
        assert served == spawned
        assert served[1] == {}
        # A failed compile leaves the server usable.
        good = compiles.served("assembly/__tests__/assertions.spec.ts", target)
        assert good[0].exit_code == 0, good[0].diagnostics
        assert "x.wasm" in good[1]
    assert len(pool.server_pids) == 1


NOISY_TRANSFORM = """
export default class Noisy {
  afterParse() {
    console.log("transform: printed to stdout");
    process.stdout.write("transform: written to stdout\\n");
    console.error("transform: printed to stderr");
  }
}
"""

QUITTING_TRANSFORM = """
export default class Quitter {
  afterParse() {
    console.error("transform: giving up");
    process.exit(3);
  }
}
"""


def test_what_a_transform_prints_is_captured_per_compile_and_kept_off_the_protocol(
    pool: CompilePool, tmp_path: Path
) -> None:
    project = copy_project("passing", tmp_path)
    (project.root / "noisy.mjs").write_text(NOISY_TRANSFORM)
    compiles = Compiles(pool, project, tmp_path / "out", ("--transform", "./noisy.mjs"))
    spec = PASSING_SPECS[0]
    served = compiles.served(spec, "wasi")
    assert served == compiles.spawned(spec, "wasi")
    assert served[0].exit_code == 0
    assert served[0].stdout == (b"transform: printed to stdout\ntransform: written to stdout\n")
    assert served[0].stderr == b"transform: printed to stderr\n"
    assert compiles.served(spec, "wasi")[0] == served[0]  # the next compile prints its own


def test_a_compile_that_calls_process_exit_fails_like_a_spawned_asc_and_retires_its_server(
    pool: CompilePool, tmp_path: Path
) -> None:
    project = copy_project("passing", tmp_path)
    (project.root / "quit.mjs").write_text(QUITTING_TRANSFORM)
    compiles = Compiles(pool, project, tmp_path / "out", ("--transform", "./quit.mjs"))
    spec = PASSING_SPECS[0]
    served = compiles.served(spec, "wasi")
    assert served == compiles.spawned(spec, "wasi")
    assert served[0].exit_code == 1
    assert served[0].diagnostics == "transform: giving up\n"
    assert pool.server_pids == []  # its state is unknown after that: not reused


def spawned_wasm(project: Project, request: BuildRequest, out: Path) -> bytes:
    toolchain = toolchain_of(project)
    argv = [toolchain.node, str(toolchain.asc_js), *asc_arguments(request, toolchain, str(out))]
    env = {**os.environ, **request.build_env}
    assert spawn_compiler(argv, project.root, env).exit_code == 0
    return out.read_bytes()


def test_a_server_killed_mid_compile_is_restarted_and_the_build_retried(
    planner: Scheduler, pool: CompilePool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = copy_project("passing", tmp_path)
    toolchain = toolchain_of(project)
    assert compile_spec(build_request(project, PASSING_SPECS[1], "wasi"), toolchain, planner).ok
    [first_pid] = pool.server_pids

    original_send = CompileServer._send
    killed: list[int] = []

    def send_then_kill(self: CompileServer, data: bytes) -> None:
        original_send(self, data)
        if not killed:  # only the first request dies with its server
            killed.append(self.pid)
            os.kill(self.pid, signal.SIGKILL)

    monkeypatch.setattr(CompileServer, "_send", send_then_kill)
    request = build_request(project, PASSING_SPECS[0], "wasi")
    record = compile_spec(request, toolchain, planner)
    assert killed == [first_pid]
    assert record.ok, record.diagnostics
    wasm = (project.root / request.wasm_path).read_bytes()
    assert hashlib.sha256(wasm).hexdigest() == record.wasm_sha256
    assert wasm == spawned_wasm(project, request, tmp_path / "reference.wasm")
    assert wait_until_gone(first_pid)
    assert len(pool.server_pids) == 1 and pool.server_pids != [first_pid]


def test_a_server_killed_between_builds_is_replaced_by_the_next_build(
    planner: Scheduler, pool: CompilePool, tmp_path: Path
) -> None:
    project = copy_project("passing", tmp_path)
    toolchain = toolchain_of(project)
    assert compile_spec(build_request(project, PASSING_SPECS[0], "wasi"), toolchain, planner).ok
    [first_pid] = pool.server_pids
    os.kill(first_pid, signal.SIGKILL)
    assert wait_until_gone(first_pid)
    record = compile_spec(build_request(project, PASSING_SPECS[0], "bindings"), toolchain, planner)
    assert record.ok, record.diagnostics
    assert len(pool.server_pids) == 1 and pool.server_pids != [first_pid]


def test_disabling_the_server_spawns_asc_for_each_build(
    planner: Scheduler, pool: CompilePool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(DISABLE_VARIABLE, "0")
    project = copy_project("passing", tmp_path)
    request = build_request(project, PASSING_SPECS[0], "bindings")
    record = compile_spec(request, toolchain_of(project), planner)
    assert record.ok, record.diagnostics
    assert pool.server_pids == []
    assert record.command.startswith("AS_TEST_COVERAGE_ENABLED=0 node ")


class ServersSeen(NamedTuple):
    exit_code: int
    servers: set[int]
    parents: dict[int, int]  # server pid -> its parent's pid, as first seen
    doit_pid: int


def doit_watching_servers(
    project: Project, *args: str, env: dict[str, str] | None = None, cpus: set[int] | None = None
) -> ServersSeen:
    """Run doit, noting every compile server of this project seen while it ran."""
    proc = project.start_doit(*args, env=env, cpus=cpus)
    seen = ServersSeen(0, set(), {}, proc.pid)
    marker = f"asc_server.mjs {project.root}"
    while proc.poll() is None:
        for pid in set(processes_mentioning(marker)) - seen.servers:
            seen.servers.add(pid)
            with contextlib.suppress(OSError):
                stat = Path(f"/proc/{pid}/stat").read_text()
                seen.parents[pid] = int(stat.rsplit(")", 1)[1].split()[1])
        time.sleep(0.05)
    return seen._replace(exit_code=proc.returncode)


# How many servers doit starts and that none outlives it is the pool's own machinery, the same
# for any asc: one toolchain covers it (the other integration tests compile through the server
# on both toolchains).
@pytest.mark.toolchains("1.8.0")
@pytest.mark.parametrize("args", [(), ("-n", "2"), ("-n", "2", "-P", "thread")])
def test_doit_uses_servers_and_leaves_none_behind(
    fresh_project: Callable[[str], Project], args: tuple[str, ...]
) -> None:
    project = fresh_project("passing")
    # Two specs in two modes: four builds, enough for both workers and for reuse in each.
    exit_code, seen, _, _ = doit_watching_servers(project, *args, env={"ASTEST_SPEC": "shared"})
    assert exit_code == 0
    assert len(list((project.root / ".as-test/build").rglob("*.spec.wasm"))) == 4
    assert seen, "no compile server ran during the builds"
    assert len(seen) <= 2  # one per worker process or thread, not one per spec
    assert processes_mentioning(f"asc_server.mjs {project.root}") == []


@pytest.mark.toolchains("1.8.0")
def test_doit_workers_on_two_cores_share_one_server_that_doit_started(
    fresh_project: Callable[[str], Project],
) -> None:
    # Two servers warming up side by side on two cores are slower than one: doit's main process
    # starts one before it forks its workers, and both compile there in turn.
    project = fresh_project("passing")
    two_cores = set(sorted(os.sched_getaffinity(0))[:2])
    seen = doit_watching_servers(project, "-n", "2", env={"ASTEST_SPEC": "shared"}, cpus=two_cores)
    assert seen.exit_code == 0
    assert len(list((project.root / ".as-test/build").rglob("*.spec.wasm"))) == 4
    assert len(seen.servers) == 1, f"servers and their parents: {seen.parents}"
    assert list(seen.parents.values()) == [seen.doit_pid]  # not a worker's
    assert processes_mentioning(f"asc_server.mjs {project.root}") == []


@pytest.mark.toolchains("1.8.0")
def test_a_build_task_run_alone_works_and_leaves_no_server(
    fresh_project: Callable[[str], Project],
) -> None:
    project = fresh_project("passing")
    exit_code, seen, _, _ = doit_watching_servers(project, "astest:build:wasi:geometry")
    assert exit_code == 0
    assert len(seen) == 1
    record = project.root / ".as-test" / "build" / "wasi" / "geometry.build.json"
    assert '"status": "ok"' in record.read_text()
    assert processes_mentioning(f"asc_server.mjs {project.root}") == []


def _start_a_server_fork_and_vanish(asc_root: str, results: multiprocessing.Queue[int]) -> None:
    """A doit that starts a compile server, forks a worker that keeps a copy of the server's
    stdin and outlives it (not bound to it), and dies without clean-up."""
    node = shutil.which("node")
    assert node is not None
    server = CompileServer(node, Path(asc_root), dict(os.environ))
    child = os.fork()
    if child == 0:
        time.sleep(120)
        os._exit(0)
    for pid in (server.pid, child):
        results.put(pid)
    results.close()
    results.join_thread()
    os._exit(0)


def test_a_server_ends_with_its_parent_though_a_forked_child_holds_its_stdin() -> None:
    spawn = multiprocessing.get_context("spawn")
    results: multiprocessing.Queue[int] = spawn.Queue()
    asc_root = str(NODE_MODULES / "assemblyscript")
    parent = spawn.Process(target=_start_a_server_fork_and_vanish, args=(asc_root, results))
    parent.start()
    server, orphan = results.get(timeout=120), results.get(timeout=120)
    try:
        parent.join(30)
        assert alive(orphan)  # its stdin has a writer left: only its parent's end tells
        assert wait_until_ended({server}) == set(), "the compile server outlived its parent"
    finally:
        os.kill(orphan, signal.SIGKILL)
        if alive(server):
            os.kill(server, signal.SIGKILL)
