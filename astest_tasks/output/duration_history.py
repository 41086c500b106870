"""Each spec's durations over its last runs, for the HTML report's chart of the slowest specs.

A result carries the duration of the run that made it and the session of that run, so one run is
recorded once however often its result is shown cached. The history is bounded (the last
``MAX_RUNS`` runs of each spec and mode, at most ``MAX_PAIRS`` pairs) and lives in the state
folder beside the other caches (``<report folder>/cache/``), written atomically: a reader, or a
run stopped half-way, sees the old file or the new one. An unreadable file is an empty history,
never an error: it is a convenience, and the next run starts it again.

The file sits where a pull request can commit anything, so it is read through
core/state_files.py (a symlink, a FIFO or a huge file is no history), and each entry is checked:
a pair or a run of another shape, or a time that is not a finite number of seconds from 0 (NaN,
Infinity, negative, too large for a float) is dropped, and the rest kept. No such time is ever
recorded or written either (a result's own time included), so the file stays standard JSON.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType

from astest_tasks.core.atomic import write_text_atomic
from astest_tasks.core.frozen import frozen
from astest_tasks.core.json_text import finite_number, parse_json
from astest_tasks.core.state_files import read_state_file
from astest_tasks.model.results import SpecResult, Stage
from astest_tasks.output.report_state import HISTORY_FILE

MAX_RUNS = 20  # points a chart shows: enough to see a trend, small enough to stay a glance
MAX_PAIRS = 20_000  # (mode, spec) pairs kept: those of this run first, then the most recent
_FORMAT = 1


@frozen
class PastRun:
    session: str
    seconds: float


Key = tuple[str, str]  # (mode, spec file)
History = Mapping[Key, tuple[PastRun, ...]]  # oldest first

EMPTY: History = MappingProxyType({})


def key_of(result: SpecResult) -> Key:
    return (result.mode, result.spec)


def load_history(path: Path) -> dict[Key, tuple[PastRun, ...]]:
    """The stored history; empty when the file is missing, unreadable or of another format, and
    without the entries that are not a pair's runs or a run's time in seconds."""
    text = read_state_file(path)
    try:
        # NaN and Infinity parse (as Python's json reads them), to be dropped with their run
        # alone below, as a negative time is, rather than costing every pair its history.
        data = None if text is None else parse_json(text)
    except ValueError:
        return {}
    if not isinstance(data, dict) or data.get("format") != _FORMAT:
        return {}
    pairs = data.get("pairs")
    history: dict[Key, tuple[PastRun, ...]] = {}
    for pair in pairs if isinstance(pairs, list) else ():
        if len(history) >= MAX_PAIRS:
            break
        if isinstance(pair, list) and len(pair) == 3 and isinstance(pair[2], list):
            mode, spec, runs = pair
            if isinstance(mode, str) and isinstance(spec, str):
                kept = (run for run in map(_past_run, runs) if run is not None)
                history[(mode, spec)] = tuple(kept)[-MAX_RUNS:]
    return history


def _past_run(stored: object) -> PastRun | None:
    """A stored ``[session, seconds]``; None for anything else."""
    if not (isinstance(stored, list) and len(stored) == 2 and isinstance(stored[0], str)):
        return None
    seconds = _seconds(stored[1])
    return None if seconds is None else PastRun(stored[0], seconds)


def _seconds(value: object) -> float | None:
    """``value`` as a duration: a finite number from 0, else None."""
    seconds = finite_number(value)
    return seconds if seconds is not None and seconds >= 0 else None


def record_runs(
    history: Mapping[Key, tuple[PastRun, ...]], results: Iterable[SpecResult]
) -> dict[Key, tuple[PastRun, ...]]:
    """``history`` with each result's run added, unless that run is its last one already (a
    cached result); a build failure ran nothing and adds nothing."""
    updated: dict[Key, tuple[PastRun, ...]] = {}
    for result in results:
        key = key_of(result)
        runs = history.get(key, ())
        seconds = _seconds(result.duration_s)
        new_run = not runs or runs[-1].session != result.session
        if result.stage is Stage.RUN and new_run and seconds is not None:
            runs = (*runs, PastRun(result.session, seconds))[-MAX_RUNS:]
        updated[key] = runs
    # Pairs this run did not select (another --mode, a spec filter) keep theirs, newest first,
    # as long as there is room.
    for key, runs in history.items():
        if len(updated) >= MAX_PAIRS:
            break
        updated.setdefault(key, runs)
    return updated


def save_history(path: Path, history: Mapping[Key, Sequence[PastRun]]) -> None:
    """Write ``history``, leaving out any run whose time is not a duration (no NaN or Infinity,
    which JSON cannot hold, reaches the file)."""
    pairs = [[mode, spec, _stored_runs(runs)] for (mode, spec), runs in history.items()]
    text = json.dumps({"format": _FORMAT, "pairs": pairs}, ensure_ascii=False)
    write_text_atomic(path, text + "\n")


def _stored_runs(runs: Sequence[PastRun]) -> list[list[object]]:
    return [
        [run.session, round(run.seconds, 6)] for run in runs if _seconds(run.seconds) is not None
    ]


def update_history(folder: Path, results: Sequence[SpecResult]) -> History:
    """Add these results' runs to the history in report.json's ``folder``, save it, and return
    it: what the HTML report charts."""
    path = folder / HISTORY_FILE
    history = record_runs(load_history(path), results)
    # A read-only state folder costs the chart its past, never the run its reports.
    with contextlib.suppress(OSError):
        save_history(path, history)
    return MappingProxyType(history)
