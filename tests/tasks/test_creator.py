"""create_tasks asks the installed as-test for its rules: the version warning and try-as."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from astest_tasks.config import toolchain
from astest_tasks.config.git_changes import ChangedFiles
from astest_tasks.core.errors import UserError
from astest_tasks.tasks import creator, project_lock
from astest_tasks.tasks.creator import create_tasks
from astest_tasks.tasks.options import TaskOptions

SPEC = "assembly/__tests__/math.spec.ts"


@pytest.fixture(autouse=True)
def fresh_process_state(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(toolchain, "_warned", set())
    monkeypatch.setattr(project_lock, "_held", {})


def project(root: Path, as_test: str, config: dict[str, object]) -> Path:
    """A project with the packages' manifests (nothing is compiled) and one spec."""
    versions = {
        "as-test": as_test,
        "assemblyscript": "0.28.20",
        "@assemblyscript/wasi-shim": "0.1.0",
    }
    for name, version in versions.items():
        package = root / "node_modules" / name
        package.mkdir(parents=True)
        (package / "package.json").write_text(json.dumps({"name": name, "version": version}))
    (root / SPEC).parent.mkdir(parents=True)
    (root / SPEC).write_text('import { expect } from "as-test";\nexpect(1).toBe(1);\n')
    (root / "as-test.config.json").write_text(json.dumps(config))
    return root


def make(root: Path) -> list[dict[str, object]]:
    return list(create_tasks(root, TaskOptions()))


def test_an_untested_as_test_is_named_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path, "1.9.0", {})
    make(root)
    make(root)
    warnings = [line for line in capsys.readouterr().err.splitlines() if "1.9.0" in line]
    assert warnings == [
        "WARNING: as-test 1.9.0 is newer than the versions astest-tasks is tested with "
        "(1.0.7 to 1.8.0); its rules may differ from what we follow; fix: "
        "`npm install --save-dev as-test@1.8.0` (or 1.0.7)"
    ]


def test_a_tested_as_test_gets_no_version_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make(project(tmp_path, "1.8.0", {}))
    assert "tested with" not in capsys.readouterr().err


def test_the_try_as_feature_needs_the_try_as_package(tmp_path: Path) -> None:
    root = project(tmp_path, "1.8.0", {"features": ["try-as"]})
    with pytest.raises(UserError, match=r"npm package try-as is not installed.*fix: run"):
        make(root)


def test_the_build_task_of_a_1_8_project_carries_its_features(tmp_path: Path) -> None:
    root = project(tmp_path, "1.8.0", {"features": ["simd"]})
    build = next(task for task in make(root) if str(task["name"]).startswith("build:"))
    _action, (request,) = build["actions"][0]  # type: ignore[index]
    assert request["features"] == ("simd",)
    assert request["build_env"]["AS_TEST_MODE_NAME"] == "default"


CALC = "assembly/lib/calc.ts"
TEXT_SPEC = "assembly/__tests__/text.spec.ts"


def changed_project(root: Path) -> Path:
    """Two specs: math imports lib/calc, text imports nothing local; a transform is named by
    the build arguments."""
    project(
        root,
        "1.8.0",
        {"buildOptions": {"target": "wasi", "args": ["--transform ./transform/index.js"]}},
    )
    (root / SPEC).write_text('import { add } from "../lib/calc";\nexpect(add(1, 1)).toBe(2);\n')
    (root / CALC).parent.mkdir(parents=True)
    (root / CALC).write_text("export function add(a: i32, b: i32): i32 { return a + b; }\n")
    (root / TEXT_SPEC).write_text('expect("a".length).toBe(1);\n')
    (root / "transform").mkdir()
    (root / "transform" / "index.js").write_text("export default class Transform {}\n")
    return root


def built_with_changes(
    root: Path, monkeypatch: pytest.MonkeyPatch, changed: set[str]
) -> tuple[list[str], str]:
    """The specs that get a build task when git reports ``changed``, and the summary's note."""

    def report(project_root: Path, ref: str) -> ChangedFiles:
        assert project_root == root and ref == "origin/main"
        return ChangedFiles(ref=ref, paths=frozenset(changed))

    monkeypatch.setattr(creator, "changed_files", report)
    made = list(create_tasks(root, TaskOptions(changed="origin/main")))
    names = [str(task["name"]) for task in made]
    builds = sorted(name.rsplit(":", 1)[-1] for name in names if name.startswith("build:"))
    summary = next(task for task in made if task["name"] == "summary")
    _action, (plan, _session) = summary["actions"][0]
    return builds, str(plan["note"])


@pytest.mark.parametrize(
    ("changed", "expected"),
    [
        ({CALC}, ["math"]),
        ({TEXT_SPEC}, ["text"]),
        ({".as-test/snapshots/math.spec.snap"}, ["math"]),
        ({".as-test/runners/default.wasi.py"}, ["math", "text"]),
        ({"transform/index.js"}, ["math", "text"]),
        ({"as-test.config.json"}, ["math", "text"]),
        ({"README.md"}, []),
    ],
)
def test_changed_creates_tasks_only_for_the_specs_a_changed_file_affects(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, changed: set[str], expected: list[str]
) -> None:
    root = changed_project(tmp_path)
    built, note = built_with_changes(root, monkeypatch, changed)
    assert built == expected
    if not expected:
        assert note.startswith("no spec changed since origin/main")
    else:
        assert note.startswith("--changed=origin/main: ")


def _task(tasks: list[dict[str, object]], prefix: str) -> dict[str, object]:
    return next(task for task in tasks if str(task["name"]).startswith(prefix))


def test_feature_switches_reach_the_build_and_try_as_still_needs_its_package(
    tmp_path: Path,
) -> None:
    root = project(tmp_path, "1.8.0", {"features": ["simd"]})
    tasks = list(create_tasks(root, TaskOptions(enable="threads", disable="simd")))
    _action, (request,) = _task(tasks, "build:")["actions"][0]  # type: ignore[index]
    assert request["features"] == ("threads",)
    with pytest.raises(UserError, match=r"npm package try-as is not installed"):
        list(create_tasks(root, TaskOptions(enable="try-as")))


def test_a_no_snapshot_run_has_a_key_of_its_own_and_a_plain_run_keeps_its_key(
    tmp_path: Path,
) -> None:
    root = project(tmp_path, "1.8.0", {})
    plain = _task(make(root), "run:")
    unchecked = _task(list(create_tasks(root, TaskOptions(no_snapshot=True))), "run:")
    plain_key = plain["uptodate"][0].config  # type: ignore[index]
    unchecked_key = unchecked["uptodate"][0].config  # type: ignore[index]
    assert "snapshots" not in plain_key
    assert unchecked_key == {**plain_key, "snapshots": "not checked (--no-snapshot)"}
    _action, (request, _session) = unchecked["actions"][0]  # type: ignore[index]
    assert request["no_snapshot"] is True


def test_browser_wins_over_the_browser_variable_and_the_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = {"buildOptions": {"target": "web"}, "runOptions": {"runtime": {"browser": "a"}}}
    root = project(tmp_path, "1.8.0", config)
    monkeypatch.setenv("BROWSER", str(tmp_path / "from-the-variable"))
    chosen = str(tmp_path / "from-the-option")
    tasks = list(create_tasks(root, TaskOptions(browser=chosen)))
    _action, (request, _session) = _task(tasks, "run:")["actions"][0]  # type: ignore[index]
    assert request["browser"] == chosen
