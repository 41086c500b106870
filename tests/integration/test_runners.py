"""Runner scripts end to end: host imports written in Python, runner edits, and regeneration."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.conftest import Project, copy_project

pytestmark = pytest.mark.integration

DEFAULT_WASI_RUNNER = ".as-test/runners/default.wasi.py"


def verdicts(project: Project) -> dict[tuple[str, str], str]:
    return {(e["mode"], e["spec_id"]): e["verdict"] for e in project.report()["specs"]}


def test_a_runner_supplies_host_imports_to_wasi_and_bindings_specs(tmp_path: Path) -> None:
    project = copy_project("hostimports", tmp_path)
    run = project.doit()
    assert run.exit_code == 0, run.stdout + run.stderr
    assert verdicts(project) == {
        ("host", "host"): "passed",
        ("host", "pure"): "passed",
        ("hostbindings", "host"): "passed",
        ("hostbindings", "pure"): "passed",
        ("plain", "pure"): "passed",
    }
    counts = project.spec_report("assembly/__tests__/host.spec.ts", "hostbindings")["counts"]
    assert counts["tests_passed"] == 3


def test_editing_a_runner_reruns_only_the_specs_that_use_it(tmp_path: Path) -> None:
    project = copy_project("hostimports", tmp_path)
    assert project.doit().exit_code == 0
    runner = project.root / ".as-test/runners/host.py"
    runner.write_text(runner.read_text() + "\n# tuned\n")
    run = project.doit()
    assert run.exit_code == 0
    assert sorted(t for t in run.executed if t.startswith("astest:run:")) == [
        "astest:run:host:host",
        "astest:run:host:pure",
        "astest:run:hostbindings:host",
        "astest:run:hostbindings:pure",
    ]
    assert not [t for t in run.executed if t.startswith("astest:build:")]


def test_a_spec_import_the_runner_does_not_supply_fails_naming_it(tmp_path: Path) -> None:
    project = copy_project("hostimports", tmp_path)
    runner = project.root / ".as-test/runners/host.py"
    runner.write_text(runner.read_text().replace('"host_add": host_add, ', ""))
    run = project.doit()
    assert run.exit_code == 1
    entry = project.spec_report("assembly/__tests__/host.spec.ts", "host")
    assert entry["verdict"] == "failed"
    assert "env.host_add, which nothing supplies" in entry["error"] + str(entry["failures"])
    assert verdicts(project)[("plain", "pure")] == "passed"


def test_a_runner_import_colliding_with_a_builtin_fails_naming_it(tmp_path: Path) -> None:
    project = copy_project("hostimports", tmp_path)
    runner = project.root / ".as-test/runners/host.py"
    runner.write_text(
        runner.read_text().replace('{"env": {', '{"env": {"abort": lambda *a: None, ')
    )
    assert project.doit().exit_code == 1
    entry = project.spec_report("assembly/__tests__/host.spec.ts", "hostbindings")
    assert "env.abort collides" in entry["error"] + str(entry["failures"])


def test_default_runners_are_created_when_missing_and_never_replaced(tmp_path: Path) -> None:
    project = copy_project("hostimports", tmp_path)
    runner = project.root / DEFAULT_WASI_RUNNER
    assert not runner.exists()
    listing = project.doit("list", "--all")
    assert "astest:runner:wasi" in listing.stdout
    first = project.doit()
    assert first.exit_code == 0
    assert "created .as-test/runners/default.wasi.py" in first.stderr
    assert "from astest_tasks.runner import instantiate" in runner.read_text()

    edited = runner.read_text() + "\n# my change\n"
    runner.write_text(edited)
    assert project.doit().exit_code == 0
    assert project.doit("clean").exit_code == 0
    assert runner.read_text() == edited, "doit clean must leave the user's runner alone"
    assert project.doit().exit_code == 0
    assert runner.read_text() == edited
    assert (project.root / ".as-test/runners/host.py").is_file()

    runner.unlink()
    again = project.doit()
    assert again.exit_code == 0
    assert "astest:runner:wasi" in again.executed
    assert "# my change" not in runner.read_text()
