"""The durations' history: one entry per run (never per showing of a cached result), bounded,
kept across runs that select other specs, and written atomically."""

from __future__ import annotations

from pathlib import Path

import pytest

from astest_tasks.model.results import Stage, Status
from astest_tasks.output import duration_history
from astest_tasks.output.duration_history import (
    MAX_RUNS,
    PastRun,
    load_history,
    record_runs,
    update_history,
)
from astest_tasks.output.report_state import HISTORY_FILE
from tests.conftest import make_spec_result
from tests.fifo_guard import fifo_symlink, without_waiting

KEY = ("wasi", "assembly/__tests__/math.spec.ts")


def test_a_run_is_recorded_once_however_often_its_result_is_shown(tmp_path: Path) -> None:
    first = make_spec_result("math", session="s1", duration_s=0.5)
    update_history(tmp_path, [first])
    update_history(tmp_path, [first])  # the next doit: the same result, shown cached
    history = update_history(tmp_path, [make_spec_result("math", session="s2", duration_s=0.7)])
    assert history[KEY] == (PastRun("s1", 0.5), PastRun("s2", 0.7))
    assert load_history(tmp_path / HISTORY_FILE) == dict(history)


def test_the_history_keeps_the_last_runs_only() -> None:
    history: dict[tuple[str, str], tuple[PastRun, ...]] = {}
    for run in range(MAX_RUNS + 5):
        history = record_runs(history, [make_spec_result("math", session=f"s{run}")])
    assert len(history[KEY]) == MAX_RUNS
    assert history[KEY][-1].session == f"s{MAX_RUNS + 4}"
    assert history[KEY][0].session == "s5"


def test_a_build_failure_ran_nothing_and_adds_nothing() -> None:
    broken = make_spec_result("math", Status.FAILED, stage=Stage.BUILD, session="s1")
    assert record_runs({}, [broken]) == {KEY: ()}


def test_pairs_this_run_did_not_select_keep_their_past() -> None:
    other = ("bindings", "assembly/__tests__/math.spec.ts")
    history = {other: (PastRun("s0", 1.0),)}
    updated = record_runs(history, [make_spec_result("math", session="s1")])
    assert updated[other] == (PastRun("s0", 1.0),)
    assert list(updated) == [KEY, other], "this run's pairs first: the bound drops the oldest"


def test_the_pairs_kept_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(duration_history, "MAX_PAIRS", 2)
    history = {("wasi", f"old{n}"): (PastRun("s0", 1.0),) for n in range(5)}
    updated = record_runs(history, [make_spec_result("math", session="s1")])
    assert list(updated) == [KEY, ("wasi", "old0")]


def test_an_unreadable_history_is_an_empty_one_and_is_replaced_atomically(tmp_path: Path) -> None:
    path = tmp_path / HISTORY_FILE
    path.parent.mkdir(parents=True)
    path.write_text('{"format": 1, "pairs": [["wasi"]]}')
    assert load_history(path) == {}
    before = path.stat().st_ino
    update_history(tmp_path, [make_spec_result("math", session="s1", duration_s=0.5)])
    assert path.stat().st_ino != before, "rewritten by a rename, never in place"
    assert load_history(path) == {KEY: (PastRun("s1", 0.5),)}


def test_a_read_only_state_folder_costs_the_history_not_the_run(tmp_path: Path) -> None:
    (tmp_path / "cache").write_text("a file where the folder would be")
    history = update_history(tmp_path, [make_spec_result("math", session="s1")])
    assert history[KEY] == (PastRun("s1", 0.25),)


HUGE = "1" + "0" * 400  # an integer JSON allows and no float holds


def _stored(path: Path, runs: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    other = '["wasi", "assembly/__tests__/other.spec.ts", [["s0", 2.0]]]'
    path.write_text(f'{{"format": 1, "pairs": [["wasi", "{KEY[1]}", [{runs}]], {other}]}}')
    return path


@pytest.mark.parametrize("seconds", [HUGE, "NaN", "Infinity", "-Infinity", "-1", "1e400", "true"])
def test_a_time_that_is_no_duration_is_dropped_with_its_run_alone(
    tmp_path: Path, seconds: str
) -> None:
    """A committed history reaches the HTML page's charts: NaN, Infinity or a negative time
    would show as ``nan``, and a huge integer stopped the summary with an OverflowError."""
    path = _stored(tmp_path / HISTORY_FILE, f'["s1", {seconds}], ["s2", 0.5], ["s3", 0]')
    history = load_history(path)
    assert history[KEY] == (PastRun("s2", 0.5), PastRun("s3", 0.0))
    assert history[("wasi", "assembly/__tests__/other.spec.ts")] == (PastRun("s0", 2.0),)


@pytest.mark.parametrize(
    "runs", ['"s1"', '["s1"]', "[1, 0.5]", '["s1", 0.5, 3]', '{"s1": 0.5}', "null"]
)
def test_a_run_of_another_shape_is_dropped_and_the_others_kept(tmp_path: Path, runs: str) -> None:
    path = _stored(tmp_path / HISTORY_FILE, f'{runs}, ["s2", 0.5]')
    assert load_history(path)[KEY] == (PastRun("s2", 0.5),)


def test_a_committed_history_with_bad_times_is_rewritten_as_standard_json(
    tmp_path: Path,
) -> None:
    path = _stored(tmp_path / HISTORY_FILE, f'["s1", NaN], ["s2", Infinity], ["s3", {HUGE}]')
    update_history(tmp_path, [make_spec_result("math", session="s4", duration_s=0.5)])
    text = path.read_text()
    assert "NaN" not in text and "Infinity" not in text and HUGE not in text
    assert load_history(path)[KEY] == (PastRun("s4", 0.5),)


@pytest.mark.parametrize("seconds", [float("nan"), float("inf"), -1.0])
def test_a_result_whose_time_is_no_duration_adds_no_run(tmp_path: Path, seconds: float) -> None:
    """A result file is a committed file too: its time is never recorded nor written."""
    result = make_spec_result("math", session="s1", duration_s=seconds)
    history = update_history(tmp_path, [result])
    assert history[KEY] == ()
    assert "NaN" not in (tmp_path / HISTORY_FILE).read_text()


def test_a_history_of_runs_that_are_no_durations_is_written_without_them(tmp_path: Path) -> None:
    path = tmp_path / HISTORY_FILE
    path.parent.mkdir()
    runs = (PastRun("s1", float("nan")), PastRun("s2", float("inf")), PastRun("s3", 1.0))
    duration_history.save_history(path, {KEY: runs})
    assert load_history(path) == {KEY: (PastRun("s3", 1.0),)}
    assert "NaN" not in path.read_text() and "Infinity" not in path.read_text()


def test_a_history_linked_to_a_fifo_is_an_empty_one_and_never_waited_on(tmp_path: Path) -> None:
    fifo = fifo_symlink(tmp_path / HISTORY_FILE)
    history = without_waiting(
        lambda: update_history(tmp_path, [make_spec_result("math", session="s1")]), fifo
    )
    assert history == {KEY: (PastRun("s1", 0.25),)}
    assert not (tmp_path / HISTORY_FILE).is_symlink(), "replaced by our own file"


def test_a_history_linked_to_a_file_elsewhere_is_not_read(tmp_path: Path) -> None:
    elsewhere = _stored(tmp_path / "elsewhere.json", '["s1", 0.5]')
    link = tmp_path / "state" / HISTORY_FILE
    link.parent.mkdir(parents=True)
    link.symlink_to(elsewhere)
    assert load_history(elsewhere) != {}
    assert load_history(link) == {}
