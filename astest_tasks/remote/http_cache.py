"""A client of Bazel's HTTP remote-cache protocol: ``GET``/``PUT``/``HEAD`` on
``{url}/cas/<sha256>`` (a blob named by the SHA-256 of its bytes) and ``{url}/ac/<sha256>`` (an
entry naming the blobs of one build or run). 404 is a miss. The same client works against nginx
WebDAV, bazel-remote (``--disable_http_ac_validation``), Apache and lighttpd.

A remote cache only ever speeds a run up, so no failure of it may break one: a server that is
down, refuses, is slow or answers garbage costs one warning line, and the client then answers
every lookup with a miss and uploads nothing for the rest of the run. A full server (507, 413)
stops the uploads only. Uploads run on a small thread pool beside the work; an entry is PUT only
after all its blobs are stored, so an interrupted run leaves blobs nobody names, never an entry
naming blobs that are missing.

A blob is never held whole: it streams into a temporary file beside the file it becomes, hashed
as it comes, and takes that file's place by one rename only once its hash matches and the task
that asked has judged the entry usable; anything else leaves nothing behind.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

import urllib3

from astest_tasks.core.atomic import create_staged, install_staged, staging_name
from astest_tasks.core.frozen import frozen
from astest_tasks.core.guest_text import for_stream, inert_field
from astest_tasks.remote.counters import RemoteCounters, RemoteCounts
from astest_tasks.remote.entries import (
    Entry,
    EntryRejected,
    NotAnEntry,
    decode_entry,
    encode_entry,
)
from astest_tasks.remote.settings import HEADER_VARIABLE, RemoteMode, RemoteSettings

UPLOAD_THREADS = 2
# A body larger than this is no entry or blob of ours: a server sending without end.
MAX_BODY_BYTES = 1024 * 2**20
# An entry names a few blobs (about 300 bytes each) and a line of metadata: one of over a MiB
# is garbage, and entries are read into memory.
MAX_ENTRY_BYTES = 2**20
_CHUNK_BYTES = 2**16
# The body of an answer whose status says it all (a 404, a refusal, a PUT's answer): at most
# this much is read, to keep the connection; a larger one closes it.
_DISCARDED_BYTES = 4096
_STORED = frozenset({200, 201, 204})
_FULL = frozenset({413, 507})


def _stderr_warning(message: str) -> None:
    sys.stderr.write(for_stream(f"WARNING: {inert_field(message)}\n", sys.stderr))


T = TypeVar("T")


@frozen
class Staged:
    """An entry's blobs as they wait to be judged: each in a temporary file beside where it
    goes, its bytes already checked against its SHA-256 (``digests``)."""

    meta: Mapping[str, object]
    digests: Mapping[str, str]
    files: Mapping[str, Path]


class _Unusable(Exception):
    """The server cannot be used for the rest of the run; the message says why."""


class _TooLarge(Exception):
    """A blob read into memory is larger than its reader's cap."""


class RemoteCache:
    def __init__(
        self,
        settings: RemoteSettings,
        warn: Callable[[str], None] = _stderr_warning,
        upload_threads: int = UPLOAD_THREADS,
    ) -> None:
        self.settings = settings
        self.counters = RemoteCounters()
        self._warn = warn
        self._lock = threading.Lock()
        self._warned: set[str] = set()
        self._off = False
        self._uploads_off = settings.mode is RemoteMode.READ
        # No retries: a retry against a dead server only doubles the time the run waits for it.
        self._http = urllib3.PoolManager(
            num_pools=2,
            maxsize=upload_threads + 1,
            headers=dict(settings.headers),
            timeout=urllib3.Timeout(
                connect=settings.connect_timeout, total=settings.request_timeout
            ),
            retries=False,
        )
        self._uploads = ThreadPoolExecutor(upload_threads, thread_name_prefix="remote-cache")
        self._pending: list[Future[None]] = []

    # -- state -----------------------------------------------------------------------------------

    @property
    def active(self) -> bool:
        return not self._off

    def counts(self) -> RemoteCounts:
        return self.counters.snapshot()

    def _warn_once(self, kind: str, message: str) -> None:
        with self._lock:
            if kind in self._warned:
                return
            self._warned.add(kind)
        text = f"remote cache {self.settings.base_url}: {message}"
        for secret in self.settings.secrets:
            text = text.replace(secret, "***")
        self._warn(text)

    def _turn_off(self, reason: str) -> None:
        with self._lock:
            already = self._off
            self._off = True
        if not already:
            self._warn_once("off", f"{reason}; running without it for the rest of this run")

    # -- HTTP ------------------------------------------------------------------------------------

    def _request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        sink: Callable[[bytes], None] | None = None,
        limit: int = MAX_BODY_BYTES,
    ) -> tuple[int, bytes]:
        """One request; ``_Unusable`` for anything that says the server cannot serve us. The
        body of a GET's 200 goes to ``sink`` when one is given (then b"" is returned); every
        other answer's body is dropped unread past a few KiB, so b"" is returned."""
        url = self.settings.url(path)
        deadline = time.monotonic() + self.settings.request_timeout
        what = f"{method} /{path.split('/')[0]}/"
        try:
            response = self._http.request(method, url, body=body, preload_content=False)
            if method == "GET" and response.status == 200:
                data = _read_within(response, deadline, what, sink, limit)
            else:  # a miss, a refusal, a PUT's answer: only the status counts
                _discard_body(response, deadline, what)
                data = b""
        except urllib3.exceptions.HTTPError as exc:
            raise _Unusable(_describe(exc)) from None
        if response.status >= 500 and response.status not in _FULL:
            raise _Unusable(f"{what} answered HTTP {response.status}")
        if response.status in (401, 403) and method == "GET":
            raise _Unusable(
                f"GET answered HTTP {response.status}; fix: check the URL's user:password or "
                f"{HEADER_VARIABLE}"
            )
        return response.status, data

    def _get(
        self, path: str, sink: Callable[[bytes], None] | None = None, limit: int = MAX_BODY_BYTES
    ) -> bytes | None:
        """The body of a 200 (into ``sink`` if given, then b""); None for a 404."""
        status, data = self._request("GET", path, sink=sink, limit=limit)
        if status == 404:
            return None
        if status != 200:
            raise _Unusable(f"GET answered HTTP {status}")
        return data

    # -- lookups ---------------------------------------------------------------------------------

    def _download(self, digest: str, temporary: Path) -> bool:
        """Stream the blob named ``digest`` into the new file ``temporary``, hashing it as it
        comes; True only if it is there and hashes to its name. The caller removes the file."""
        sha256 = hashlib.sha256()
        with create_staged(temporary) as file:

            def write(chunk: bytes) -> None:
                sha256.update(chunk)
                file.write(chunk)

            found = self._get(f"cas/{digest}", sink=write)
        if found is None:
            return False
        if sha256.hexdigest() != digest:
            self._warn_once(
                "tampered",
                # No digest in it: one line per kind of problem, whichever process meets it.
                "a blob does not hash to its name (the server stored other bytes); "
                "treated as a miss",
            )
            return False
        return True

    def download_blob(self, digest: str, destination: Path) -> bool:
        """Put the blob named ``digest`` at ``destination`` (not counted); False, with nothing
        written, on a miss, wrong bytes, or with the cache off."""
        found = self._staged_and_installed({}, {"": digest}, {"": destination}, lambda _: True)
        return found is not None

    def read_blob(self, digest: str, limit: int) -> bytes | None:
        """The blob named ``digest``, held in memory (not counted); None, with one warning for
        bytes that are too many or not the named ones, on a miss or with the cache off."""
        if self._off:
            return None
        chunks: list[bytes] = []
        size = 0

        def keep(chunk: bytes) -> None:
            nonlocal size
            size += len(chunk)
            if size > limit:  # before it is kept: a server sending without end costs no memory
                raise _TooLarge
            chunks.append(chunk)

        try:
            found = self._get(f"cas/{digest}", sink=keep)
        except _Unusable as exc:
            self._turn_off(str(exc))
            return None
        except _TooLarge:  # this blob only: the server still serves the others
            self._warn_once("blob-size", f"a blob is larger than {limit} bytes; ignored")
            return None
        data = b"".join(chunks)
        if found is None:
            return None
        if hashlib.sha256(data).hexdigest() != digest:
            self._warn_once(
                "tampered",
                "a blob does not hash to its name (the server stored other bytes); "
                "treated as a miss",
            )
            return None
        return data

    def get_entry(self, action_key: str) -> Entry | None:
        if self._off:
            return None
        try:
            data = self._get(f"ac/{action_key}", limit=MAX_ENTRY_BYTES)
        except _Unusable as exc:
            self._turn_off(str(exc))
            return None
        if data is None:
            return None
        try:
            return decode_entry(action_key, data, self.settings.signing_key)
        except NotAnEntry as exc:
            self._turn_off(f"{exc}: the server answers garbage")
            return None
        except EntryRejected as exc:
            self._warn_once(f"entry:{exc}", f"an entry is refused: {exc}; treated as a miss")
            return None

    def fetch(
        self,
        action_key: str,
        destinations: Mapping[str, Path],
        judge: Callable[[Staged], T | None],
    ) -> T | None:
        """Look ``action_key`` up and put its blobs at ``destinations`` (in their order), counted
        as one hit, if the entry names exactly those blobs, each hashes to its name, and
        ``judge`` finds them usable (its answer is returned). Anything else is one miss that
        writes nothing. The names of files come from ``destinations`` only, never the server."""
        entry = self.get_entry(action_key)
        judged = None
        if entry is not None and set(entry.blobs) == set(destinations):
            judged = self._staged_and_installed(entry.meta, entry.blobs, destinations, judge)
        if judged is None:
            self.counters.miss()
            return None
        self.counters.hit()
        return judged

    def _staged_and_installed(
        self,
        meta: Mapping[str, object],
        digests: Mapping[str, str],
        destinations: Mapping[str, Path],
        judge: Callable[[Staged], T | None],
    ) -> T | None:
        """Each blob streamed into a temporary file beside its destination; if all hash to
        their names and ``judge`` answers, every one renamed into place (in ``destinations``'
        order). Whatever happens, no temporary file outlives the call."""
        staged: dict[str, Path] = {}
        try:
            for name, destination in destinations.items():
                staged[name] = staging_name(destination)  # known before the file exists
                if self._off or not self._download(digests[name], staged[name]):
                    return None
            judged = judge(Staged(meta=meta, digests=dict(digests), files=dict(staged)))
            if judged is not None:
                for name, destination in destinations.items():
                    install_staged(staged.pop(name), destination)
            return judged
        except _Unusable as exc:
            self._turn_off(str(exc))
            return None
        except OSError as exc:  # our disk, not the server: this lookup misses, the next may not
            self._warn_once(
                "disk", f"a blob cannot be written here ({exc.strerror}); treated as a miss"
            )
            return None
        finally:
            for temporary in staged.values():
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(temporary)

    def has_blob(self, digest: str) -> bool:
        return self._has(f"cas/{digest}")

    def has_entry(self, action_key: str) -> bool:
        """Whether an entry is stored under ``action_key`` (not counted: a lookup follows)."""
        return self._has(f"ac/{action_key}")

    def _has(self, path: str) -> bool:
        if self._off:
            return False
        try:
            status, _ = self._request("HEAD", path)
        except _Unusable as exc:
            self._turn_off(str(exc))
            return False
        return status == 200

    # -- uploads ---------------------------------------------------------------------------------

    def store(
        self, action_key: str, blobs: Mapping[str, bytes], meta: Mapping[str, object]
    ) -> None:
        """Queue the blobs and then their entry for upload; nothing in read mode or when off."""
        if self._off or self._uploads_off:
            return
        snapshot = {name: bytes(data) for name, data in blobs.items()}
        future = self._uploads.submit(self._upload, action_key, snapshot, dict(meta))
        with self._lock:
            self._pending.append(future)

    def _upload(
        self, action_key: str, blobs: Mapping[str, bytes], meta: Mapping[str, object]
    ) -> None:
        digests = {name: hashlib.sha256(data).hexdigest() for name, data in blobs.items()}
        sent = 0
        try:
            for name, data in blobs.items():
                if self._off or self._uploads_off:
                    return
                if self.has_blob(digests[name]):
                    continue  # another run stored the same bytes already
                if self._off:
                    return
                if not self._put(f"cas/{digests[name]}", data):
                    return
                sent += len(data)
            document = encode_entry(
                action_key, Entry(blobs=digests, meta=meta), self.settings.signing_key
            )
            if self._off or self._uploads_off or not self._put(f"ac/{action_key}", document):
                return
        except _Unusable as exc:
            self._turn_off(str(exc))
            return
        self.counters.uploaded(sent + len(document))

    def _put(self, path: str, body: bytes) -> bool:
        status, _ = self._request("PUT", path, body)
        if status in _STORED:
            return True
        with self._lock:
            self._uploads_off = True
        if status in _FULL:
            self._warn_once(
                "full", f"the server is full (HTTP {status}); uploads stop for this run"
            )
        else:
            self._warn_once(
                "refused",
                f"PUT answered HTTP {status}; uploads stop for this run "
                "(open the cache in read mode where the server only allows reading)",
            )
        return False

    def flush(self) -> None:
        """Wait until every queued upload has finished (stored, refused or given up)."""
        while True:
            with self._lock:
                pending, self._pending = self._pending, []
            if not pending:
                return
            for future in pending:
                future.result()

    def close(self) -> None:
        self.flush()
        self._uploads.shutdown(wait=True)
        self._http.clear()

    def __enter__(self) -> RemoteCache:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def _read_within(
    response: urllib3.BaseHTTPResponse,
    deadline: float,
    what: str,
    sink: Callable[[bytes], None] | None,
    limit: int,
) -> bytes:
    """The whole body (or b"" once all of it went to ``sink``), by the request's deadline and
    at most ``limit`` bytes: urllib3's read timeout bounds each read, so a server that sends a
    byte a second would hold a run forever, and one that sends without end would fill its
    memory (or, through ``sink``, its disk)."""
    chunks: list[bytes] = []
    size = 0
    try:
        # read1: what one read of the socket gives, not a wait for a whole chunk.
        while chunk := response.read1(_CHUNK_BYTES):
            size += len(chunk)
            if size > limit:
                raise _Unusable(f"{what} answered more than {_size_text(limit)}")
            if time.monotonic() > deadline:
                raise _Unusable(f"{what} took longer than the request timeout to answer")
            if sink is None:
                chunks.append(chunk)
            else:
                sink(chunk)
    except BaseException:
        response.close()  # a body left half read: the connection cannot serve another request
        raise
    response.release_conn()
    return b"".join(chunks)


def _discard_body(response: urllib3.BaseHTTPResponse, deadline: float, what: str) -> None:
    """Drop the body of an answer only its status matters for. A short one (nginx's 404 page)
    is read, so that its connection serves the next request; past ``_DISCARDED_BYTES`` the
    connection is closed instead, whatever the server meant to send: a server answering with
    hundreds of MiB must cost neither memory nor the time to read them."""
    size = 0
    try:
        while chunk := response.read1(_DISCARDED_BYTES):
            size += len(chunk)
            if size > _DISCARDED_BYTES:
                response.close()
                response.release_conn()  # closed: the pool connects it afresh when it is next used
                return
            if time.monotonic() > deadline:
                raise _Unusable(f"{what} took longer than the request timeout to answer")
    except BaseException:
        response.close()
        raise
    response.release_conn()


def _size_text(size: int) -> str:
    return f"{size // 2**30} GiB" if size >= 2**30 else f"{size // 2**20} MiB"


def _describe(exc: urllib3.exceptions.HTTPError) -> str:
    """A short reason without the URL (urllib3's messages repeat it, with its path)."""
    # NewConnectionError is a ConnectTimeoutError in urllib3, so it is asked first.
    if isinstance(exc, urllib3.exceptions.NewConnectionError):
        return "cannot connect (is the server running?)"
    if isinstance(exc, urllib3.exceptions.ConnectTimeoutError):
        return "no connection within the connect timeout"
    if isinstance(exc, urllib3.exceptions.TimeoutError):
        return "no answer within the request timeout"
    if isinstance(exc, urllib3.exceptions.ProtocolError):
        return "the server's answer is not HTTP"
    return f"request failed ({type(exc).__name__})"
