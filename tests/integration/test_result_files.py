"""Result files on a real project: named ``.result.jsonl``, and a result the version before
stored as ``.result.json`` still read until its spec runs again (model/results.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.conftest import DoitRun, Project, clone_project

pytestmark = pytest.mark.integration

GEOMETRY = ".as-test/build/wasi/geometry"


def as_the_previous_version_named_them(project: Project) -> list[Path]:
    renamed = []
    for path in sorted((project.root / ".as-test/build").rglob("*.result.jsonl")):
        renamed.append(path.rename(path.with_suffix(".json")))
    return renamed


@pytest.mark.toolchains("1.0.7")  # our own file names: the same under every as-test
def test_a_result_under_the_previous_name_is_listed_then_replaced_by_the_run(
    built_passing: tuple[Project, DoitRun], tmp_path: Path
) -> None:
    project = clone_project(built_passing[0], tmp_path)
    assert (project.root / f"{GEOMETRY}.result.jsonl").is_file()
    assert not list(project.root.rglob("*.result.json")), "no result under the old name"
    renamed = as_the_previous_version_named_them(project)
    assert renamed

    listed = project.doit("astest", "--list", "--mode", "wasi")
    assert listed.exit_code == 0, listed.stdout + listed.stderr
    assert (
        "    - .as-test/build/wasi/geometry.spec.wasm  (last: passed, cached unless an input "
        "changed)" in listed.stdout
    ), "the old file is read"

    ran = project.doit("astest:run:wasi:geometry")
    assert ran.exit_code == 0, ran.stdout + ran.stderr
    assert (project.root / f"{GEOMETRY}.result.jsonl").is_file()
    assert not (project.root / f"{GEOMETRY}.result.json").exists(), "written under the new name"

    cleaned = project.doit("clean", "astest")
    assert cleaned.exit_code == 0, cleaned.stdout + cleaned.stderr
    left = sorted(p.name for p in project.root.rglob("*.result.json*"))
    assert left == [], "doit clean removes results under either name"
