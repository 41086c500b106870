"""Each spec's durations over its last runs, for the HTML report's chart of the slowest specs.

A result carries the duration of the run that made it and the session of that run, so one run is
recorded once however often its result is shown cached. The history is bounded (the last
``MAX_RUNS`` runs of each spec and mode, at most ``MAX_PAIRS`` pairs) and lives in the state
folder beside the other caches (``<report folder>/cache/``), written atomically: a reader, or a
run stopped half-way, sees the old file or the new one. An unreadable file is an empty history,
never an error: it is a convenience, and the next run starts it again.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType

from astest_tasks.core.atomic import write_text_atomic
from astest_tasks.core.frozen import frozen
from astest_tasks.core.json_text import parse_json
from astest_tasks.core.state_files import read_state_file
from astest_tasks.model.results import SpecResult, Stage

HISTORY_FILE = "cache/duration-history.json"  # relative to report.json's folder
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
    """The stored history; empty when the file is missing, unreadable or of another format."""
    text = read_state_file(path)  # core/state_files.py: a symlink or a FIFO is no history
    try:
        data = None if text is None else parse_json(text)
        if not isinstance(data, dict) or data.get("format") != _FORMAT:
            return {}
        return {
            (str(mode), str(spec)): tuple(PastRun(str(s), float(t)) for s, t in runs)
            for mode, spec, runs in data["pairs"]
        }
    except (ValueError, TypeError, KeyError):
        return {}


def record_runs(
    history: Mapping[Key, tuple[PastRun, ...]], results: Iterable[SpecResult]
) -> dict[Key, tuple[PastRun, ...]]:
    """``history`` with each result's run added, unless that run is its last one already (a
    cached result); a build failure ran nothing and adds nothing."""
    updated: dict[Key, tuple[PastRun, ...]] = {}
    for result in results:
        key = key_of(result)
        runs = history.get(key, ())
        if result.stage is Stage.RUN and (not runs or runs[-1].session != result.session):
            runs = (*runs, PastRun(result.session, result.duration_s))[-MAX_RUNS:]
        updated[key] = runs
    # Pairs this run did not select (another --mode, a spec filter) keep theirs, newest first,
    # as long as there is room.
    for key, runs in history.items():
        if len(updated) >= MAX_PAIRS:
            break
        updated.setdefault(key, runs)
    return updated


def save_history(path: Path, history: Mapping[Key, Sequence[PastRun]]) -> None:
    pairs = [
        [mode, spec, [[run.session, round(run.seconds, 6)] for run in runs]]
        for (mode, spec), runs in history.items()
    ]
    text = json.dumps({"format": _FORMAT, "pairs": pairs}, ensure_ascii=False)
    write_text_atomic(path, text + "\n")


def update_history(folder: Path, results: Sequence[SpecResult]) -> History:
    """Add these results' runs to the history in report.json's ``folder``, save it, and return
    it: what the HTML report charts."""
    path = folder / HISTORY_FILE
    history = record_runs(load_history(path), results)
    # A read-only state folder costs the chart its past, never the run its reports.
    with contextlib.suppress(OSError):
        save_history(path, history)
    return MappingProxyType(history)
