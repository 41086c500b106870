"""astest-tasks inside a team's own doit pipeline (tests/fixtures/pipeline): a code generator
whose output a spec imports, and two task creators side by side in one dodo.py."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from astest_tasks.model.results import read_result
from tests.integration.conftest import DoitRun, Project, clone_project, copy_project

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Project, DoitRun]]:
    project = copy_project("pipeline", tmp_path_factory.mktemp("pipeline"))
    assert not (project.root / "assembly/generated").exists()
    yield project, project.doit()


def test_the_generator_runs_before_the_build_that_imports_its_output(
    pipeline: tuple[Project, DoitRun],
) -> None:
    project, run = pipeline
    assert run.exit_code == 0, run.stdout + run.stderr
    order = run.executed
    assert order.index("codegen") < order.index("astest:build:default:table")
    assert (project.root / "assembly/generated/table.ts").is_file()
    table = read_result(project.root / ".as-test/build/default/table.result.jsonl")
    assert table is not None and table.status == "passed"


def test_a_change_in_generated_output_rebuilds_exactly_its_importers(
    pipeline: tuple[Project, DoitRun], tmp_path: Path
) -> None:
    project = clone_project(pipeline[0], tmp_path)
    assert project.doit().executed == ["astest:summary", "second:summary"], "all up to date"
    (project.root / "codegen/table.json").write_text('{"answer": 7}\n')
    run = project.doit()
    assert run.exit_code == 0, run.stdout + run.stderr
    rebuilt = [name for name in run.executed if ":build:" in name]
    assert "codegen" in run.executed and rebuilt == ["astest:build:default:table"]
    assert [n for n in run.executed if ":run:" in n] == ["astest:run:default:table"]


def test_two_instances_live_side_by_side_with_their_own_names_and_reports(
    pipeline: tuple[Project, DoitRun],
) -> None:
    project, run = pipeline
    listed = project.doit("list", "--all").stdout
    names = {line.split()[0] for line in listed.splitlines() if line.strip()}
    assert {"astest", "second", "astest:summary", "second:summary"} <= names
    assert "second:run:default:other" in names and "astest:run:default:plain" in names
    assert run.last_line == "tests: 1 passed, 0 failed, 0 skipped"  # the second suite's
    assert "tests: 3 passed, 0 failed, 0 skipped" in run.stdout
    assert (
        json.loads((project.root / ".as-test/report.json").read_text())["totals"]["tests"]["passed"]
        == 3
    )
    second = json.loads((project.root / ".as-second/second/report.json").read_text())
    assert [spec["spec_id"] for spec in second["specs"]] == ["other"]
    # one default runner for the project, made by one of them
    assert len([name for name in names if name.endswith(":runner:wasi")]) == 1


def test_one_instance_runs_alone(pipeline: tuple[Project, DoitRun], tmp_path: Path) -> None:
    project = clone_project(pipeline[0], tmp_path)
    (project.root / "assembly/second/other.spec.ts").write_text(
        (project.root / "assembly/second/other.spec.ts").read_text().replace("42", "43")
    )
    run = project.doit("second")
    assert run.exit_code == 1 and run.last_line == "tests: 0 passed, 1 failed, 0 skipped"
    assert not any(name.startswith("astest:") for name in run.executed)


def test_tasks_carry_meta_naming_kind_spec_and_mode(pipeline: tuple[Project, DoitRun]) -> None:
    info = pipeline[0].doit("info", "second:run:default:other").stdout
    meta = info[info.index("meta") :]
    for expected in ("'kind': 'run'", "'creator': 'second'", "'mode': 'default'"):
        assert expected in meta
    assert "'spec': 'assembly/second/other.spec.ts'" in meta


def test_info_names_a_changed_helper(pipeline: tuple[Project, DoitRun], tmp_path: Path) -> None:
    project = clone_project(pipeline[0], tmp_path)
    helper = project.root / "assembly/helpers/math.ts"
    helper.write_text(helper.read_text().replace("value * 2", "value + value"))
    info = project.doit("info", "astest:build:default:doubling")
    assert info.exit_code == 1  # doit info: not up to date
    assert re.search(
        r"status\s+: run\n \* The following file dependencies have changed:\n"
        r"\s+- assembly/helpers/math\.ts",
        info.stdout,
    ), info.stdout
    unchanged = project.doit("info", "astest:build:default:plain")
    assert unchanged.exit_code == 0 and "up-to-date" in unchanged.stdout


def test_info_says_the_last_result_failed_and_which_input_changed(
    pipeline: tuple[Project, DoitRun], tmp_path: Path
) -> None:
    project = clone_project(pipeline[0], tmp_path)
    spec = project.root / "assembly/__tests__/plain.spec.ts"
    spec.write_text(spec.read_text().replace("toBe(4)", "toBe(5)"))
    assert project.doit("astest").exit_code == 1
    info = project.doit("info", "astest:run:default:plain").stdout
    assert "the last result failed (1 of its tests failed)" in info
    limits = project.doit("info", "astest:run:default:doubling", env={"ASTEST_TIMEOUT": "20"})
    assert "the run inputs changed: limits [300.0, 1024.0, 64.0] -> [20.0, 1024.0, 64.0]" in (
        limits.stdout
    )


def test_forget_and_ignore_act_on_exactly_the_named_task(
    pipeline: tuple[Project, DoitRun], tmp_path: Path
) -> None:
    project = clone_project(pipeline[0], tmp_path)
    assert project.doit("forget", "astest:run:default:plain").exit_code == 0
    runs = [n for n in project.doit("astest").executed if ":run:" in n]
    assert runs == ["astest:run:default:plain"]
    assert project.doit("ignore", "astest:run:default:doubling").exit_code == 0
    (project.root / ".as-test/build/default/doubling.result.jsonl").unlink()
    ignored = project.doit("astest")
    assert "!! astest:run:default:doubling" in ignored.stdout
    assert "astest:run:default:doubling" not in ignored.executed


def test_clean_removes_our_outputs_and_never_the_users_files(
    pipeline: tuple[Project, DoitRun], tmp_path: Path
) -> None:
    project = clone_project(pipeline[0], tmp_path)
    snapshot = project.root / ".as-test/snapshots/plain.spec.snap"
    snapshot.parent.mkdir(parents=True, exist_ok=True)
    snapshot.write_text("# as-test snapshot file\n")
    users = [
        snapshot,
        project.root / ".as-test/runners/default.wasi.py",
        project.root / "as-test.config.json",
        project.root / "second.config.json",
        project.root / "assembly/__tests__/plain.spec.ts",
        project.root / "assembly/helpers/math.ts",
    ]
    before = {path: path.read_bytes() for path in users}
    run = project.doit("clean", "astest", "second")
    assert run.exit_code == 0, run.stderr
    assert {path: path.read_bytes() for path in users} == before
    leftovers = [
        p.relative_to(project.root).as_posix()
        for folder in (".as-test/build", ".as-second/build")
        for p in (project.root / folder).rglob("*")
        if p.is_file()
    ]
    assert leftovers == []
    for report in (".as-test/report.json", ".as-test/junit.xml", ".as-second/second/report.json"):
        assert not (project.root / report).exists(), report


def test_parallel_workers_keep_the_pipeline_order(
    pipeline: tuple[Project, DoitRun], tmp_path: Path
) -> None:
    project = copy_project("pipeline", tmp_path)
    run = project.doit("-n", "2")
    assert run.exit_code == 0, run.stdout + run.stderr
    assert (project.root / "assembly/generated/table.ts").is_file()
    # Each instance's summary is printed whole; under -n, whichever finishes last ends the output.
    lines = ("tests: 3 passed, 0 failed, 0 skipped", "tests: 1 passed, 0 failed, 0 skipped")
    assert all(line in run.stdout for line in lines) and run.last_line in lines


WRAPPER_DODO = '''
from astest_tasks import make_astest_tasks

DOIT_CONFIG = {"backend": "sqlite3", "default_tasks": ["unit"]}


def task_unit():
    """Only the wasi mode's runs and builds, each doc marked."""
    creator = make_astest_tasks(basename="unit", modes=["wasi"])
    for task in creator():
        task["doc"] = "[team] " + task.get("doc", "")
        yield task
'''


def test_a_task_function_can_wrap_filter_and_extend_a_creator(tmp_path: Path) -> None:
    project = copy_project("passing", tmp_path)
    (project.root / "dodo.py").write_text(WRAPPER_DODO)
    listed = project.doit("list", "--all")
    assert listed.exit_code == 0, listed.stderr
    names = {line.split()[0]: line for line in listed.stdout.splitlines() if line.strip()}
    assert "unit:run:wasi:geometry" in names and "[team] run" in names["unit:run:wasi:geometry"]
    assert not any(":bindings:" in name for name in names)
