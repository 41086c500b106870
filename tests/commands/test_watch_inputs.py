"""What ``astest --watch`` watches, and which file events count."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from astest_tasks.commands.watch_inputs import ChangeFilter, WatchedInputs, inputs_of_tasks
from astest_tasks.tasks.checks import SnapshotsUnchanged

SNAPSHOT = ".as-test/snapshots/math.spec.snap"


@dataclass
class FakeTask:
    """The parts of a doit ``Task`` the inputs are read from."""

    file_dep: set[str] = field(default_factory=set)
    targets: list[str] = field(default_factory=list)
    uptodate: list[Any] = field(default_factory=list)
    meta: dict[str, Any] | None = None


def kind(name: str) -> dict[str, Any]:
    return {"astest": {"kind": name}}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    for name in ("assembly/__tests__/math.spec.ts", "assembly/lib/math.ts", "as-test.config.json"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x")
    return tmp_path


def test_inputs_are_the_tasks_dependencies_snapshots_runners_and_config(project: Path) -> None:
    runner = FakeTask(targets=[".as-test/runners/default.wasi.py"], meta=kind("runner"))
    build = FakeTask(
        file_dep={"assembly/__tests__/math.spec.ts", "assembly/lib/math.ts"},
        targets=[".as-test/build/wasi/math.wasm", ".as-test/build/wasi/math.build.json"],
        meta=kind("build"),
    )
    run = FakeTask(
        file_dep={".as-test/build/wasi/math.build.json", ".as-test/runners/default.wasi.py"},
        targets=[".as-test/build/wasi/math.result.json"],
        uptodate=[
            (SnapshotsUnchanged(str(project), [".as-test/snapshots/math.spec.snap"]), (), {})
        ],
        meta=kind("run"),
    )
    inputs = inputs_of_tasks([runner, build, run], "as-test.config.json")
    assert sorted(os.path.relpath(path, project) for path in inputs.files) == [
        ".as-test/runners/default.wasi.py",  # the user's to edit, though a task made it
        ".as-test/snapshots/math.spec.snap",
        "as-test.config.json",
        "assembly/__tests__/math.spec.ts",
        "assembly/lib/math.ts",
    ]  # and no output: the build record is a build's target, though a run depends on it
    assert [os.path.relpath(f, project) for f in inputs.folders] == [
        ".",
        ".as-test/runners",
        ".as-test/snapshots",
        "assembly/__tests__",
        "assembly/lib",
    ]


def test_an_event_counts_only_when_the_file_changed_since_it_was_stamped(project: Path) -> None:
    spec, helper = (
        str(project / "assembly/__tests__/math.spec.ts"),
        str(project / "assembly/lib/math.ts"),
    )
    inputs = WatchedInputs(frozenset({spec, helper}))
    changes = ChangeFilter(inputs)
    changes.restamp(inputs, {})
    assert changes.changed([spec, helper]) == []  # touched by an event, unchanged in content
    Path(helper).write_text("export const answer = 42;")
    assert changes.changed([spec, helper]) == [helper]
    Path(spec).unlink()
    assert changes.changed([spec]) == [spec]  # a deleted input counts


def test_an_edit_made_while_a_cycle_ran_counts_after_it(project: Path) -> None:
    spec = str(project / "assembly/__tests__/math.spec.ts")
    inputs = WatchedInputs(frozenset({spec}))
    changes = ChangeFilter(inputs)
    before = inputs.stamps()  # taken as the cycle starts
    Path(spec).write_text("edited while doit was busy")
    changes.restamp(inputs, before)
    assert changes.changed([spec]) == [spec]


def test_new_sources_count_and_outputs_do_not(project: Path) -> None:
    changes = ChangeFilter(WatchedInputs(frozenset()))
    new_spec = str(project / "assembly/__tests__/new.spec.ts")
    assert changes.changed([new_spec]) == [new_spec]
    assert changes.changed([str(project / ".as-test/build/bindings/math.d.ts")]) == []
    assert changes.changed([str(project / "node_modules/as-test/index.ts")]) == []
    assert changes.changed([str(project / ".as-test/build/wasi/math.result.json")]) == []
