"""Splitting a suite across CI machines: ``--shard=k/N`` picks a stable, balanced part.

The CI system runs N jobs (a matrix); each runs ``doit astest --shard=k/N`` and gets every
(mode, spec) pair whose shard is k. Every job computes the same assignment from the same
inputs, so the shards partition the suite exactly: nothing runs twice, nothing is left out.

By default a pair's shard comes from a stable hash of its id (``mode:spec-id``): adding a spec
moves no other. With durations of an earlier run (``--shard-durations=report.json``, the same
file on every job, or those ``astest merge`` published to the shared cache) every pair is placed
longest first on the shard with the least time so far, which balances wall-clock time; a pair
the durations do not know (a new spec) counts as their median.

Each shard's report names its split (``split_name``: every pair's shard, digested), so that
``astest merge`` can refuse shards that cut the suite differently: their parts would not add up.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from astest_tasks.core.errors import UserError
from astest_tasks.core.frozen import frozen
from astest_tasks.core.json_text import finite_number, parse_json
from astest_tasks.core.project_source import NotReadable, read_named_file
from astest_tasks.core.state_files import MAX_STATE_BYTES

_SHOWN_KEY = 200  # characters of a pair's name an error quotes
_FORMAT_HINT = "write it as k/N with 1 <= k <= N, e.g. --shard=2/4"


@frozen
class Shard:
    index: int  # k, from 1
    count: int  # N

    @classmethod
    def parse(cls, text: str) -> Shard | None:
        """``"2/4"``; "" means no sharding."""
        value = text.strip()
        if not value:
            return None
        index_text, slash, count_text = value.partition("/")
        if not (slash and index_text.strip().isdigit() and count_text.strip().isdigit()):
            raise UserError(f"--shard {text!r}: not of the form k/N; fix: {_FORMAT_HINT}")
        shard = cls(int(index_text), int(count_text))
        if not 1 <= shard.index <= shard.count:
            raise UserError(f"--shard {text!r}: k must be between 1 and N; fix: {_FORMAT_HINT}")
        return shard

    @property
    def label(self) -> str:
        return f"{self.index}-of-{self.count}"


HASH_SPLIT = "hash"  # how a split by hash is named (split_name)


@frozen
class ShardPart:
    """What a shard's report says of its part: shard ``index`` of ``count``, cut from a
    selection of ``pairs`` (mode, spec) pairs by ``split`` (``split_name``; ``HASH_SPLIT`` in a
    report of an older version), and the shared cache's key its merge publishes durations
    under ("" without a cache). ``narrowed``: the shard ran less than the whole suite
    (``--spec``, ``--changed``, ``--last-failed``), so its times are not the suite's to publish;
    ``kept_all``: False when ``--last-failed`` dropped pairs of its part after the split, so the
    shards together hold fewer than ``pairs``."""

    index: int
    count: int
    pairs: int
    split: str = HASH_SPLIT
    durations_key: str = ""
    narrowed: bool = False
    kept_all: bool = True


def split_name(assigned: Mapping[str, int], by_durations: bool) -> str:
    """What names a split: how it was made and a digest of every pair's shard. Shards of one
    workflow whose names differ did not cut the suite alike, so together they may run a pair
    twice and another never."""
    text = "\n".join(f"{assigned[key]} {key}" for key in sorted(assigned))
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    return f"{'durations' if by_durations else HASH_SPLIT}:{digest}"


def pair_key(mode: str, spec_id: str) -> str:
    return f"{mode}:{spec_id}"


def hashed_shard(key: str, count: int) -> int:
    """A shard from 1 to ``count`` that depends on nothing but the key (not Python's hash(),
    which changes from process to process)."""
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


def assign_shards(
    keys: Sequence[str], count: int, durations: Mapping[str, float] | None = None
) -> dict[str, int]:
    """Every key's shard. The same keys and durations give the same answer on every machine:
    without a duration for any key, each is hashed; else every key is placed by its duration,
    a key without one counting as the median of those the keys have."""
    known = {key: max(durations[key], 0.0) for key in set(keys) if durations and key in durations}
    if not known:
        return {key: hashed_shard(key, count) for key in keys}
    import statistics  # only a call that balances shards by duration needs it

    typical = statistics.median(known.values())
    cost = {key: known.get(key, typical) for key in set(keys)}
    load = [0.0] * count
    assigned: dict[str, int] = {}
    for key in sorted(cost, key=lambda k: (-cost[k], k)):
        lightest = min(range(count), key=lambda shard: (load[shard], shard))
        load[lightest] += cost[key]
        assigned[key] = lightest + 1
    return assigned


def load_durations(path: Path) -> dict[str, float]:
    """``mode:spec-id`` to seconds, from a report.json of ours (a shard's or a merged one)."""
    report = _read_report(path)
    try:
        pairs = [
            (pair_key(str(spec["mode"]), str(spec["spec_id"])), spec["duration_s"])
            for spec in report["specs"]
        ]
    except (KeyError, TypeError) as exc:
        raise _not_a_report(path, str(exc)) from None
    durations: dict[str, float] = {}
    for index, (key, seconds) in enumerate(pairs):
        duration = finite_number(seconds)
        if duration is None:
            # The entry by its place and its name, cut short: the file may come from anywhere.
            entry = f"specs[{index}] {key[:_SHOWN_KEY]!r}"
            raise _not_a_report(path, f"{entry}: duration_s is not a finite number of seconds")
        durations[key] = duration
    return durations


def _read_report(path: Path) -> Any:  # Any, as parse_json: load_durations checks the shape
    """The file the user named, followed to wherever it is but read only when it is a regular
    file (a FIFO would wait for ever) within the cap."""
    try:
        return parse_json(read_named_file(path, MAX_STATE_BYTES))
    except FileNotFoundError:
        raise UserError(
            f"--shard-durations {path}: no such file; fix: give the report.json of an earlier "
            "run (the same file on every shard), or leave the option out to shard by hash"
        ) from None
    except (OSError, NotReadable, ValueError) as exc:
        raise _not_a_report(path, str(exc)) from None


def _not_a_report(path: Path, why: str) -> UserError:
    return UserError(
        f"--shard-durations {path}: not a report.json of astest-tasks ({why}); fix: give "
        "the .as-test/report.json of an earlier run"
    )
