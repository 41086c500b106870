"""make_plan: what a doit call will do, decided from the options and the project alone.

No doit and no Node.js here: the project holds only the packages' manifests.
"""

from __future__ import annotations

import ast
import os
import sys
from pathlib import Path

import pytest

from astest_tasks.build.compiler import BuildRecord
from astest_tasks.config import toolchain
from astest_tasks.config.pipeline import Pipeline
from astest_tasks.config.shards import Shard
from astest_tasks.core.errors import UserError
from astest_tasks.model.results import Status, write_result
from astest_tasks.model.snapshot_update import SnapshotUpdate
from astest_tasks.plan.command_line import CommandLine
from astest_tasks.plan.options import TaskOptions
from astest_tasks.plan.planning import Plan, PlannedSpec, make_plan
from tests.conftest import make_spec_result, write_project

GEOMETRY = "assembly/__tests__/geometry.spec.ts"
COUNTER = "assembly/__tests__/counter.spec.ts"
PLANNING_MODULES = ("planning", "plan_specs", "run_settings", "command_line", "doit_argv")


@pytest.fixture(autouse=True)
def fresh_warnings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(toolchain, "_warned", set())


def test_every_spec_runs_in_every_mode_spec_by_spec(tmp_path: Path) -> None:
    plan = make_plan(write_project(tmp_path), TaskOptions())
    pairs = [(planned.spec.path, planned.mode.name, planned.place) for planned in plan.specs]
    # Each spec in all its modes before the next: a serial doit meets each run's next build.
    assert pairs == [
        (COUNTER, "wasi", 1),
        (COUNTER, "bindings", 2),
        (GEOMETRY, "wasi", 3),
        (GEOMETRY, "bindings", 4),
    ]
    assert {name: [s.path for s in specs] for name, specs in plan.specs_by_mode.items()} == {
        "wasi": [COUNTER, GEOMETRY],
        "bindings": [COUNTER, GEOMETRY],
    }
    assert plan.suite_pairs == 4 and plan.note == ""


def test_the_options_narrow_the_plan_and_are_read_once(tmp_path: Path) -> None:
    options = TaskOptions.from_values(
        {"mode": "wasi", "spec": "geometry", "timeout": "5,wasi=7", "update_snapshots": "create"}
    )
    plan = make_plan(write_project(tmp_path), options)
    assert [(p.spec.path, p.mode.name) for p in plan.specs] == [(GEOMETRY, "wasi")]
    limits = plan.settings.limits.of_mode("wasi")
    assert (limits.timeout_s, limits.memory_mib, limits.output_mib) == (7.0, 1024.0, 64.0)
    assert plan.settings.switches.update is SnapshotUpdate.CREATE
    assert plan.settings.as_test.version == "1.8.0"
    assert plan.settings.as_test is plan.as_test  # one record, made once


def test_a_shard_keeps_its_pairs_and_counts_the_whole_suite(tmp_path: Path) -> None:
    root = write_project(tmp_path)
    first = make_plan(root, TaskOptions(), Pipeline().sharded(Shard(1, 2), ""))
    second = make_plan(root, TaskOptions(), Pipeline().sharded(Shard(2, 2), ""))
    pairs = {(p.mode.name, p.spec.path) for p in (*first.specs, *second.specs)}
    assert len(first.specs) + len(second.specs) == 4 and len(pairs) == 4
    assert first.suite_pairs == second.suite_pairs == 4


def test_fuzz_tasks_follow_the_command_line_given(tmp_path: Path) -> None:
    root = write_project(tmp_path)
    assert not make_plan(root, TaskOptions(), command_line=CommandLine("doit", ())).with_fuzz_tasks
    named = CommandLine("doit", ("astest:fuzz",))
    assert make_plan(root, TaskOptions(), command_line=named).with_fuzz_tasks
    listing = CommandLine("doit", ("list",))
    assert make_plan(root, TaskOptions(), command_line=listing).with_fuzz_tasks


def test_warnings_reach_the_caller_before_an_error(tmp_path: Path) -> None:
    root = write_project(tmp_path, {"modes": {"web": {"default": False}}}, as_test="1.9.0")
    heard: list[str] = []
    with pytest.raises(UserError, match='every mode has "default": false'):
        make_plan(root, TaskOptions(), warn=heard.append)
    assert len(heard) == 1 and "as-test 1.9.0 is newer" in heard[0]


def test_planning_changes_nothing_in_the_project(tmp_path: Path) -> None:
    root = write_project(tmp_path)
    before = sorted(str(path.relative_to(root)) for path in root.rglob("*"))
    plan = make_plan(root, TaskOptions())
    assert sorted(str(path.relative_to(root)) for path in root.rglob("*")) == before
    assert not plan.lock_path.exists(), "the lock is the emitter's, taken after planning"


@pytest.mark.parametrize("module", PLANNING_MODULES)
def test_planning_knows_no_doit(module: str) -> None:
    path = Path(sys.modules["astest_tasks.plan.planning"].__file__ or "").parent / f"{module}.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imported = {
        name
        for node in ast.walk(tree)
        for name in (
            [alias.name for alias in node.names]
            if isinstance(node, ast.Import)
            else [node.module or ""]
            if isinstance(node, ast.ImportFrom)
            else []
        )
    }
    assert not {name for name in imported if name == "doit" or name.startswith("doit.")}


def _store(root: Path, planned: PlannedSpec, status: Status | None, *, built: bool = True) -> None:
    """The records a run of ``planned`` leaves: its build record, and its result unless None."""
    record = BuildRecord(
        status="ok" if built else "failed",
        spec=planned.spec.path,
        mode=planned.mode.name,
        target=planned.mode.target,
        wasm=planned.files.wasm,
        wasm_sha256="",
        command="node asc.js",
        exit_code=0 if built else 1,
        diagnostics="" if built else "ERROR TS2322",
    )
    (root / planned.files.build_record).parent.mkdir(parents=True, exist_ok=True)
    (root / planned.files.build_record).write_text(record.to_json())
    if status is not None:
        result = make_spec_result(
            planned.spec.spec_id, status, spec=planned.spec.path, mode=planned.mode.name
        )
        write_result(root / planned.files.result, result)


def _pairs(plan: Plan) -> set[tuple[str, str]]:
    return {(p.mode.name, p.spec.path) for p in plan.specs}


LAST_FAILED = TaskOptions.from_values({"last_failed": True})


def test_last_failed_keeps_the_pairs_whose_records_did_not_pass(tmp_path: Path) -> None:
    root = write_project(tmp_path)
    counter_wasi, counter_bindings, geometry_wasi, geometry_bindings = make_plan(
        root, TaskOptions()
    ).specs
    _store(root, counter_wasi, Status.PASSED)
    _store(root, counter_bindings, Status.FAILED)
    _store(root, geometry_wasi, None, built=False)  # did not build, and never ran after
    _store(root, geometry_bindings, Status.SKIPPED)
    plan = make_plan(root, LAST_FAILED)
    assert _pairs(plan) == {("bindings", COUNTER), ("wasi", GEOMETRY)}
    assert plan.note == (
        "--last-failed: 2 of 4 spec runs failed, crashed or did not build last time: only they run"
    )
    # Without the option, the same records change nothing.
    assert len(make_plan(root, TaskOptions()).specs) == 4


def test_last_failed_distrusts_records_it_cannot_read(tmp_path: Path) -> None:
    root = write_project(tmp_path)
    counter_wasi, counter_bindings, geometry_wasi, geometry_bindings = make_plan(
        root, TaskOptions()
    ).specs
    for planned in (counter_wasi, counter_bindings, geometry_wasi, geometry_bindings):
        _store(root, planned, Status.PASSED)
    (root / counter_wasi.files.result).write_text('{"format": 3, "status": "passed"')  # cut short
    (root / geometry_bindings.files.build_record).write_text("not json")
    (root / geometry_wasi.files.result).unlink()
    os.mkfifo(root / geometry_wasi.files.result)  # never opened: it would block the planning
    plan = make_plan(root, LAST_FAILED)
    assert _pairs(plan) == {("wasi", COUNTER), ("wasi", GEOMETRY), ("bindings", GEOMETRY)}


def test_last_failed_runs_everything_when_nothing_failed(tmp_path: Path) -> None:
    root = write_project(tmp_path)
    never = make_plan(root, LAST_FAILED)
    assert len(never.specs) == 4
    assert never.note == "--last-failed: no earlier results: running all 4"
    for planned in never.specs:
        _store(root, planned, Status.PASSED)
    passed = make_plan(root, LAST_FAILED)
    assert len(passed.specs) == 4
    assert passed.note == "--last-failed: no spec run failed last time: running all 4"


def test_last_failed_narrows_the_other_selections(tmp_path: Path) -> None:
    root = write_project(tmp_path)
    for planned in make_plan(root, TaskOptions()).specs:
        failed = planned.spec.path == COUNTER and planned.mode.name == "wasi"
        _store(root, planned, Status.FAILED if failed else Status.PASSED)
    # --spec geometry: none of its pairs failed, so both run (as pytest --lf with a path).
    geometry = TaskOptions.from_values({"last_failed": True, "spec": "geometry"})
    assert _pairs(make_plan(root, geometry)) == {("wasi", GEOMETRY), ("bindings", GEOMETRY)}
    # --mode bindings: the failure is wasi's, so every bindings pair runs.
    bindings = TaskOptions.from_values({"last_failed": True, "mode": "bindings"})
    assert _pairs(make_plan(root, bindings)) == {("bindings", COUNTER), ("bindings", GEOMETRY)}
    # A shard is chosen first: the shard holding the failure runs it alone.
    shards = [
        make_plan(root, LAST_FAILED, Pipeline().sharded(Shard(index, 2), "")) for index in (1, 2)
    ]
    holding = [plan for plan in shards if ("wasi", COUNTER) in _pairs(plan)]
    assert len(holding) == 1 and _pairs(holding[0]) == {("wasi", COUNTER)}
    assert all(plan.suite_pairs == 4 for plan in shards)
    # Its report says so, for the merge: fewer than its part (not `pairs` in all), and not the
    # whole suite's times; the other shard kept its part but still ran a narrowed selection.
    part = holding[0].shard
    assert part is not None and not part.kept_all and part.narrowed
    whole = make_plan(root, TaskOptions(), Pipeline().sharded(Shard(1, 2), "")).shard
    assert whole is not None and whole.kept_all and not whole.narrowed
