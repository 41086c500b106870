"""Remote keys: made of exactly what the local up-to-date check tracks (cache_keys.py), portable
between clones, and changed by every one of those inputs (a wrong hit is worse than no cache)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from astest_tasks.config.as_test_rules import AsTestRules
from astest_tasks.config.discovery import Spec
from astest_tasks.config.project_config import load_config
from astest_tasks.config.toolchain import Package, Toolchain
from astest_tasks.plan.cache_keys import build_key, run_key
from astest_tasks.plan.options import TaskOptions
from astest_tasks.remote import task_keys
from astest_tasks.remote.task_keys import (
    MISSING,
    NotPortable,
    RemoteKeyInputs,
    RemoteTask,
    portable_digests,
    portable_name,
)
from astest_tasks.run.default_runtime import DefaultRuntime
from astest_tasks.tasks.checks import InputsChanged, SnapshotsUnchanged
from astest_tasks.tasks.creator import create_tasks
from tests.conftest import write_project

URL = "http://127.0.0.1:9/astest"  # never asked: these tests only compute keys
SPEC = "assembly/__tests__/math.spec.ts"
CONFIG = {"input": ["assembly/__tests__/*.spec.ts"], "buildOptions": {"target": "wasi"}}
FILES = {
    SPEC: (
        'import { expect } from "as-test";\n'
        'import { add } from "../lib/math";\n'
        'import { later } from "../lib/generated";\n'  # made by another task: pending
        'import { helper } from "helper-pkg";\n'
        "expect(add(1, 2)).toBe(3);\n"
    ),
    "assembly/lib/math.ts": "export function add(a: i32, b: i32): i32 { return a + b; }\n",
    "asconfig.json": json.dumps({"extends": "./configs/base.json"}),
    "configs/base.json": json.dumps({"options": {}}),
    ".as-test/snapshots/math.spec.snap": "{}\n",
}

# Every kind of file a build or run task tracks, by how to recognise its portable name. A file
# of a task that none of these names fails test_every_tracked_file_is_a_known_input: name it
# here, so the test below proves it changes the remote key too.
BUILD_FILES = {
    "spec": SPEC,
    "local import": "assembly/lib/math.ts",
    "asconfig": "asconfig.json",
    "asconfig it extends": "configs/base.json",
    "assemblyscript manifest": "node_modules/assemblyscript/package.json",
    "as-test manifest": "node_modules/as-test/package.json",
    "wasi-shim manifest": "node_modules/@assemblyscript/wasi-shim/package.json",
    "wasi-shim asconfig": "node_modules/@assemblyscript/wasi-shim/asconfig.json",
    "imported package manifest": "node_modules/helper-pkg/package.json",
}
PENDING_IMPORTS = "assembly/lib/generated"  # its candidates (.ts, /index.ts) do not exist yet
RUN_FILES = {
    "build record": ".as-test/build/default/math.build.json",
    "runner": ".as-test/runners/default.wasi.py",
    "snapshot file": ".as-test/snapshots/math.spec.snap",
}


def make_project(root: Path) -> Path:
    write_project(root, CONFIG, files=FILES, packages={"helper-pkg": "1.0.0"})
    shim = root / "node_modules" / "@assemblyscript" / "wasi-shim"
    (shim / "asconfig.json").write_text("{}")
    for relative in RUN_FILES.values():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text("as left by the build and the runner task\n")
    return root


def remote_tasks(root: Path) -> dict[str, tuple[RemoteTask, dict[str, Any]]]:
    """The remote part of each build and run task of the project, by task kind."""
    found: dict[str, tuple[RemoteTask, dict[str, Any]]] = {}
    for task in create_tasks(root, TaskOptions.with_values(remote_cache=URL)):
        kind = str(task["name"]).split(":")[0]
        if kind in ("build", "run"):
            remote = task["actions"][0][1][-1]  # the last argument of the action
            assert isinstance(remote, RemoteTask)
            found[kind] = (remote, task)
    assert set(found) == {"build", "run"}
    return found


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = make_project(tmp_path / "one" / "project")
    monkeypatch.chdir(root)
    return root


def test_a_remote_key_is_made_of_the_local_key_and_every_file_doit_tracks(project: Path) -> None:
    for kind, (remote, task) in remote_tasks(project).items():
        inputs_changed = next(c for c in task["uptodate"] if isinstance(c, InputsChanged))
        assert remote.key.kind == kind
        assert dict(remote.key.local_key) == inputs_changed.config
        remote_files = {os.path.abspath(project / path) for path in remote.key.files}
        tracked = {os.path.abspath(path) for path in task["file_dep"]}
        for check in task["uptodate"]:
            if isinstance(check, SnapshotsUnchanged):
                tracked |= {os.path.abspath(project / path) for path in check.paths}
        assert tracked <= remote_files, f"{kind}: tracked locally only: {tracked - remote_files}"


def test_every_tracked_file_is_a_known_input(project: Path) -> None:
    known = {
        "build": {*BUILD_FILES.values()},
        "run": {*RUN_FILES.values()},
    }
    for kind, (remote, _) in remote_tasks(project).items():
        names = {portable_name(project, path) for path in remote.key.files}
        unknown = {
            name for name in names - known[kind] if not name.startswith(PENDING_IMPORTS + ".")
        }
        unknown -= {name for name in names if name.startswith(PENDING_IMPORTS + "/")}
        assert not unknown, f"name these {kind} inputs in this test's lists: {unknown}"
        assert known[kind] <= names, f"{kind} no longer tracks {known[kind] - names}"


@pytest.mark.parametrize(
    ("kind", "relative"),
    [("build", path) for path in BUILD_FILES.values()]
    + [("run", path) for path in RUN_FILES.values()],
    ids=[*BUILD_FILES, *RUN_FILES],
)
def test_every_tracked_file_changes_the_remote_key(project: Path, kind: str, relative: str) -> None:
    remote, _ = remote_tasks(project)[kind]
    before = remote.key.key(project)
    path = project / relative
    path.write_text(path.read_text() + "\n// edited\n")
    assert remote.key.key(project) != before
    path.unlink()
    assert remote.key.key(project) not in (before, None)


def test_a_pending_import_that_appears_changes_the_build_key(project: Path) -> None:
    remote, _ = remote_tasks(project)["build"]
    before = remote.key.key(project)
    (project / f"{PENDING_IMPORTS}.ts").write_text("export const later = 1;\n")
    assert remote.key.key(project) != before


def _sample_mode() -> Any:
    root = Path("/nonexistent/project")
    return load_config(Path("as-test.config.json"), root, AsTestRules.parse("1.8.0")).base


_PACKAGE = Package(name="x", root=Path("/nonexistent/x"), version="1")
_TOOLS = Toolchain(node="node", assemblyscript=_PACKAGE, as_test=_PACKAGE, wasi_shim=_PACKAGE)
_SPEC = Spec(path=SPEC, spec_id="math")
SAMPLE_KEYS = {
    "build": build_key(_sample_mode(), _SPEC, _TOOLS),
    "run": run_key(_sample_mode(), _SPEC, (1.0, 2.0, 3.0), DefaultRuntime("wasi"), "1.8.0"),
}
# What run_inputs (spec_tasks.py) adds to run_key's dictionary on some runs.
RUN_EXTRAS = {"snapshots": "not checked (--no-snapshot)", "coverage": "detailed points"}


@pytest.mark.parametrize(
    ("kind", "name"),
    [(kind, name) for kind, key in SAMPLE_KEYS.items() for name in sorted(key)]
    + [("run", name) for name in sorted(RUN_EXTRAS)],
)
def test_every_entry_of_the_local_key_changes_the_remote_key(
    tmp_path: Path, kind: str, name: str
) -> None:
    local = {**SAMPLE_KEYS[kind], **(RUN_EXTRAS if kind == "run" else {})}
    original = RemoteKeyInputs(kind, local, ()).key(tmp_path)
    changed = {**local, name: ["changed", local[name]]}
    assert RemoteKeyInputs(kind, changed, ()).key(tmp_path) != original
    removed = {key: value for key, value in local.items() if key != name}
    assert RemoteKeyInputs(kind, removed, ()).key(tmp_path) != original


@pytest.mark.parametrize("part", ["wasmtime", "python", "os", "processor"])
def test_a_run_stored_on_another_kind_of_machine_is_a_miss(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, part: str
) -> None:
    """A pass stored under another wasmtime (its stack limits, its default features) or on
    another system is not a result this machine is sure to give; a build is the same bytes."""
    local = {**SAMPLE_KEYS["run"], **RUN_EXTRAS}
    here = task_keys.machine_part()
    original = RemoteKeyInputs("run", local, ()).key(tmp_path)
    build = RemoteKeyInputs("build", SAMPLE_KEYS["build"], ()).key(tmp_path)
    monkeypatch.setattr(task_keys, "machine_part", lambda: {**here, part: here[part] + "-other"})
    assert RemoteKeyInputs("run", local, ()).key(tmp_path) != original
    assert RemoteKeyInputs("build", SAMPLE_KEYS["build"], ()).key(tmp_path) == build


def test_two_clones_at_different_paths_compute_the_same_keys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    keys = []
    first = make_project(tmp_path / "alice" / "work" / "project")
    second = tmp_path / "bob" / "project"
    shutil.copytree(first, second)
    for root in (first, second):
        monkeypatch.chdir(root)
        keys.append({kind: r.key.key(root) for kind, (r, _) in remote_tasks(root).items()})
    assert keys[0] == keys[1]
    assert keys[0]["build"] != keys[0]["run"]


def test_node_modules_outside_the_project_are_named_from_node_modules_on(tmp_path: Path) -> None:
    shared = tmp_path / "elsewhere" / "node_modules" / "as-test"
    shared.mkdir(parents=True)
    (shared / "package.json").write_text('{"version": "1.8.0"}')
    root = tmp_path / "project"
    root.mkdir()
    (root / "node_modules").symlink_to(shared.parent)
    linked = root / "node_modules" / "as-test" / "package.json"
    assert portable_name(root, str(linked)) == "node_modules/as-test/package.json"
    assert portable_name(root, str(linked.resolve())) == "node_modules/as-test/package.json"
    assert portable_name(root, "assembly/a.ts") == "assembly/a.ts"
    assert portable_name(root, str(root / "assembly" / "a.ts")) == "assembly/a.ts"
    with pytest.raises(NotPortable):
        portable_name(root, str(tmp_path / "stray.ts"))
    digests = portable_digests(root, [str(linked), "missing.ts"])
    assert digests["missing.ts"] == MISSING
    assert len(digests["node_modules/as-test/package.json"]) == 64
