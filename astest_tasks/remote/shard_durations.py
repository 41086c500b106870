"""The shards' durations in the shared cache: ``astest merge`` publishes each (mode, spec) pair's
wall-clock time, and the next workflow's ``--shard=k/N`` balances its shards by them.

They live under one ``/ac/`` key per project and selection (``durations_key``: the config file's
path in the project, the task creator's name and the modes; no commit, since the next workflow
runs on another one, and no shard count, since any N splits by the same times). The entry names
one ``/cas/`` blob, ``{"format": 1, "durations": {"mode:spec-id": seconds}}``, and is signed like
every entry (entries.py). Shards only read it; only a merge writes it.

What a shard reads is untrusted: an entry that is unsigned, forged, names other blobs, or a blob
that is larger than ``MAX_DURATIONS_BYTES``, not JSON, or holds anything but pair names and
finite, non-negative seconds is ignored with one warning, and the shard splits by hash.

Two shards of one workflow read the entry at different times, so a merge published between
them may give them different durations. Each shard's report names its split (every pair's
shard, digested: ``config/shards.py``'s ``split_name``) and ``astest merge`` refuses shards
whose splits differ.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from astest_tasks.core.frozen import frozen
from astest_tasks.core.json_text import finite_number, parse_json
from astest_tasks.remote.entries import canonical_json
from astest_tasks.remote.portable_keys import remote_key
from astest_tasks.remote.settings import RemoteSettings

if TYPE_CHECKING:
    from astest_tasks.remote.http_cache import RemoteCache

DURATIONS_KIND = "shard-durations"
DURATIONS_FORMAT = 1
BLOB_NAME = "durations"
# About 30,000 pairs with names of 100 characters: a suite larger than that is not ours to
# balance from a cache, and a larger blob is garbage that would only cost memory.
MAX_DURATIONS_BYTES = 4 * 2**20
MAX_PAIR_NAME = 1000  # characters of one "mode:spec-id"
MAX_SECONDS = 10**7  # about four months: a larger time is no spec's

Warn = Callable[[str], None]


def durations_key(config_path: str, basename: str, modes: list[str]) -> str:
    """The ``/ac/`` key of a project's published durations: what two workflows must share to
    balance by each other's times (``config_path`` relative to the project, ``/``-separated)."""
    identity = {"config": config_path, "creator": basename, "modes": sorted(modes)}
    return remote_key(DURATIONS_KIND, {}, {}, {"identity": identity})


@frozen
class SharedDurations:
    """Where a shard finds the durations a merge published: the cache and the entry's key."""

    settings: RemoteSettings
    key: str

    def read(self, warn: Warn) -> dict[str, float]:
        """The published durations; {} when there are none yet, the cache cannot be reached,
        or what it holds is not usable (each said in one warning)."""
        from astest_tasks.remote.http_cache import RemoteCache  # only when a shard asks

        with RemoteCache(self.settings, warn=warn) as cache:
            return read_durations(cache, self.key, warn)


def read_durations(cache: RemoteCache, key: str, warn: Warn) -> dict[str, float]:
    entry = cache.get_entry(key)  # a bad signature or a garbage answer: warned there, None
    if entry is None:
        return {}
    digest = entry.blobs.get(BLOB_NAME)
    if set(entry.blobs) != {BLOB_NAME} or digest is None:
        _ignored(cache, warn, "its entry names other blobs")
        return {}
    data = cache.read_blob(digest, MAX_DURATIONS_BYTES)
    if data is None:  # missing, larger than the cap or other bytes: warned there
        return {}
    try:
        return decode_durations(data)
    except ValueError as exc:
        _ignored(cache, warn, str(exc))
        return {}


def _ignored(cache: RemoteCache, warn: Warn, why: str) -> None:
    warn(
        f"remote cache {cache.settings.base_url}: the shard durations it holds are ignored "
        f"({why}); splitting the shards by hash"
    )


def encode_durations(durations: Mapping[str, float]) -> bytes:
    """The blob of ``durations``, leaving out any pair a shard would refuse to read (a name too
    long, a time not finite or out of range): one such pair must not spoil the rest."""
    kept = {name: seconds for name, seconds in durations.items() if _readable(name, seconds)}
    data = canonical_json({"format": DURATIONS_FORMAT, "durations": kept})
    if len(data) > MAX_DURATIONS_BYTES:
        raise ValueError(
            f"the durations of {len(durations)} pairs take {len(data)} bytes, more than the "
            f"{MAX_DURATIONS_BYTES} a shard reads"
        )
    return data


def _readable(name: object, seconds: object) -> bool:
    return _pair_name(name) and _seconds(seconds) is not None


def _pair_name(name: object) -> bool:
    return isinstance(name, str) and 0 < len(name) <= MAX_PAIR_NAME and ":" in name


def _seconds(value: object) -> float | None:
    """A duration from 0 to ``MAX_SECONDS`` (a JSON number as ``finite_number`` reads one), or
    None."""
    seconds = finite_number(value)
    return seconds if seconds is not None and 0 <= seconds <= MAX_SECONDS else None


def decode_durations(data: bytes) -> dict[str, float]:
    """The durations of a blob; ``ValueError`` saying what is wrong with it."""
    document = parse_json(data)
    if not isinstance(document, dict) or document.get("format") != DURATIONS_FORMAT:
        raise ValueError(f"not in format {DURATIONS_FORMAT}")
    durations = document.get("durations")
    if not isinstance(durations, dict):
        raise ValueError("no durations in it")
    decoded: dict[str, float] = {}
    for name, value in durations.items():
        if not _pair_name(name):
            raise ValueError("a pair's name is not mode:spec-id")
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError("a duration is not a number")
        seconds = _seconds(value)
        if seconds is None:
            raise ValueError("a duration is not a number of seconds")
        decoded[name] = seconds
    return decoded


def publish_durations(cache: RemoteCache, key: str, durations: Mapping[str, float]) -> str:
    """Queue the durations for upload under ``key`` (stored once the cache is flushed); the
    blob's digest, for the message that says so."""
    data = encode_durations(durations)
    cache.store(key, {BLOB_NAME: data}, {"pairs": len(durations)})
    return hashlib.sha256(data).hexdigest()
