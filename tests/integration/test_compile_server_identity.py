"""One warm compile server against asc run alone: the same bytes for every spec we have.

The server keeps work between compiles (asc_server.mjs: files read at once, library sources parsed
once and handed to each compile as a fresh copy). Whatever it keeps must never show in a module:
every fixture spec of the test suite and a generated suite are compiled by ONE server, target by
target (wasi, then bindings, then web with debug info and a source map, which number the sources
of each compile afresh), with coverage on and off, and each result is compared byte for byte with
what the same asc command writes when spawned alone, on both toolchains.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from astest_tasks.build.build_request import BuildRequest
from astest_tasks.build.compile_server import CompileOutput
from astest_tasks.build.compiler import asc_arguments, spawn_compiler
from astest_tasks.config.toolchain import Toolchain as Installed
from astest_tasks.config.toolchain import load_toolchain
from astest_tasks.model.results import SpecIdentity
from astest_tasks.schedule.compile_pool import CompilePool
from astest_tasks.schedule.scheduler import Scheduler
from tests.integration.conftest import FIXTURES
from tests.integration.toolchains import REPO, Toolchain

pytestmark = pytest.mark.integration

# The order one server compiles them in, and the extra asc flags of each.
TARGETS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("wasi", ()),
    ("bindings", ()),
    ("web", ("--debug", "--sourceMap")),
)
GENERATED_SPECS = 4


@dataclass(frozen=True)
class Compile:
    """One asc command: a spec of a project, for a target, with coverage on or off."""

    project: Path
    spec: str
    target: str
    args: tuple[str, ...]
    coverage: bool

    @property
    def name(self) -> str:
        return f"{self.project.name}/{self.spec} [{self.target}, coverage {self.coverage}]"


Artifacts = dict[str, bytes]
Result = tuple[CompileOutput, Artifacts]


@pytest.fixture
def pool() -> Iterator[CompilePool]:
    scheduler = Scheduler()
    yield scheduler.compile_pool
    scheduler.close()


def test_one_server_writes_what_asc_alone_writes_for_every_spec(
    pool: CompilePool, toolchain: Toolchain, tmp_path: Path
) -> None:
    projects = tmp_path / "projects"
    projects.mkdir()
    # One node_modules above every project: they all resolve the same assemblyscript, so the
    # pool serves them all from one server.
    (projects / "node_modules").symlink_to(toolchain.node_modules)
    compiles = planned_compiles(projects, toolchain)
    installed = load_toolchain(projects / "passing", need_wasi_shim=True)
    # The references first, several at once: each is a Node process of its own.
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 1)) as spawns:
        references = list(
            spawns.map(
                lambda pair: spawned(pair[1], installed, tmp_path / "alone" / str(pair[0])),
                enumerate(compiles),
            )
        )
    for index, (compile_, reference) in enumerate(zip(compiles, references, strict=True)):
        result = served(pool, compile_, installed, tmp_path / "served" / str(index))
        assert result == reference, compile_.name
    assert len(pool.server_pids) == 1
    built = [output for output, files in references if output.exit_code == 0 and files]
    assert len(built) >= len(compiles) * 3 // 4, "most specs should build"
    # The two coverage settings and the three targets really gave different modules.
    assert len({files["x.wasm"] for _, files in references if "x.wasm" in files}) > len(built) // 2


def planned_compiles(projects: Path, toolchain: Toolchain) -> list[Compile]:
    """Every fixture spec in one target (each target and coverage setting taken in turn), the
    generated suite in every target; then ordered target by target, as the server takes them."""
    specs: list[tuple[Path, str]] = []
    for fixture in sorted(path for path in FIXTURES.iterdir() if (path / "assembly").is_dir()):
        project = projects / fixture.name
        shutil.copytree(fixture, project)
        specs += [(project, spec) for spec in spec_paths(project)]
    assert len(specs) > 40, specs
    generated = projects / "generated"
    generator = [sys.executable, str(REPO / "bench" / "generate_suite.py"), str(GENERATED_SPECS)]
    subprocess.run([*generator, str(generated), "--toolchain", toolchain.as_test], check=True)
    compiles = [
        Compile(project, spec, *TARGETS[index % 3], coverage=(index // 3) % 2 == 0)
        for index, (project, spec) in enumerate(specs)
    ]
    for index, spec in enumerate(spec_paths(generated)):
        for number, (target, args) in enumerate(TARGETS):
            coverage = (index + number) % 2 == 0
            compiles.append(Compile(generated, spec, target, args, coverage))
    order = [target for target, _ in TARGETS]
    return sorted(compiles, key=lambda compile_: order.index(compile_.target))


def spec_paths(project: Path) -> list[str]:
    return sorted(
        str(path.relative_to(project)) for path in (project / "assembly").rglob("*.spec.ts")
    )


def served(pool: CompilePool, compile_: Compile, installed: Installed, out: Path) -> Result:
    argv, env = command(compile_, installed, out)
    root = installed.assemblyscript.root
    output = pool.compile(installed.node, root, argv, compile_.project, env, 300)
    assert output is not None, "the compile server did not start"
    return output, artifacts(out)


def spawned(compile_: Compile, installed: Installed, out: Path) -> Result:
    argv, env = command(compile_, installed, out)
    asc = [installed.node, str(installed.asc_js), *argv]
    return spawn_compiler(asc, compile_.project, env), artifacts(out)


def command(compile_: Compile, installed: Installed, out: Path) -> tuple[list[str], dict[str, str]]:
    out.mkdir(parents=True)
    spec_id = compile_.spec.removesuffix(".spec.ts")
    request = BuildRequest(
        project_root=str(compile_.project),
        spec=SpecIdentity(compile_.spec, spec_id, compile_.target, compile_.target),
        wasm_path="unused.wasm",
        record_path="unused.json",
        build_env={},
    )
    request = replace(request, build_args=compile_.args)
    # Every compile names its output x.wasm: asc writes the file's name into the bindings.
    argv = asc_arguments(request, installed, str(out / "x.wasm"))
    env = {**os.environ, "AS_TEST_COVERAGE_ENABLED": "1" if compile_.coverage else "0"}
    return argv, env


def artifacts(folder: Path) -> Artifacts:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}
