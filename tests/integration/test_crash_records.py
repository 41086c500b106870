"""Crash records describe the last run: a spec that runs clean again loses its record, and
``doit clean`` removes the records of specs that are gone, and nothing else in the folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.integration.conftest import DoitRun, Project, clone_project

# Crash records and their clean-up are ours, whichever as-test version built the spec: one
# toolchain, the one real projects use, covers them.
pytestmark = [pytest.mark.integration, pytest.mark.toolchains("1.8.0")]

SPEC = "assembly/__tests__/rooms.spec.ts"
CRASHES = ".as-test/crashes"
RECORDS = [
    f"{CRASHES}/rooms.spec.{mode}.{ext}" for mode in ("wasi", "bindings") for ext in ("json", "log")
]


def rooms_spec(index: int) -> str:
    # Index 2 of a two-room list is out of range: as-test aborts, the run leaves a crash record.
    return (
        'import { describe, expect, test } from "as-test";\n'
        'import { area } from "../lib/geometry";\n'
        "\n"
        'describe("rooms", () => {\n'
        '  test("the floor area of the second room", () => {\n'
        "    const widths: f64[] = [2.0, 3.0];\n"
        f"    expect(area(widths[{index}], 4.0)).toBe(12.0);\n"
        "  });\n"
        "});\n"
    )


def records(project: Project) -> list[str]:
    return [path for path in RECORDS if (project.root / path).exists()]


def test_a_record_goes_when_its_spec_runs_clean_and_clean_removes_those_of_deleted_specs(
    built_passing: tuple[Project, DoitRun], tmp_path: Path
) -> None:
    project = clone_project(built_passing[0], tmp_path)
    spec = project.root / SPEC
    spec.write_text(rooms_spec(2))
    crashed = project.doit()
    assert crashed.exit_code == 1
    assert records(project) == RECORDS, crashed.stdout

    spec.write_text(rooms_spec(1))
    fixed = project.doit()
    assert fixed.exit_code == 0, fixed.stdout
    assert records(project) == [], "a record must describe the last run, which was clean"

    spec.write_text(rooms_spec(2))
    assert project.doit().exit_code == 1
    assert records(project) == RECORDS
    spec.unlink()
    theirs = {
        f"{CRASHES}/notes.json": json.dumps({"why": "the user's own file"}),
        f"{CRASHES}/notes.log": "kept",
    }
    for path, text in theirs.items():
        (project.root / path).write_text(text)
    cleaned = project.doit("clean")
    assert cleaned.exit_code == 0, cleaned.stdout + cleaned.stderr
    assert records(project) == [], "the records of a deleted spec go with doit clean"
    for path, text in theirs.items():
        assert (project.root / path).read_text() == text, f"{path} is not ours to remove"
