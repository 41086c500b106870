"""``astest --watch``'s command line and what a cycle reads back (the loop itself is tested on a
real project in tests/integration/test_watch.py)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from astest_tasks.cli import main
from astest_tasks.commands.watch import _read_report, run_watch, watch_arguments
from astest_tasks.model.results import SpecIdentity, Stage, Status, failure_result
from astest_tasks.output.console import Shown
from astest_tasks.output.summary import write_reports


def test_watch_is_a_flag_anywhere_on_a_run_line() -> None:
    assert watch_arguments(["--mode", "wasi", "--watch"]) == ["--mode", "wasi"]
    assert watch_arguments(["--watch", "-n", "2"]) == ["-n", "2"]
    assert watch_arguments(["--mode", "wasi"]) is None


def test_watch_with_a_command_that_runs_nothing_is_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["list", "--watch"]) == 3
    error = capsys.readouterr().err
    assert error.startswith("ERROR: --watch") and "fix: drop --watch" in error
    assert len(error.splitlines()) == 1


def test_refusal_happens_before_any_watching(capsys: pytest.CaptureFixture[str]) -> None:
    out = io.StringIO()
    assert run_watch(["info", "astest:summary"], out) == 3
    assert out.getvalue() == ""


def test_a_cycle_reads_back_the_report_the_summary_wrote(tmp_path: Path) -> None:
    who = SpecIdentity("assembly/__tests__/math.spec.ts", "math", "wasi", "wasi")
    failed = failure_result(who, "s1", Stage.BUILD, "build failed", "TS2304", "node asc.js")
    report = tmp_path / "report.json"
    write_reports(report, [Shown(result=failed, cached=True)])
    [shown] = _read_report(report)
    assert shown.cached and shown.result == failed
    assert shown.result.status == Status.FAILED
    assert json.loads(report.read_text())["totals"]["cached"] == 1
