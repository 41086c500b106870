"""The product's central promise, input by input: every change that can alter a spec's result
rebuilds or re-runs exactly the specs it affects, end to end through doit.

Each case starts from a fully built and cached copy of the passing fixture (two modes, five specs),
changes one input, and checks which build and run tasks doit executes. The spec, helper, snapshot
and runner cases live in test_incremental.py and test_runners.py.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.integration.conftest import DoitRun, Project, clone_project

# Which tasks an input change re-runs is decided by our cache keys and doit, whatever the
# as-test version (the as-test version case upgrades the installed package's version): one
# toolchain, the one real projects use, covers it.
pytestmark = [pytest.mark.integration, pytest.mark.toolchains("1.8.0")]

SPECS = ("geometry", "left/shared", "right/shared", "skips", "snap")


def tasks(kind: str, modes: tuple[str, ...] = ("wasi", "bindings")) -> set[str]:
    return {f"astest:{kind}:{mode}:{spec}" for mode in modes for spec in SPECS}


def executed(run: DoitRun, kind: str) -> set[str]:
    return {name for name in run.executed if name.startswith(f"astest:{kind}:")}


def edit_config(project: Project, change: Callable[[dict[str, object]], None]) -> None:
    path = project.root / "as-test.config.json"
    config = json.loads(path.read_text())
    change(config)
    path.write_text(json.dumps(config))


def mode(config: dict[str, object], name: str) -> dict[str, object]:
    modes = config["modes"]
    assert isinstance(modes, dict)
    chosen = modes[name]
    assert isinstance(chosen, dict)
    return chosen


def local_node_modules_with_version(project: Project, package: str, version: str) -> None:
    """The project's own node_modules: the shared packages, but ``package`` claims ``version``.

    The package's files are linked one by one, so it compiles exactly as before; only its
    manifest differs, as after an upgrade.
    """
    local = project.root / "node_modules"
    shared = local.resolve()  # the toolchain's node_modules the project links to
    local.unlink()
    local.mkdir()
    for entry in shared.iterdir():
        if entry.name != package and entry.name != ".package-lock.json":
            (local / entry.name).symlink_to(entry)
    (local / ".bin").unlink(missing_ok=True)
    shutil.copytree(shared / ".bin", local / ".bin", symlinks=True)
    copy = local / package
    copy.mkdir()
    for entry in (shared / package).iterdir():
        if entry.name != "package.json":
            (copy / entry.name).symlink_to(entry)
    manifest = json.loads((shared / package / "package.json").read_text())
    manifest["version"] = version
    (copy / "package.json").write_text(json.dumps(manifest, indent=2))


def build_args(project: Project) -> None:
    edit_config(
        project,
        lambda c: mode(c, "wasi").update(
            {"buildOptions": {"target": "wasi", "args": ["--noAssert"]}}
        ),
    )


def build_env(project: Project) -> None:
    edit_config(
        project,
        lambda c: mode(c, "bindings").update(
            {"buildOptions": {"target": "bindings", "env": {"FEATURE": "on"}}}
        ),
    )


def run_env(project: Project) -> None:
    edit_config(
        project, lambda c: mode(c, "wasi").update({"runOptions": {"env": {"GREETING": "hi"}}})
    )


def target(project: Project) -> None:
    edit_config(project, lambda c: mode(c, "bindings").update({"buildOptions": {"target": "wasi"}}))


def implicit_asconfig(project: Project) -> None:
    (project.root / "asconfig.json").write_text('{"options": {"noAssert": false}}\n')


def compiler_version(project: Project) -> None:
    local_node_modules_with_version(project, "assemblyscript", "0.28.21")  # an upgrade of 0.28.20


def as_test_version(project: Project) -> None:
    local_node_modules_with_version(project, "as-test", "1.8.1")  # an upgrade of 1.8.0


CASES: list[tuple[str, Callable[[Project], None], set[str], set[str], dict[str, str]]] = [
    ("build args", build_args, tasks("build", ("wasi",)), set(), {}),
    ("build env", build_env, tasks("build", ("bindings",)), set(), {}),
    ("runtime env", run_env, set(), tasks("run", ("wasi",)), {}),
    ("target", target, tasks("build", ("bindings",)), tasks("run", ("bindings",)), {}),
    ("implicit asconfig.json", implicit_asconfig, tasks("build"), set(), {}),
    ("compiler version", compiler_version, tasks("build"), set(), {}),
    # Its run-side rules (counting, snapshot keys) change with it: every spec runs again too.
    ("as-test version", as_test_version, tasks("build"), tasks("run"), {}),
    ("timeout", lambda project: None, set(), tasks("run"), {"ASTEST_TIMEOUT": "9"}),
]


@pytest.mark.parametrize(
    ("change", "expected_builds", "expected_runs", "env"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_each_input_rebuilds_or_reruns_exactly_what_it_affects(
    built_passing: tuple[Project, DoitRun],
    tmp_path: Path,
    change: Callable[[Project], None],
    expected_builds: set[str],
    expected_runs: set[str],
    env: dict[str, str],
) -> None:
    project = clone_project(built_passing[0], tmp_path)
    change(project)
    run = project.doit(env=env)
    assert run.exit_code == 0, run.stdout + run.stderr
    assert executed(run, "build") == expected_builds
    # A rebuild re-runs a spec only when its wasm changed; a run-side change re-runs it anyway.
    assert expected_runs <= executed(run, "run")
    if not expected_builds:
        assert executed(run, "run") == expected_runs
    again = project.doit(env=env)
    assert executed(again, "build") == executed(again, "run") == set(), "then all cached"


def test_a_new_astest_tasks_version_rebuilds_and_reruns_everything(
    built_passing: tuple[Project, DoitRun], tmp_path: Path
) -> None:
    project = clone_project(built_passing[0], tmp_path)
    # Loaded by Python at start-up, before doit imports the rest of our modules: the package now
    # says another version (core/version.py's literal), as after `pip install -U astest-tasks`.
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(
        "import astest_tasks.core.version as version\nversion.__version__ = '99.0.0'\n"
    )
    run = project.doit(env={"PYTHONPATH": str(site)})
    assert run.exit_code == 0, run.stdout + run.stderr
    assert executed(run, "build") == tasks("build")
    assert executed(run, "run") == tasks("run")
