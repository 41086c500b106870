"""The remote cache of a process (``RemoteSession``, which the process's ``Scheduler`` holds),
and what one doit call's processes tell each other about it through files.

A doit call may act in several processes: doit's own and ``doit -n N``'s workers. Each keeps one
``RemoteCache`` (its connection pool, upload threads and counters), made on first use; a forked
worker makes its own (a pool's sockets and threads do not survive a fork). What must reach the
summary, or the other processes, goes through small files of the call's session in the state
folder, each written atomically:

- ``<session>-<pid>.json``: this process's counts, and the (mode, spec id) pairs whose results
  came from the cache, for the summary's line and its ``(remote)`` marks;
- ``<session>.off``: the cache is off for the rest of the call (the server failed once);
- ``<session>.warned-<digest>``: a warning was printed, so no other process prints it again.

The summary removes the files of earlier sessions.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from astest_tasks.core.atomic import create_text_atomic, write_text_atomic
from astest_tasks.core.frozen import frozen
from astest_tasks.core.guest_text import for_stream, inert_field
from astest_tasks.core.json_text import parse_json
from astest_tasks.core.records import decode, encode
from astest_tasks.core.state_files import read_state_file
from astest_tasks.remote.counters import RemoteCounts
from astest_tasks.remote.remote_use import RemoteUse

if TYPE_CHECKING:
    from astest_tasks.remote.http_cache import RemoteCache


class RemoteSession:
    """The remote cache of one process: its client for the current call (its connection pool,
    upload threads and counters) and the results it served. The process's ``Scheduler`` holds
    it (schedule/scheduler.py); a forked child gets a new one and never touches its parent's."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._use: RemoteUse | None = None
        self._cache: RemoteCache | None = None
        self._served: set[tuple[str, str]] = set()

    def client(self, use: RemoteUse) -> RemoteCache | None:
        """The client for ``use``; None once the cache is off for this call (in this process
        or another)."""
        if _off_marker(use).exists():
            return None
        replaced = None
        with self._lock:
            if self._cache is None or self._use != use:
                # Here, not at import: a run without a cache never loads urllib3, http.client
                # and ssl (issue 40's no-change floor).
                from astest_tasks.remote.http_cache import RemoteCache

                replaced = self._cache  # an earlier call of this process (watch mode's cycle)
                self._cache = RemoteCache(
                    use.settings, warn=lambda text: _warn_once_per_call(use, text)
                )
                self._use = use
                self._served = set()
            cache = self._cache
        if replaced is not None:
            replaced.close()  # its summary has waited for its uploads already
        if not cache.active:
            _mark_off(use)
            return None
        return cache

    def note_served(self, use: RemoteUse, mode: str, spec_id: str) -> None:
        """A result of this call came from the cache: the summary marks it ``(remote)``."""
        with self._lock:
            if self._use == use:
                self._served.add((mode, spec_id))

    def publish(self, use: RemoteUse, *, wait_for_uploads: bool) -> None:
        """Write this process's counts for the summary; ``wait_for_uploads`` first lets every
        queued upload end (a worker whose summary runs elsewhere, or the summary's own)."""
        with self._lock:
            cache = self._cache if self._use == use else None
            served = sorted(self._served)
        if cache is None:
            return
        if wait_for_uploads:
            cache.flush()
        if not cache.active:
            _mark_off(use)
        own = ProcessCounts(use.session, cache.counts(), tuple(served))
        own_file = Path(use.state_dir) / f"{use.session}-{os.getpid()}.json"
        write_text_atomic(own_file, json.dumps(encode(own)))

    def close(self) -> None:
        """At exit: queued uploads end (an entry goes only after its blobs), then the pool."""
        with self._lock:
            cache, self._cache, self._use = self._cache, None, None
        if cache is not None:
            with contextlib.suppress(Exception):  # never raises: it runs at exit
                cache.close()


@frozen
class ProcessCounts:
    """One process's file, ``<session>-<pid>.json``: what its cache did, and the (mode, spec
    id) pairs whose results came from the cache. Written and read through the record codec."""

    session: str
    counts: RemoteCounts
    served: tuple[tuple[str, str], ...] = ()


@frozen
class CallCounts:
    counts: RemoteCounts
    served: frozenset[tuple[str, str]]


def read_call_counts(state_dir: Path, session: str) -> CallCounts:
    """The counts of every process of the call ``session``, added up; files of earlier calls are
    removed (one call at a time holds the project's lock)."""
    hits = misses = uploaded = uploaded_bytes = 0
    served: set[tuple[str, str]] = set()
    try:
        names = sorted(os.listdir(state_dir))
    except OSError:
        names = []
    for name in names:
        path = state_dir / name
        if not name.startswith(session):
            _remove(path)
            continue
        if not name.endswith(".json"):
            continue
        text = read_state_file(path)
        if text is None:
            continue  # gone, or not ours to read (core/state_files.py)
        try:
            own = decode(ProcessCounts, parse_json(text))
        except ValueError:  # RecordError is a ValueError: a damaged file counts none
            continue
        counts = own.counts
        if own.session != session or min(dataclasses.astuple(counts)) < 0:
            continue
        hits += counts.hits
        misses += counts.misses
        uploaded += counts.uploaded
        uploaded_bytes += counts.uploaded_bytes
        served.update(own.served)
    return CallCounts(RemoteCounts(hits, misses, uploaded, uploaded_bytes), frozenset(served))


def _remove(path: Path) -> None:
    # Another call's file that is already gone, or a folder: not ours to force.
    with contextlib.suppress(OSError):
        path.unlink()


def _off_marker(use: RemoteUse) -> Path:
    return Path(use.state_dir) / f"{use.session}.off"


def _mark_off(use: RemoteUse) -> None:
    # Without it each process finds out for itself, with the same single warning.
    with contextlib.suppress(OSError):
        create_text_atomic(_off_marker(use), "the remote cache failed once in this call\n")


def _warn_once_per_call(use: RemoteUse, text: str) -> None:
    """Print a warning once per doit call, whichever of its processes meets it first."""
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    try:
        first = create_text_atomic(Path(use.state_dir) / f"{use.session}.warned-{digest}", "")
    except OSError:
        first = True  # no state folder to agree through: better twice than never
    if first:
        sys.stderr.write(for_stream(f"WARNING: {inert_field(text)}\n", sys.stderr))
        sys.stderr.flush()
