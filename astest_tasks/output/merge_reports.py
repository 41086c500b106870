"""``astest merge``: the shards' reports of one CI run, combined into one summary.

Each shard's report.json carries every spec's whole result, so the merged summary is the one an
unsharded run prints: the same lines, the same last line, the same exit code (1 when anything
failed). The merged reports are written too, in every format (output/formats). Reports that do
not add up (a spec in two shards, a shard missing, shards of different counts, shards split by
different durations) are refused, naming them: a merged pass must not hide a shard that never
ran. Once they add up, ``publish`` is handed every pair's duration and the shared cache's key the
shards named ("" when they name none, or not one), for the next workflow's shards to balance by
(remote/shard_durations.py).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from astest_tasks.config.shards import HASH_SPLIT, ShardPart, pair_key
from astest_tasks.core.digests import is_sha256
from astest_tasks.core.errors import UserError
from astest_tasks.core.json_text import parse_json
from astest_tasks.core.project_source import NotReadable, read_named_file
from astest_tasks.core.state_files import MAX_STATE_BYTES
from astest_tasks.model.results import SpecResult
from astest_tasks.output.console import Shown
from astest_tasks.output.formats import REPORT_FILE
from astest_tasks.output.summary import print_summary, write_reports

Publish = Callable[[str, Mapping[str, float]], None]


def merge_reports(reports: Sequence[Path], output_dir: Path, publish: Publish | None = None) -> int:
    documents = [(path, _load(path)) for path in reports]
    shards = {
        path: _shard_part(path, document["shard"])
        for path, document in documents
        if isinstance(document.get("shard"), dict)
    }
    _check_one_split(shards)  # first: shards cut differently also put a spec in two of them
    shown = _merged(documents)
    _check_shards(reports, shards, len(shown))
    passed = write_reports(output_dir / REPORT_FILE, shown)
    print_summary(shown)
    if publish is not None and any(part.narrowed for part in shards.values()):
        print(
            "shard durations not published: the shards ran part of the suite (--spec, --changed "
            "or --last-failed), whose times would replace the whole suite's; the next whole "
            "run publishes",
            file=sys.stderr,
        )
    elif publish is not None:
        keys = {part.durations_key for part in shards.values()}
        durations = {pair_key(i.result.mode, i.result.spec_id): i.result.duration_s for i in shown}
        publish(keys.pop() if len(keys) == 1 else "", durations)
    return 0 if passed else 1


def _merged(documents: Sequence[tuple[Path, dict[str, Any]]]) -> list[Shown]:
    shown: list[Shown] = []
    owner: dict[tuple[str, str], Path] = {}
    for path, document in documents:
        for entry in document["specs"]:
            result = _result(path, entry)
            key = (result.mode, result.spec_id)
            if key in owner:
                raise UserError(
                    f"{result.spec} [{result.mode}] is in both {owner[key]} and {path}; fix: "
                    "merge the reports of one run, made with the same --shard=k/N count"
                )
            owner[key] = path
            shown.append(Shown(result=result, cached=bool(entry.get("cached"))))
    return shown


def _shard_part(path: Path, shard: dict[str, Any]) -> ShardPart:
    try:
        return ShardPart(
            int(shard["index"]),
            int(shard["count"]),
            int(shard.get("pairs", -1)),
            split=str(shard.get("split", HASH_SPLIT)),
            durations_key=_durations_key(shard.get("durations_key", "")),
            narrowed=shard.get("narrowed", False) is not False,
            kept_all=shard.get("kept_all", True) is not False,
        )
    except (KeyError, ValueError, TypeError):
        raise UserError(
            f'{path}: its "shard" is not one astest-tasks wrote; fix: give the report.json a '
            "shard wrote"
        ) from None


def _durations_key(value: object) -> str:
    """The shards' cache key as a remote key is written (64 hex digits), else none: the report
    is a file from a CI job, and the key becomes a path on the cache server."""
    return value if is_sha256(value) else ""


def _load(path: Path) -> dict[str, Any]:
    try:
        # Followed to wherever the user's name leads, but only a regular file within the cap is
        # read: a FIFO among a CI job's downloads would wait for ever.
        document = parse_json(read_named_file(path, MAX_STATE_BYTES))
    except FileNotFoundError:
        raise UserError(f"{path}: no such report; fix: give each shard's report.json") from None
    except (OSError, NotReadable, ValueError) as exc:
        raise UserError(f"{path}: not a readable report.json ({exc})") from None
    if not isinstance(document, dict) or not isinstance(document.get("specs"), list):
        raise UserError(f'{path}: not a report.json of astest-tasks (it has no "specs" list)')
    return document


def _result(path: Path, entry: object) -> SpecResult:
    try:
        assert isinstance(entry, dict)
        return SpecResult.from_json(json.dumps(entry["result"]))
    except (AssertionError, KeyError, ValueError, TypeError):
        raise UserError(
            f"{path}: a spec entry without its whole result (an older astest-tasks wrote it); "
            "fix: run the shards again with this version"
        ) from None


def _shard_name(shard: ShardPart | None) -> str:
    return "not a shard" if shard is None else f"{shard.index}/{shard.count}"


def _check_shards(reports: Sequence[Path], shards: dict[Path, ShardPart], merged: int) -> None:
    if not shards:
        return
    counts = {part.count for part in shards.values()}
    if len(counts) > 1 or len(shards) != len(reports):
        described = ", ".join(f"{path} ({_shard_name(shards.get(path))})" for path in reports)
        raise UserError(f"the reports are not shards of one split: {described}")
    (count,) = counts
    missing = sorted(set(range(1, count + 1)) - {part.index for part in shards.values()})
    if missing:
        names = ", ".join(f"{index}/{count}" for index in missing)
        raise UserError(
            f"shard {names} is missing: the merged totals would leave its specs out; fix: give "
            f"the report.json of every shard 1/{count} to {count}/{count}"
        )
    pairs = {part.pairs for part in shards.values()}
    kept_all = all(part.kept_all for part in shards.values())
    if len(pairs) > 1 or (kept_all and merged not in pairs):
        raise UserError(
            f"the shards hold {merged} (mode, spec) pairs, but they were cut from selections of "
            f"{' and '.join(str(p) for p in sorted(pairs))}: a shard ran with other modes, specs "
            "or config; fix: run every shard with the same options but --shard"
        )


def _check_one_split(shards: dict[Path, ShardPart]) -> None:
    """Shards that cut the suite differently (a merge published new durations between two
    shards' starts, or one shard could not read them) may run a pair twice and another never."""
    if len({part.count for part in shards.values()}) > 1:
        return  # not shards of one split at all: _check_shards says so
    splits: dict[str, list[str]] = {}
    for part in sorted(shards.values(), key=lambda part: part.index):
        splits.setdefault(part.split, []).append(_shard_name(part))
    if len(splits) > 1:
        described = "; ".join(f"{', '.join(names)} by {split}" for split, names in splits.items())
        raise UserError(
            f"the shards cut the suite in different ways ({described}): together they may run "
            "a spec twice and another never; fix: run every shard of the workflow again (new "
            "durations were published while its shards started, or a shard could not read "
            "them), or give every shard the same --shard-durations file"
        )
