"""``astest --watch``'s command line and what a cycle reads back (the loop itself is tested on a
real project in tests/integration/test_watch.py)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from astest_tasks.cli import main
from astest_tasks.commands.watch import Cycle, _end_cycle, _read_report, run_watch, watch_arguments
from astest_tasks.model.guest_report import Counts
from astest_tasks.model.results import SpecIdentity, SpecResult, Stage, Status, failure_result
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


def test_a_cycle_with_nothing_to_run_shows_the_last_totals(tmp_path: Path) -> None:
    # Watching a project already built: every task is up to date, the summary writes nothing.
    passed = SpecResult(
        spec="assembly/__tests__/math.spec.ts",
        spec_id="math",
        mode="wasi",
        target="wasi",
        status=Status.PASSED,
        stage=Stage.RUN,
        counts=Counts(1, 0, 0, 3, 0, 0, 1.0),
        failures=(),
        suites=(),
        duration_s=0.25,
        session="s1",
        build_command="node asc.js",
    )
    report = tmp_path / "report.json"
    write_reports(report, [Shown(result=passed, cached=False)])
    out = io.StringIO()
    _end_cycle(out, Cycle(0, [], "as-test.config.json", None, up_to_date=report), 4)
    lines = out.getvalue().splitlines()
    assert lines[0] == "every result is up to date: nothing to run"
    assert "files: 1 passed, 0 failed, 0 skipped (1 cached)" in lines
    assert not any("math" in line or "stopped" in line for line in lines)
    assert lines[-1] == "watching 4 files for changes; Ctrl-C stops"
