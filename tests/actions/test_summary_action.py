"""The summary action prints every result, writes the reports, and alone fails the doit run."""

from __future__ import annotations

from pathlib import Path

import pytest
from doit.exceptions import TaskFailed

from astest_tasks.actions.summary_action import show_summary_from_worker, summarize
from astest_tasks.model.results import SpecIdentity, Stage, failure_result, write_result
from astest_tasks.output.summary import SummaryEntry, SummaryPlan

SPEC = "assembly/__tests__/math.spec.ts"


def plan(root: Path) -> SummaryPlan:
    entry = SummaryEntry("wasi", "math", SPEC, "wasi", "r.json", run_task="astest:run:wasi:math")
    return SummaryPlan(str(root), ".as-test/report.json", (entry,))


def test_a_failed_spec_fails_the_run_quietly_after_the_summary_named_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    who = SpecIdentity(SPEC, "math", "wasi", "wasi")
    failed = failure_result(who, "s1", Stage.BUILD, "build failed", "", "")
    write_result(tmp_path / "r.json", failed)
    outcome = summarize(plan(tmp_path), "s1")
    assert isinstance(outcome, TaskFailed)
    assert outcome.report is False, "doit's banner would push our summary off the last line"
    assert SPEC in capsys.readouterr().out
    assert (tmp_path / ".as-test/report.json").is_file()


def test_in_doits_own_process_the_teardown_prints_nothing_more(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    show_summary_from_worker(plan(tmp_path), "s1")
    assert capsys.readouterr().out == ""
