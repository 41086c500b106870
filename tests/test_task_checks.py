"""The uptodate checks say, in words, why a task must run (what `doit info` prints)."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

from astest_tasks.results import SpecIdentity, Stage, failure_result, write_result
from astest_tasks.task_checks import Always, InputsChanged, LastResultPassed


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


def test_checks_survive_pickling_for_doit_workers(tmp_path: Path) -> None:
    for check in (
        InputsChanged("run", {"a": 1}),
        LastResultPassed(str(tmp_path), "r.json"),
        Always(False, "the seed is random"),
    ):
        assert str(pickle.loads(pickle.dumps(check))) == str(check)
    assert Always(True, "x")() is True
