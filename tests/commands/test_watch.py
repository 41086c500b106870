"""``astest --watch``'s command line and what a cycle reads back (the loop itself is tested on a
real project in tests/integration/test_watch.py)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from astest_tasks.cli import main
from astest_tasks.commands.watch import (
    FIRST_STEP_MS,
    STEP_MS,
    Cycle,
    _CompileAhead,
    _end_cycle,
    _Notifier,
    _read_report,
    run_watch,
    watch_arguments,
)
from astest_tasks.commands.watch_inputs import ChangeFilter, WatchedInputs
from astest_tasks.model.guest_report import Counts
from astest_tasks.model.results import SpecIdentity, SpecResult, Stage, Status, failure_result
from astest_tasks.output.console import Shown
from astest_tasks.output.summary import write_reports
from astest_tasks.schedule import scheduler
from tests.fifo_guard import fifo_symlink, without_waiting


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


class ScriptedNotify:
    """Stands in for watchfiles' RustNotify: answers each watch() call from a script, and
    records the (step, timeout) it was called with."""

    def __init__(self, answers: list[object]) -> None:
        self.answers = answers
        self.calls: list[tuple[int, int]] = []

    def watch(self, debounce_ms: int, step_ms: int, timeout_ms: int, stop: object) -> object:
        self.calls.append((step_ms, timeout_ms))
        return self.answers.pop(0)

    def close(self) -> None:
        pass


def notifier_over(tmp_path: Path, answers: list[object]) -> tuple[_Notifier, ScriptedNotify]:
    notify = ScriptedNotify(answers)
    notifier = _Notifier(lambda *args: notify)
    notifier.follow([str(tmp_path)])
    return notifier, notify


def test_the_first_change_of_a_burst_is_told_at_once_and_the_rest_gathered(
    tmp_path: Path,
) -> None:
    spec, lib, other = (str(tmp_path / name) for name in ("a.spec.ts", "lib.ts", "notes.md"))
    for path in (spec, lib, other):
        Path(path).write_text("x")
    changes = ChangeFilter(WatchedInputs(frozenset({spec, lib})))
    told: list[list[str]] = []
    notifier, notify = notifier_over(
        tmp_path,
        [{(2, other)}, {(2, spec)}, {(2, lib)}, "timeout"],  # notes.md is no input
    )

    def head_start(changed: list[str]) -> None:
        told.append(list(changed))
        assert len(notify.answers) == 2  # before the rest of the burst was gathered

    assert notifier.next_changes(changes, head_start) == sorted([spec, lib])
    assert told == [[spec]]
    # Idle: polled every FIRST_STEP_MS with no time limit; then each further event is waited
    # for at most STEP_MS.
    assert notify.calls[0] == (FIRST_STEP_MS, 0)
    assert notify.calls[2:] == [(FIRST_STEP_MS, STEP_MS), (FIRST_STEP_MS, STEP_MS)]


def test_a_signal_while_waiting_stops_the_watch(tmp_path: Path) -> None:
    spec = str(tmp_path / "a.spec.ts")
    Path(spec).write_text("x")
    changes = ChangeFilter(WatchedInputs(frozenset({spec})))
    for answers in (["signal"], [{(2, spec)}, "signal"]):
        notifier, _notify = notifier_over(tmp_path, list(answers))
        with pytest.raises(KeyboardInterrupt):
            notifier.next_changes(changes, lambda changed: None)


def test_a_head_start_only_for_saved_sources(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[list[str]] = []
    planner = scheduler.Scheduler()
    monkeypatch.setattr(planner, "compile_changed", lambda changed: started.append(changed))
    monkeypatch.setattr(scheduler, "_current", planner)
    ahead = _CompileAhead(in_workers=False)
    ahead.head_start(["/p/assembly/__tests__/a.spec.ts", "/p/assembly/lib.ts"])
    ahead.head_start(["/p/assembly/__tests__/a.spec.ts", "/p/as-test.config.json"])
    _CompileAhead(in_workers=True).head_start(["/p/assembly/__tests__/a.spec.ts"])
    assert started == [["/p/assembly/__tests__/a.spec.ts", "/p/assembly/lib.ts"]]


def test_at_the_end_the_servers_close_before_the_warm_up_is_waited_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A warm-up compile under way ends with its server; waiting for it first could take a
    whole compile, and not waiting would leave its scratch folder to a thread cut off at exit."""
    calls: list[str] = []

    class RecordingWarmup:
        def stop(self, wait: bool = True) -> None:
            calls.append(f"stop(wait={wait})")

    planner = scheduler.Scheduler()
    monkeypatch.setattr(planner.compile_pool, "close", lambda: calls.append("servers closed"))
    monkeypatch.setattr(scheduler, "_current", planner)
    ahead = _CompileAhead(in_workers=False)
    monkeypatch.setattr(ahead, "_warmup", RecordingWarmup())
    ahead.close()
    assert calls == ["stop(wait=False)", "servers closed", "stop(wait=True)"]


def test_a_report_linked_to_a_fifo_or_of_another_shape_shows_nothing(tmp_path: Path) -> None:
    """A cycle with nothing to run reads the report left from before, which may be committed."""
    report = tmp_path / "report.json"
    fifo = fifo_symlink(report)
    assert without_waiting(lambda: _read_report(report), fifo) == []
    report.unlink()
    for text in ("[1]", '{"specs": [{"result": 5}]}', "{not json"):
        report.write_text(text)
        assert _read_report(report) == []
