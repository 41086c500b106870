"""tasks/build_task.py: what a compile task tells doit."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from astest_tasks.config import toolchain
from astest_tasks.core import project_lock
from astest_tasks.plan.options import TaskOptions
from astest_tasks.tasks.checks import TargetsAreFiles
from astest_tasks.tasks.creator import create_tasks
from tests.conftest import write_project
from tests.fifo_guard import fifo_symlink

SPEC = "assembly/__tests__/math.spec.ts"


@pytest.fixture(autouse=True)
def fresh_process_state(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(toolchain, "_warned", set())
    monkeypatch.setattr(project_lock, "_held", {})


def test_a_build_runs_again_when_a_target_is_not_a_regular_file(tmp_path: Path) -> None:
    """Its record, module and bindings: a committed symlink in their place is not the build's,
    and would be read by doit itself as the run's file_dep."""
    # Two modes, wasi and bindings.
    root = write_project(tmp_path, files={SPEC: 'import { expect } from "as-test";\n'})
    builds = [task for task in create_tasks(root, TaskOptions()) if "build:" in str(task["name"])]
    checks = [check for build in builds for check in _targets_checks(build)]
    assert sorted(len(check.targets) for check in checks) == [2, 4], "bindings: .js, .d.ts too"
    for build, check in zip(builds, checks, strict=True):
        targets = [os.path.abspath(target) for target in build["targets"]]
        assert [str(root / target) for target in check.targets] == targets
        for target in check.targets:
            (root / target).parent.mkdir(parents=True, exist_ok=True)
            (root / target).write_text("built")
        assert check() is True
        (root / check.targets[0]).unlink()
        fifo = fifo_symlink(root / check.targets[0])
        assert check() is False
        assert str(check).startswith(f"{check.targets[0]} is not a regular file")
        (root / check.targets[0]).unlink()
        fifo.unlink()
        (root / check.targets[0]).write_text("built again")
        assert check() is True
        assert str(check).startswith("the targets ("), "the last answer's reason, not a stale one"


def _targets_checks(build: dict[str, object]) -> list[TargetsAreFiles]:
    return [c for c in build["uptodate"] if isinstance(c, TargetsAreFiles)]  # type: ignore[attr-defined]
