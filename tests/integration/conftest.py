"""Integration fixtures: real fixture projects, real asc + as-test from npm, real doit, real
wasmtime. Each test gets its own copy of a project; building is slow (about 1.3 s a spec), so a
fully built copy is made once per session and cloned (with doit's state) by the tests that need it.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import pytest
from filelock import FileLock

from tests.integration.stock_runners import stock_runners
from tests.integration.toolchains import (
    AS_TEST_1_0,
    BY_VERSION,
    TOOLCHAINS,
    Toolchain,
    ToolchainUnavailable,
    ensure_installed,
)

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures"
NODE_MODULES = AS_TEST_1_0.node_modules
TOOLCHAIN_18_NODE_MODULES = BY_VERSION["1.8.0"].node_modules
DODO = (
    'from astest_tasks import task_astest  # noqa: F401\n\nDOIT_CONFIG = {"backend": "sqlite3"}\n'
)
ANSI = re.compile(r"\x1b\[[0-9;]*m")
EXECUTED = re.compile(r"^\.  (\S+)$", re.MULTILINE)


@dataclass(frozen=True)
class DoitRun:
    exit_code: int
    stdout: str
    stderr: str

    @property
    def executed(self) -> list[str]:
        """Tasks doit executed (its `.  name` lines), not the up-to-date ones (`--`)."""
        return EXECUTED.findall(self.stdout)

    @property
    def last_line(self) -> str:
        lines = self.stdout.rstrip("\n").splitlines()
        return lines[-1] if lines else ""


@dataclass(frozen=True)
class Project:
    root: Path

    def doit(self, *args: str, env: dict[str, str] | None = None, timeout: float = 600) -> DoitRun:
        proc = subprocess.run(
            [sys.executable, "-m", "doit", *args],
            cwd=self.root,
            capture_output=True,
            text=True,
            timeout=timeout,
            env=_doit_environment(env),
            stdin=subprocess.DEVNULL,
        )
        return DoitRun(proc.returncode, proc.stdout, proc.stderr)

    def start_doit(
        self,
        *args: str,
        env: dict[str, str] | None = None,
        stderr: int | IO[str] = subprocess.DEVNULL,
        new_session: bool = False,
        stdout: int | IO[str] = subprocess.DEVNULL,
        cpus: set[int] | None = None,
    ) -> subprocess.Popen[str]:
        """doit in the background, for tests that signal or race it; output is discarded
        unless ``stderr``/``stdout`` say where. ``new_session`` gives it its own process group;
        ``cpus`` are the only cores it may use (what it sees as the machine's)."""
        command = [sys.executable, "-m", "doit", *args]
        if cpus is not None:
            # python -c sets sys.argv to ["-c", "doit", *args]: doit reads sys.argv[1:].
            pinned = (
                f"import os, runpy, sys; os.sched_setaffinity(0, {sorted(cpus)!r}); "
                "sys.argv = sys.argv[1:]; runpy.run_module('doit', run_name='__main__')"
            )
            command = [sys.executable, "-c", pinned, "doit", *args]
        return subprocess.Popen(
            command,
            cwd=self.root,
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=stderr,
            text=True,
            env=_doit_environment(env),
            start_new_session=new_session,
        )

    def report(self) -> dict[str, Any]:
        data = json.loads((self.root / ".as-test" / "report.json").read_text())
        assert isinstance(data, dict)
        return data

    def verdicts(self) -> dict[tuple[str, str], str]:
        """Each spec's verdict in report.json, by (spec id, mode)."""
        return {(e["spec_id"], e["mode"]): e["verdict"] for e in self.report()["specs"]}

    def spec_report(self, spec: str, mode: str) -> dict[str, Any]:
        for entry in self.report()["specs"]:
            if entry["file"] == spec and entry["mode"] == mode:
                assert isinstance(entry, dict)
                return entry
        raise AssertionError(f"{spec} [{mode}] is not in report.json")


def _doit_environment(extra: dict[str, str] | None) -> dict[str, str]:
    # Colour settings would change the output the tests read, and BROWSER would choose the web
    # target's browser: a developer's own must not leak in.
    ambient = {"FORCE_COLOR", "NO_COLOR", "BROWSER"}
    environment = {k: v for k, v in os.environ.items() if k not in ambient}
    environment.update(extra or {})
    return environment


_unavailable: dict[str, str] = {}


def require_toolchain(toolchain: Toolchain) -> None:
    """Install the toolchain once per session; skip its half with one reason where it cannot be
    had, except under CI, which must run both halves."""
    if toolchain.as_test not in _unavailable:
        try:
            ensure_installed(toolchain)
            _unavailable[toolchain.as_test] = ""
        except ToolchainUnavailable as exc:
            _unavailable[toolchain.as_test] = str(exc)
    reason = _unavailable[toolchain.as_test]
    if not reason:
        return
    if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
        pytest.fail(f"{toolchain.id} is required under CI: {reason}", pytrace=False)
    pytest.skip(f"{toolchain.id} is not available here: {reason}")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Every test that uses a fixture project runs once per as-test toolchain; a module or test
    marked ``@pytest.mark.toolchains("1.0.7")`` narrows that (for tests of our own machinery
    whose outcome no as-test version can change)."""
    if "toolchain" not in metafunc.fixturenames:
        return
    marker = metafunc.definition.get_closest_marker("toolchains")
    chosen = [BY_VERSION[v] for v in marker.args] if marker else list(TOOLCHAINS)
    metafunc.parametrize(
        "toolchain", chosen, indirect=True, ids=[t.id for t in chosen], scope="session"
    )


@pytest.fixture(scope="session")
def toolchain(request: pytest.FixtureRequest) -> Toolchain:
    chosen = getattr(request, "param", AS_TEST_1_0)
    assert isinstance(chosen, Toolchain)
    require_toolchain(chosen)
    return chosen


def copy_project(name: str, destination: Path, toolchain: Toolchain = AS_TEST_1_0) -> Project:
    require_toolchain(toolchain)
    root = destination / name
    shutil.copytree(FIXTURES / name, root)
    (root / "node_modules").symlink_to(toolchain.node_modules)
    if not (root / "dodo.py").exists():  # a fixture pipeline brings its own
        (root / "dodo.py").write_text(DODO)
    return Project(root)


def passing_tests_line(toolchain: Toolchain, modes: int = 2) -> str:
    """The passing fixture's totals line over ``modes`` modes. Its skips.spec.ts has two
    ``xtest``/``xit`` blocks: skipped tests under as-test 1.0.x, skipped suites (and no tests)
    from 1.4.0 on, as the agreement tests check against each version's own CLI."""
    skipped = 0 if toolchain.is_1_8 else 2 * modes
    return f"tests: {12 * modes} passed, 0 failed, {skipped} skipped"


def clone_project(project: Project, destination: Path) -> Project:
    """A copy that keeps mtimes and doit's state, so it is as up to date as the original."""
    root = destination / project.root.name
    shutil.copytree(project.root, root, symlinks=True, copy_function=shutil.copy2)
    return Project(root)


def edit_every_spec(project: Project) -> None:
    """One more passing test at the end of each spec's last block: every wasm changes."""
    added = '  test("edited", () => {\n    expect(1).toBe(1);\n  });\n});\n'
    for spec in (project.root / "assembly/__tests__").rglob("*.spec.ts"):
        text = spec.read_text().rstrip()
        assert text.endswith("});")
        spec.write_text(text.removesuffix("});") + added)


@pytest.fixture
def fresh_project(tmp_path: Path, toolchain: Toolchain) -> Callable[[str], Project]:
    def make(name: str) -> Project:
        return copy_project(name, tmp_path, toolchain)

    return make


def shared_temp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This test run's temporary folder that all its parallel workers (pytest-xdist) share; pytest
    removes it with the run's other temporary folders, a few runs later."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session")
def stock_runner_scripts(
    tmp_path_factory: pytest.TempPathFactory,
) -> Callable[[Toolchain], Path]:
    """The folder of the runner scripts a toolchain's own `ast init` writes (stock_runners.py)."""
    return lambda toolchain: stock_runners(toolchain, shared_temp(tmp_path_factory))


def built_once(
    name: str,
    toolchain: Toolchain,
    tmp_path_factory: pytest.TempPathFactory,
    env: dict[str, str] | None = None,
) -> tuple[Project, DoitRun]:
    """The fixture project ``name``, built and run once per test run, and a copy of it (with
    doit's state: as up to date as the original) for this worker's tests.

    The parallel workers of one run (pytest-xdist) share the build: the first to ask makes it
    under a file lock, the others wait and copy it, so the build costs one worker, not each. Every
    worker gets a copy, so no worker's tests touch a project another is reading.
    """
    worker_folder = tmp_path_factory.mktemp(f"built-{name}")
    shared = shared_temp(tmp_path_factory) / f"built-{name}-{toolchain.id}"
    record = shared / "run.json"
    with FileLock(f"{shared}.lock"):
        if not record.is_file():
            shutil.rmtree(shared, ignore_errors=True)  # a half-built one of a stopped worker
            shared.mkdir()
            run = copy_project(name, shared, toolchain).doit(env=env)
            record.write_text(json.dumps(dataclasses.asdict(run)))
    run = DoitRun(**json.loads(record.read_text()))
    return clone_project(Project(shared / name), worker_folder), run


@pytest.fixture(scope="session")
def built_passing(
    tmp_path_factory: pytest.TempPathFactory, toolchain: Toolchain
) -> tuple[Project, DoitRun]:
    """The passing fixture, built and run once in both modes."""
    return built_once("passing", toolchain, tmp_path_factory)


@pytest.fixture(scope="session")
def built_failing(
    tmp_path_factory: pytest.TempPathFactory, toolchain: Toolchain
) -> tuple[Project, DoitRun]:
    """The failing fixture, built and run once in both modes, with a short spec timeout."""
    return built_once("failing", toolchain, tmp_path_factory, env={"ASTEST_TIMEOUT": "2"})
