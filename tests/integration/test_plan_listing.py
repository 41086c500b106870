"""--list / --list-modes on a real project: the plan is printed, and nothing is built or run."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.integration.conftest import ANSI, Project
from tests.integration.test_as_test_versions import both_copies
from tests.integration.test_standalone import astest
from tests.integration.toolchains import AS_TEST_1_8

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


def _plan_sections(text: str) -> dict[str, list[str]]:
    """The plan's blocks by heading, our last-result notes and runtime line left out (our
    runtime is the in-process runner, theirs the Node one)."""
    sections: dict[str, list[str]] = {}
    current = ""
    for line in text.splitlines():
        if line and not line.startswith(" "):
            current = line
            sections[current] = []
        elif line.strip() and not line.startswith(("  runtime:", "  features:", "  coverage:")):
            sections[current].append(line.split("  (", 1)[0] if "    - " in line else line)
    return sections


def test_the_plan_agrees_with_as_test_1_8s(tmp_path: Path) -> None:
    theirs, ours = both_copies("passing", tmp_path, AS_TEST_1_8)
    argv = ["node", "node_modules/as-test/bin/index.js", "test", "--list", "--list-modes"]
    argv += ["--mode", "wasi"]
    reference = subprocess.run(
        argv, cwd=theirs.root, capture_output=True, text=True, timeout=300, check=True
    ).stdout
    listed = ours.doit("astest", "--list", "--list-modes", "--mode", "wasi")
    assert listed.exit_code == 0, listed.stdout + listed.stderr
    expected = _plan_sections(ANSI.sub("", reference))
    got = _plan_sections(listed.stdout.split(".  astest:plan\n", 1)[1])
    for heading in ("Configured modes:", "Selected modes:", "Resolved files:", "Mode: wasi"):
        assert got[heading] == expected[heading], heading
    assert "    - .as-test/build/wasi/snap.spec.wasm" in got["Mode: wasi"]  # the blocks are full


def test_with_fuzz_the_plan_lists_the_fuzz_files_as_ast_fuzz_list_does(tmp_path: Path) -> None:
    theirs, ours = both_copies("fuzz", tmp_path, AS_TEST_1_8)
    argv = ["node", "node_modules/as-test/bin/index.js", "fuzz", "--list"]
    reference = subprocess.run(
        argv, cwd=theirs.root, capture_output=True, text=True, timeout=300, check=True
    ).stdout
    listed = ours.doit("astest", "--fuzz", "--list")
    assert listed.exit_code == 0, listed.stdout + listed.stderr
    expected = _plan_sections(ANSI.sub("", reference))
    fuzz_plan = listed.stdout.split("\nas-test fuzz plan\n", 1)[1]
    got = _plan_sections(fuzz_plan)
    assert got["Fuzz files:"] == expected["Resolved files:"]
    assert len(got["Fuzz files:"]) == 3
    # Per mode the same target and the same wasm names (ours sit in the mode's fuzz/ folder).
    assert got["Mode: default"][0] == expected["Mode: default"][0] == "  target: bindings"
    names = [line.rsplit("/", 1)[1] for line in got["Mode: default"] if line.startswith("    - ")]
    theirs_names = [
        line.rsplit("/", 1)[1] for line in expected["Mode: default"] if line.startswith("    - ")
    ]
    assert names == theirs_names
    # Nothing was built or run.
    assert not (ours.root / ".as-test" / "build").exists()
    # Without --fuzz the plan is the specs' alone.
    plain = ours.doit("astest", "--list")
    assert "as-test fuzz plan" not in plain.stdout and "Resolved files:" in plain.stdout
