"""--list / --list-modes on a real project: the plan is printed, and nothing is built or run."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.integration.conftest import Project
from tests.integration.test_standalone import astest

pytestmark = pytest.mark.integration

SPECS = (
    "assembly/__tests__/geometry.spec.ts",
    "assembly/__tests__/left/shared.spec.ts",
    "assembly/__tests__/right/shared.spec.ts",
    "assembly/__tests__/skips.spec.ts",
    "assembly/__tests__/snap.spec.ts",
)


def test_list_prints_the_plan_and_builds_nothing(fresh_project: Callable[[str], Project]) -> None:
    project = fresh_project("passing")
    listed = project.doit("astest", "--list", "--mode", "wasi")
    assert listed.exit_code == 0, listed.stdout + listed.stderr
    assert listed.executed == ["astest:plan"]
    files = "Resolved files:\n" + "".join(f"  - {spec}\n" for spec in SPECS)
    assert files in listed.stdout
    assert "Mode: wasi\n  target: wasi\n  outDir: .as-test/build/wasi\n" in listed.stdout
    assert "Mode: bindings" not in listed.stdout
    assert "    - .as-test/build/wasi/geometry.spec.wasm  (not run yet)" in listed.stdout
    assert not (project.root / ".as-test" / "build").exists(), "a listing builds nothing"

    ran = project.doit("astest", "--mode", "wasi", "--spec", "geometry")
    assert ran.exit_code == 0, ran.stdout + ran.stderr
    again = project.doit("astest", "--mode", "wasi", env={"ASTEST_LIST": "1"})
    assert again.executed == ["astest:plan"]
    assert (
        "    - .as-test/build/wasi/geometry.spec.wasm  (last: passed, cached unless an input "
        "changed)" in again.stdout
    )
    assert "    - .as-test/build/wasi/snap.spec.wasm  (not run yet)" in again.stdout


def test_list_modes_through_the_astest_command(fresh_project: Callable[[str], Project]) -> None:
    project = fresh_project("passing")
    listed = astest(project, "--list-modes")
    assert listed.exit_code == 0, listed.stdout + listed.stderr
    assert "Configured modes:\n  - wasi (default)\n  - bindings (default)\n" in listed.stdout
    assert "Default-selected modes:\n  - wasi\n  - bindings\n" in listed.stdout
    assert "Resolved files" not in listed.stdout
    assert not (project.root / ".as-test" / "build").exists()
