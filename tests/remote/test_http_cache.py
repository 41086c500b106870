"""The remote-cache client against a real nginx WebDAV server (tests/nginx_cache.py)."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import os
import socket
import subprocess
import tempfile
import threading
import tracemalloc
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from astest_tasks.remote.entries import Entry, decode_entry, encode_entry
from astest_tasks.remote.http_cache import RemoteCache
from astest_tasks.remote.settings import RemoteMode, parse_settings
from tests.conftest import peak_of
from tests.nginx_cache import PASSWORD, TOKEN, CacheServer, free_port

KEY = hashlib.sha256(b"one build's inputs").hexdigest()
WASM = b"\0asm\1\0\0\0 a compiled spec"
RECORD = b'{"spec": "math.spec.ts"}'


class Warnings(list[str]):
    def __call__(self, message: str) -> None:
        self.append(message)


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def client(url: str, warnings: Warnings, **options: object) -> RemoteCache:
    return RemoteCache(parse_settings(url, **options), warn=warnings)  # type: ignore[arg-type]


def take(
    cache: RemoteCache, key: str, names: tuple[str, ...] = ("wasm",)
) -> dict[str, bytes] | None:
    """What a task would take for ``key``: the bytes of the files its blobs became; None on a
    miss, which must leave nothing in the folder (no file, no temporary one)."""
    with tempfile.TemporaryDirectory() as folder:
        destinations = {name: Path(folder) / name for name in names}
        taken = cache.fetch(key, destinations, lambda staged: staged.meta)
        if taken is None:
            assert os.listdir(folder) == []
            return None
        return {name: path.read_bytes() for name, path in destinations.items()}


def blob(cache: RemoteCache, digest: str) -> bytes | None:
    with tempfile.TemporaryDirectory() as folder:
        if not cache.download_blob(digest, Path(folder) / "blob"):
            assert os.listdir(folder) == []
            return None
        return (Path(folder) / "blob").read_bytes()


def methods(server: CacheServer, until: str) -> list[str]:
    """The request methods nginx logged up to ``until``, e.g. ``["HEAD", "PUT", ...]``."""
    return [line.split('"')[1].split()[0] for line in server.access_log(until)]


@pytest.fixture
def warnings() -> Iterator[Warnings]:
    yield Warnings()


def test_a_stored_build_comes_back_whole(cache_server: CacheServer, warnings: Warnings) -> None:
    with client(cache_server.url(), warnings) as writer:
        writer.store(KEY, {"wasm": WASM, "record": RECORD}, {"verdict": "ok"})
        writer.flush()
        assert writer.counts().uploaded == 1
        assert writer.counts().uploaded_bytes > len(WASM) + len(RECORD)
    assert (cache_server.stored / "cas" / sha(WASM)).read_bytes() == WASM
    assert (cache_server.stored / "ac" / KEY).exists()
    with client(cache_server.url(), warnings) as reader:
        with tempfile.TemporaryDirectory() as folder:
            destinations = {"wasm": Path(folder) / "out.wasm", "record": Path(folder) / "rec"}
            meta = reader.fetch(KEY, destinations, lambda staged: staged.meta)
            assert destinations["wasm"].read_bytes() == WASM
            assert destinations["record"].read_bytes() == RECORD
            assert sorted(os.listdir(folder)) == ["out.wasm", "rec"]  # no temporary file left
        assert blob(reader, sha(RECORD)) == RECORD
        assert reader.counts().hits == 1
    assert meta == {"verdict": "ok"}
    assert warnings == []


def test_an_unknown_key_is_a_miss(cache_server: CacheServer, warnings: Warnings) -> None:
    with client(cache_server.url(), warnings) as cache:
        assert take(cache, KEY) is None
        assert blob(cache, sha(b"never stored")) is None
        assert (cache.counts().hits, cache.counts().misses) == (0, 1)
        assert cache.active
    assert " 404 " in cache_server.access_log(until="GET /cache/cas/")[-1]
    assert warnings == []


def test_a_blob_changed_on_the_server_is_a_miss_with_one_warning(
    cache_server: CacheServer, warnings: Warnings
) -> None:
    with client(cache_server.url(), warnings) as cache:
        cache.store(KEY, {"wasm": WASM}, {})
        cache.flush()
        (cache_server.stored / "cas" / sha(WASM)).write_bytes(b"\0asm tampered")
        assert take(cache, KEY) is None
        assert take(cache, KEY) is None
        assert cache.active  # the server works; one blob on it is wrong
    assert len(warnings) == 1
    assert "does not hash to its name" in warnings[0]


def test_an_entry_with_a_bad_or_missing_signature_is_a_miss(
    cache_server: CacheServer, warnings: Warnings
) -> None:
    with client(cache_server.url(), warnings, signing_key="team secret") as signed:
        signed.store(KEY, {"wasm": WASM}, {})
        signed.flush()
        assert take(signed, KEY) is not None
    with client(cache_server.url(), warnings, signing_key="another key") as other:
        assert take(other, KEY) is None
    unsigned_key = sha(b"written by a client without the key")
    with client(cache_server.url(), warnings) as unsigned:
        unsigned.store(unsigned_key, {"wasm": WASM}, {})
        unsigned.flush()
    with client(cache_server.url(), warnings, signing_key="team secret") as signed:
        assert take(signed, unsigned_key) is None
        # a signed entry copied under another key does not verify either
        entry = (cache_server.stored / "ac" / KEY).read_bytes()
        (cache_server.stored / "ac" / unsigned_key).write_bytes(entry)
        assert take(signed, unsigned_key) is None
    assert any("signature does not match" in w for w in warnings)
    assert any("not signed" in w for w in warnings)
    assert not any("team secret" in w for w in warnings)


def test_a_signed_entry_holding_a_lone_surrogate_is_a_counted_miss_with_one_warning(
    cache_server: CacheServer, warnings: Warnings
) -> None:
    with client(cache_server.url(), warnings, signing_key="team secret") as signed:
        signed.store(KEY, {"wasm": WASM}, {"spec": "math.spec.ts"})
        signed.flush()
        stored = cache_server.stored / "ac" / KEY
        stored.write_bytes(stored.read_bytes().replace(b"math.spec.ts", b"\\ud800"))
        assert take(signed, KEY) is None
        assert signed.active  # one entry is bad, not the server
        assert (signed.counts().hits, signed.counts().misses) == (0, 1)
    assert len(warnings) == 1
    assert "an entry is refused: the entry holds text that is not Unicode" in warnings[0]


def test_credentials_from_the_url_or_a_header_open_a_private_cache(
    cache_server: CacheServer, warnings: Warnings
) -> None:
    url = cache_server.url("private").replace("http://", f"http://ci:{PASSWORD}@")
    with client(url, warnings) as writer:
        writer.store(KEY, {"wasm": WASM}, {})
        writer.flush()
        assert writer.counts().uploaded == 1
    basic = "Basic " + base64.b64encode(f"ci:{PASSWORD}".encode()).decode()
    with client(cache_server.url("private"), warnings, header=f"Authorization: {basic}") as reader:
        assert take(reader, KEY) is not None
    assert warnings == []


def test_a_query_in_the_url_reaches_the_server_with_every_request_and_no_message(
    cache_server: CacheServer, warnings: Warnings
) -> None:
    """A server that checks a token in the query (/tokened/ answers 403 without it) is used
    with the URL the user gave, query and all; it was dropped before, so every request failed."""
    with client(f"{cache_server.url('tokened')}?token={TOKEN}", warnings) as writer:
        writer.store(KEY, {"wasm": WASM}, {})
        writer.flush()
        assert writer.counts().uploaded == 1
    with client(f"{cache_server.url('tokened')}?token={TOKEN}", warnings) as reader:
        assert take(reader, KEY) == {"wasm": WASM} and reader.counts().hits == 1
    assert warnings == []
    requests = cache_server.access_log(until=f"GET /tokened/cas/{sha(WASM)}")
    ours = [line for line in requests if "/tokened/" in line]
    assert {line.split('"')[1].split()[0] for line in ours} == {"HEAD", "PUT", "GET"}
    assert all(f"?token={TOKEN} " in line and '" 403 ' not in line for line in ours)
    with client(f"{cache_server.url('tokened')}?token=wrong-t0ken", warnings) as refused:
        assert take(refused, KEY) is None
    assert len(warnings) == 1 and "HTTP 403" in warnings[0]
    assert "t0ken" not in warnings[0] and "?" not in warnings[0]


def test_wrong_credentials_cost_one_warning_without_the_password(
    cache_server: CacheServer, warnings: Warnings
) -> None:
    url = cache_server.url("private").replace("http://", "http://ci:wrong-pa55@")
    with client(url, warnings) as cache:
        assert take(cache, KEY) is None
        assert not cache.active
    assert len(warnings) == 1
    assert "HTTP 401" in warnings[0] and "fix:" in warnings[0]
    assert "wrong-pa55" not in warnings[0] and "ci:" not in warnings[0]


def test_a_server_that_is_down_costs_one_warning_and_turns_the_cache_off(
    warnings: Warnings,
) -> None:
    url = f"http://user:hunter2@127.0.0.1:{free_port()}/cache"  # nothing listens there
    with client(url, warnings) as cache:
        assert take(cache, KEY) is None
        assert not cache.active
        assert take(cache, KEY) is None
        cache.store(KEY, {"wasm": WASM}, {})
        cache.flush()
        assert cache.counts().misses == 2
        assert cache.counts().uploaded == 0
    assert len(warnings) == 1
    assert "cannot connect" in warnings[0]
    assert "hunter2" not in warnings[0] and "user" not in warnings[0]


def test_a_server_that_never_answers_is_given_up_after_the_request_timeout(
    warnings: Warnings,
) -> None:
    # A socket that listens but never accepts: the kernel completes the connection, no answer
    # ever comes, as from a hung server.
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/cache"
        with client(url, warnings, request_timeout=0.3) as cache:
            assert take(cache, KEY) is None
            assert not cache.active
    assert len(warnings) == 1
    assert "request timeout" in warnings[0]


def trickle(listener: socket.socket, stop: threading.Event) -> None:
    """A server that answers 200 and then sends its body a byte at a time; it gives up after
    100 bytes (5 s), so that a client without a deadline fails this test instead of hanging."""
    connection, _ = listener.accept()
    with connection:
        connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000000\r\n\r\n")
        for _ in range(100):
            if stop.wait(0.05):
                return
            try:
                connection.sendall(b"x")
            except OSError:
                return  # the client gave up and closed its end


def test_a_server_that_trickles_its_answer_is_given_up_after_the_request_timeout(
    warnings: Warnings,
) -> None:
    """urllib3's read timeout bounds each read, and every read here gets its byte in time:
    only a deadline over the whole request ends it."""
    stop = threading.Event()
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        server = threading.Thread(target=trickle, args=(listener, stop), daemon=True)
        server.start()
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/cache"
        try:
            with client(url, warnings, request_timeout=0.5) as cache:
                assert take(cache, KEY) is None
                assert not cache.active
        finally:
            stop.set()
            server.join(10)
    assert len(warnings) == 1
    assert "took longer than the request timeout" in warnings[0]


FLOOD_BYTES = 32 * 2**20
_FLOOD_CHUNK = bytes(2**16)  # made once: the server's writes allocate nothing while measured


@contextlib.contextmanager
def flooding_server(status: int) -> Iterator[str]:
    """A real HTTP server on loopback (nginx sends no such answer) whose every GET and PUT is
    answered with ``status`` and a body of FLOOD_BYTES, and every HEAD with a bare 404. Its URL
    is yielded. A client that drops the rest of the body makes its writes fail: it stops."""

    class Flooding(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            pass

        def flood(self) -> None:
            self.send_response(status)
            self.send_header("Content-Length", str(FLOOD_BYTES))
            self.end_headers()
            try:
                for _ in range(FLOOD_BYTES // len(_FLOOD_CHUNK)):
                    self.wfile.write(_FLOOD_CHUNK)
            except OSError:
                self.close_connection = True  # the client closed its end, as it should

        def do_GET(self) -> None:
            self.flood()

        def do_PUT(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            self.flood()

        def do_HEAD(self) -> None:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Flooding)
    serving = threading.Thread(target=server.serve_forever, daemon=True)
    serving.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/cache"
    finally:
        server.shutdown()
        server.server_close()
        serving.join(10)


@pytest.mark.parametrize("status", [404, 418])
def test_a_lookup_answered_with_a_huge_error_page_drops_it_unread(
    warnings: Warnings, status: int
) -> None:
    """Only a blob's 200 is read on: a 404 or a refusal with 32 MiB of body was read whole into
    memory (up to 1000 MiB). Now a few KiB at most, then the connection is closed."""
    with flooding_server(status) as url, client(url, warnings) as cache:
        found, peak = peak_of(lambda: blob(cache, sha(WASM)))
        assert found is None
        assert cache.active is (status == 404)  # a 404 is a miss; a 418 turns the cache off
    assert peak < 2**20, f"an answer of {FLOOD_BYTES >> 20} MiB peaked at {peak >> 20} MiB"
    if status == 404:
        assert warnings == []
    else:
        assert len(warnings) == 1 and "GET answered HTTP 418" in warnings[0]


@pytest.mark.parametrize("status", [201, 403])
def test_an_upload_answered_with_a_huge_body_drops_it_unread(
    warnings: Warnings, status: int
) -> None:
    """A PUT's answer says stored (201) or refused (403) by its status alone; its body, 32 MiB
    here, was read whole into memory too."""
    with flooding_server(status) as url, client(url, warnings) as cache:

        def upload() -> tuple[int, int]:
            cache.store(KEY, {"wasm": WASM}, {})
            cache.flush()
            return cache.counts().uploaded, cache.counts().uploaded_bytes

        uploaded, peak = peak_of(upload)
    assert peak < 2**20, f"an answer of {FLOOD_BYTES >> 20} MiB peaked at {peak >> 20} MiB"
    if status == 201:
        assert uploaded[0] == 1 and uploaded[1] > len(WASM)  # the blob, then its entry
        assert warnings == []
    else:
        assert uploaded == (0, 0)
        assert len(warnings) == 1 and "PUT answered HTTP 403" in warnings[0]


@pytest.mark.parametrize("location", ["broken", "garbage"])
def test_a_server_answering_errors_or_garbage_is_a_miss(
    cache_server: CacheServer, warnings: Warnings, location: str
) -> None:
    with client(cache_server.url(location), warnings) as cache:
        assert take(cache, KEY) is None
        assert blob(cache, sha(WASM)) is None
        cache.store(sha(b"other"), {"wasm": WASM}, {})
        cache.flush()
        assert cache.counts().uploaded == 0
    assert len(warnings) == 1, warnings


def test_read_mode_never_writes(cache_server: CacheServer, warnings: Warnings) -> None:
    with client(cache_server.url(), warnings, mode=RemoteMode.READ) as cache:
        cache.store(KEY, {"wasm": WASM}, {})
        cache.flush()
        assert take(cache, KEY) is None
    assert methods(cache_server, until=f"GET /cache/ac/{KEY}") == ["GET"]
    assert not (cache_server.stored / "ac").exists()


def test_a_server_refusing_writes_stops_the_uploads_with_one_warning(
    cache_server: CacheServer, warnings: Warnings
) -> None:
    with client(cache_server.url("readonly"), warnings) as cache:
        cache.store(KEY, {"wasm": WASM}, {})
        cache.store(sha(b"second"), {"wasm": WASM + b"2"}, {})
        cache.flush()
        assert cache.counts().uploaded == 0
        assert cache.active  # reading still works
    assert len(warnings) == 1
    assert "HTTP 403" in warnings[0] and "read mode" in warnings[0]
    assert not (cache_server.stored / "ac").exists()


@pytest.mark.parametrize(("location", "status"), [("full", 507), ("small", 413)])
def test_a_full_server_is_a_warning_not_a_failure(
    cache_server: CacheServer, warnings: Warnings, location: str, status: int
) -> None:
    big = WASM * 100  # over /small/'s limit; the entry naming it is not
    with client(cache_server.url(location), warnings) as cache:
        cache.store(KEY, {"wasm": big}, {})
        cache.flush()
        assert cache.counts().uploaded == 0
        assert cache.active  # reading goes on
    assert len(warnings) == 1
    assert f"full (HTTP {status})" in warnings[0]
    # the entry goes last: with its blob refused, no entry names a blob the server lacks
    assert not (cache_server.stored / "ac" / KEY).exists()


def test_two_clients_uploading_at_once_both_land(
    cache_server: CacheServer, warnings: Warnings
) -> None:
    blobs = {f"blob{i}": bytes([i]) * 200_000 for i in range(6)}
    keys = [sha(f"run {i}".encode()) for i in range(6)]
    start = threading.Barrier(2)

    def upload(cache: RemoteCache, offset: int) -> None:
        start.wait()
        for index, key in enumerate(keys):
            name = f"blob{(index + offset) % 6}"
            cache.store(key, {name: blobs[name], "shared": b"same bytes"}, {"by": offset})
        cache.flush()

    with (
        client(cache_server.url(), warnings) as first,
        client(cache_server.url(), warnings) as second,
    ):
        threads = [
            threading.Thread(target=upload, args=(first, 0)),
            threading.Thread(target=upload, args=(second, 3)),
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    with client(cache_server.url(), warnings) as reader:
        for key in keys:
            entry = decode_entry(key, (cache_server.stored / "ac" / key).read_bytes(), None)
            fetched = take(reader, key, tuple(entry.blobs))  # whichever client's entry won
            assert fetched is not None
            assert fetched["shared"] == b"same bytes"
    assert warnings == []


def test_a_large_blob_streams_to_its_file_and_is_never_held_whole(
    cache_server: CacheServer, warnings: Warnings, tmp_path: Path
) -> None:
    """A lookup's memory does not grow with the blob: 128 MiB served by nginx cost over twice
    that (every chunk, then their join) before; now the blob streams into a temporary file beside
    its destination, hashed as it comes. tracemalloc counts every Python allocation, the
    socket's reads included, so the peak is deterministic up to a few buffers."""
    size = 128 * 2**20
    chunk = hashlib.sha256(b"seed").digest() * 2048  # 64 KiB
    sha256 = hashlib.sha256()
    (cache_server.stored / "cas").mkdir(parents=True)
    staging = cache_server.stored / "cas" / "large.part"
    with staging.open("wb") as file:
        for index in range(size // len(chunk)):
            piece = index.to_bytes(4, "big") + chunk[4:]
            sha256.update(piece)
            file.write(piece)
    digest = sha256.hexdigest()
    staging.rename(cache_server.stored / "cas" / digest)
    (cache_server.stored / "ac").mkdir()
    entry = encode_entry(KEY, Entry(blobs={"wasm": digest}, meta={}), None)
    (cache_server.stored / "ac" / KEY).write_bytes(entry)
    destination = tmp_path / "build" / "large.wasm"
    destination.parent.mkdir()
    with client(cache_server.url(), warnings, request_timeout=300) as cache:
        tracemalloc.start()
        try:
            taken = cache.fetch(KEY, {"wasm": destination}, lambda staged: staged.digests)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert taken == {"wasm": digest} and warnings == []
    assert destination.stat().st_size == size
    assert os.listdir(destination.parent) == ["large.wasm"]
    assert peak < 8 * 2**20, f"a lookup of a {size >> 20} MiB blob peaked at {peak >> 20} MiB"


def test_a_blob_that_does_not_hash_to_its_name_leaves_nothing_and_keeps_the_old_file(
    cache_server: CacheServer, warnings: Warnings, tmp_path: Path
) -> None:
    (tmp_path / "build").mkdir()  # tmp_path holds nginx's folder too
    destination = tmp_path / "build" / "spec.wasm"
    destination.write_bytes(b"the module built here")
    with client(cache_server.url(), warnings) as cache:
        cache.store(KEY, {"wasm": WASM}, {})
        cache.flush()
        (cache_server.stored / "cas" / sha(WASM)).write_bytes(WASM * 10_000 + b"!")
        assert cache.fetch(KEY, {"wasm": destination}, lambda _: True) is None
        assert (cache.counts().hits, cache.counts().misses) == (0, 1)
    assert destination.read_bytes() == b"the module built here"
    assert os.listdir(destination.parent) == ["spec.wasm"]  # no temporary file either
    assert len(warnings) == 1 and "does not hash to its name" in warnings[0]


def test_an_entry_judged_unusable_writes_nothing(
    cache_server: CacheServer, warnings: Warnings, tmp_path: Path
) -> None:
    build = tmp_path / "build"
    with client(cache_server.url(), warnings) as cache:
        cache.store(KEY, {"wasm": WASM, "record": RECORD}, {})
        cache.flush()
        destinations = {"wasm": build / "a.wasm", "record": build / "a.json"}
        assert cache.fetch(KEY, destinations, lambda _: None) is None
        # an entry naming other blobs than the task's files is not downloaded at all
        assert cache.fetch(KEY, {"wasm": build / "a.wasm"}, lambda _: True) is None
        assert (cache.counts().hits, cache.counts().misses) == (0, 2)
    assert not build.exists() or os.listdir(build) == []
    assert warnings == []


def test_an_oversized_entry_is_garbage_not_memory(
    cache_server: CacheServer, warnings: Warnings
) -> None:
    (cache_server.stored / "ac").mkdir(parents=True)
    (cache_server.stored / "ac" / KEY).write_bytes(b"{" + b" " * 2**21 + b"}")
    with client(cache_server.url(), warnings) as cache:
        assert take(cache, KEY) is None
        assert not cache.active
    assert len(warnings) == 1 and "answered more than 1 MiB" in warnings[0]


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A real 1 MiB tmpfs: a disk that fills (we are root here and in CI)."""
    mount_point = tmp_path / "small-disk"
    mount_point.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount_point)],
        capture_output=True,
        text=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root): {mounted.stderr.strip()}")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", str(mount_point)], check=True)


def test_a_disk_that_fills_during_a_download_is_a_miss_that_keeps_the_old_file(
    cache_server: CacheServer, warnings: Warnings, small_disk: Path
) -> None:
    destination = small_disk / "spec.wasm"
    destination.write_bytes(b"the module built here")
    big = WASM * 200_000  # 6 MB, on a disk of 1 MiB
    with client(cache_server.url(), warnings) as cache:
        cache.store(KEY, {"wasm": big}, {})
        cache.flush()
        assert cache.fetch(KEY, {"wasm": destination}, lambda _: True) is None
        assert cache.active  # our disk is full, the server is fine: the next lookup may hit
        assert (cache.counts().hits, cache.counts().misses) == (0, 1)
    assert destination.read_bytes() == b"the module built here"
    assert os.listdir(small_disk) == ["spec.wasm"]  # the temporary file is gone, space freed
    assert len(warnings) == 1
    assert "cannot be written here (No space left on device); treated as a miss" in warnings[0]
