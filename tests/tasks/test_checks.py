"""The uptodate checks say, in words, why a task must run (what `doit info` prints)."""

from __future__ import annotations

import inspect
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

from doit.dependency import Dependency, JsonDB
from doit.task import Task

from astest_tasks.build.pending_imports import PendingImports
from astest_tasks.fuzz.results import FuzzResult, write_fuzz_result
from astest_tasks.model.results import SpecIdentity, Stage, failure_result, write_result
from astest_tasks.run.limit_messages import LimitedRun, timed_out
from astest_tasks.tasks.checks import (
    Always,
    BuildUpToDate,
    InputsChanged,
    LastFuzzPassed,
    LastResultPassed,
    NotHandedOver,
    SnapshotsUnchanged,
    TargetsAreFiles,
)
from tests.fifo_guard import fifo_symlink


class FakeTask:
    def __init__(self) -> None:
        self.value_savers: list[Any] = []


def saved_values(check: InputsChanged) -> dict[str, Any]:
    """What doit keeps after a successful run: every value saver's output."""
    task = FakeTask()
    check.configure_task(task)
    check(task, {})
    values: dict[str, Any] = {}
    for saver in task.value_savers:
        values.update(saver())
    return values


def test_inputs_changed_names_each_changed_input() -> None:
    before = InputsChanged("run", {"limits": [10.0], "env": {}, "mode": "wasi"})
    values = saved_values(before)
    same = InputsChanged("run", {"limits": [10.0], "env": {}, "mode": "wasi"})
    assert same(FakeTask(), values) is True
    changed = InputsChanged("run", {"limits": [20.0], "env": {"A": "1"}, "mode": "wasi"})
    assert changed(FakeTask(), values) is False
    assert str(changed) == 'the run inputs changed: env {} -> {"A": "1"}; limits [10.0] -> [20.0]'
    first = InputsChanged("build", {"args": []})
    assert first(FakeTask(), {}) is False
    assert str(first) == "the build inputs changed: no earlier successful run"


def test_last_result_passed_tells_a_failure_from_a_missing_file(tmp_path: Path) -> None:
    check = LastResultPassed(str(tmp_path), "r.json")
    assert check() is False and str(check) == "there is no readable result at r.json"
    who = SpecIdentity("a.spec.ts", "a", "wasi", "wasi")
    write_result(tmp_path / "r.json", failure_result(who, "s", Stage.BUILD, "build failed", "", ""))
    assert check() is False
    assert str(check).startswith("the last result failed (build failed)")


def test_a_campaign_stopped_at_a_limit_is_named_by_its_error_s_first_line(
    tmp_path: Path,
) -> None:
    """`doit info` gives the reason on one line: the limit and its value, not the whole fix."""
    limit = timed_out(LimitedRun("the campaign", "doit astest", tasks="astest:fuzz"), 10)
    stopped = FuzzResult.without_outcomes(
        file="assembly/__fuzz__/a.fuzz.ts", file_id="a", mode="wasi", run_command="", session="s",
        error=f"{limit.title}\n{limit.details}",
    )  # fmt: skip
    write_fuzz_result(tmp_path / "a.fuzz.result.json", stopped)
    check = LastFuzzPassed(str(tmp_path), "a.fuzz.result.json")
    assert check() is False
    assert str(check) == (
        f"the last campaign failed ({limit.title}), and a failed one always runs again"
    )


def test_checks_survive_pickling_for_doit_workers(tmp_path: Path) -> None:
    for check in (
        InputsChanged("run", {"a": 1}),
        LastResultPassed(str(tmp_path), "r.json"),
        Always(False, "the seed is random"),
        TargetsAreFiles(str(tmp_path), ["r.json"]),
    ):
        assert str(pickle.loads(pickle.dumps(check))) == str(check)
    assert Always(True, "x")() is True


def doit_state(tmp_path: Path) -> Dependency:
    return Dependency(JsonDB, str(tmp_path / "state.json"))


def build_and_run(tmp_path: Path) -> tuple[Task, Task, dict[str, Task]]:
    """A build task compiling spec.ts and helper.ts into out.wasm, and a run task depending on
    the build through out.wasm, checked with ``BuildUpToDate``."""
    for name in ("spec.ts", "helper.ts", "out.wasm"):
        (tmp_path / name).write_text(name)
    build = Task(
        "t:build:m:spec",
        None,
        file_dep=[str(tmp_path / "spec.ts"), str(tmp_path / "helper.ts")],
        targets=[str(tmp_path / "out.wasm")],
    )
    run = Task(
        "t:run:m:spec",
        None,
        file_dep=[str(tmp_path / "out.wasm")],
        uptodate=[BuildUpToDate("t:build:m:spec")],
    )
    return build, run, {task.name: task for task in (build, run)}


def test_a_run_is_out_of_date_while_its_build_is_and_says_which_file_changed(
    tmp_path: Path,
) -> None:
    build, run, tasks = build_and_run(tmp_path)
    state = doit_state(tmp_path)
    fresh = state.get_status(run, tasks, get_log=True)
    assert fresh.status == "run"
    assert "its build has not run yet" in [str(c) for c, _, _ in fresh.reasons["uptodate_false"]]
    state.save_success(build)
    state.save_success(run)
    assert state.get_status(run, tasks).status == "up-to-date"

    (tmp_path / "helper.ts").write_text("edited")
    build.dep_changed = ["set by doit for the build's own actions"]
    changed = state.get_status(run, tasks, get_log=True)
    assert changed.status == "run"
    [(check, _, _)] = changed.reasons["uptodate_false"]
    assert str(check) == f"its build is out of date: {tmp_path / 'helper.ts'} changed"
    assert build.dep_changed == ["set by doit for the build's own actions"]

    state.save_success(build)  # what a doit run does before it checks the run
    assert state.get_status(run, tasks).status == "up-to-date"


def test_a_run_whose_build_is_not_loaded_or_ignored_goes_by_its_own_files(
    tmp_path: Path,
) -> None:
    build, run, tasks = build_and_run(tmp_path)
    state = doit_state(tmp_path)
    state.save_success(run)
    assert state.get_status(run, {run.name: run}).status == "up-to-date"
    state.ignore(build)
    assert state.get_status(run, tasks).status == "up-to-date"


def test_doit_reads_each_checks_signature_ready_made(tmp_path: Path) -> None:
    # doit asks inspect.signature of every uptodate callable of every task on every call, for
    # the task/values arguments; each check class's is built once (core/call_signature.py).
    checks: list[Callable[..., Any]] = [
        InputsChanged("run", {"a": 1}),
        LastResultPassed(str(tmp_path), "r.json"),
        Always(False, "the seed is random"),
        NotHandedOver(("astest", "default", "s0"), "session"),
        SnapshotsUnchanged(str(tmp_path), ["a.snap"]),
        LastFuzzPassed(str(tmp_path), "f.json"),
        BuildUpToDate("astest:build:default:s0"),
        PendingImports([["gen/table.ts"]]),
        TargetsAreFiles(str(tmp_path), ["out.wasm"]),
    ]
    for check in checks:
        signature = inspect.signature(check)
        assert signature is inspect.signature(check), type(check).__name__
        call = inspect.signature(type(check).__call__)
        assert list(signature.parameters) == list(call.parameters)[1:]  # without self
    magic = [list(inspect.signature(check).parameters)[:2] for check in checks]
    assert magic.count(["task", "values"]) == 3  # InputsChanged, SnapshotsUnchanged, PendingImports


def test_targets_that_are_not_regular_files_are_not_the_tasks(tmp_path: Path) -> None:
    (tmp_path / "out.wasm").write_text("module")
    (tmp_path / "out.json").write_text("record")
    check = TargetsAreFiles(str(tmp_path), ["out.json", "out.wasm", "missing.js"])
    assert check() is True, "a missing target is doit's own case"
    (tmp_path / "elsewhere.json").write_text("record")
    (tmp_path / "out.json").unlink()
    (tmp_path / "out.json").symlink_to(tmp_path / "elsewhere.json")
    assert check() is False
    assert str(check) == "out.json is not a regular file (a symlink?), so not the task's"
    (tmp_path / "out.json").unlink()
    (tmp_path / "out.json").mkdir()
    assert check() is False


def test_a_build_whose_target_was_swapped_for_a_symlink_to_a_fifo_runs_again(
    tmp_path: Path,
) -> None:
    """doit alone calls it up to date (the target exists, the inputs are as saved), and its run
    then waits for ever in doit's own digest of the record, a file_dep of the run."""
    (tmp_path / "spec.ts").write_text("spec")
    (tmp_path / "out.json").write_text("record")
    build = Task(
        "t:build:m:spec",
        None,
        file_dep=[str(tmp_path / "spec.ts")],
        targets=[str(tmp_path / "out.json")],
        uptodate=[TargetsAreFiles(str(tmp_path), ["out.json"])],
    )
    state = doit_state(tmp_path)
    state.save_success(build)
    assert state.get_status(build, {build.name: build}).status == "up-to-date"
    (tmp_path / "out.json").unlink()
    fifo_symlink(tmp_path / "out.json")
    assert state.get_status(build, {build.name: build}).status == "run"
