"""Shard durations in the shared cache, against a real nginx WebDAV server: what a merge publishes
comes back whole, and anything else a shard finds there is ignored with one warning."""

from __future__ import annotations

import hashlib
import json
import urllib.request

import pytest

from astest_tasks.remote.http_cache import RemoteCache
from astest_tasks.remote.settings import RemoteMode, parse_settings
from astest_tasks.remote.shard_durations import (
    MAX_DURATIONS_BYTES,
    SharedDurations,
    decode_durations,
    durations_key,
    encode_durations,
    publish_durations,
    read_durations,
)
from tests.nginx_cache import CacheServer
from tests.remote.test_http_cache import Warnings

KEY = durations_key("as-test.config.json", "astest", ["wasi"])
DURATIONS = {"wasi:math": 1.25, "wasi:strings": 0.5}
SIGNING = "the signing key"


@pytest.fixture
def warnings() -> Warnings:
    return Warnings()


def cache(server: CacheServer, warnings: Warnings, signing_key: str = SIGNING) -> RemoteCache:
    return RemoteCache(parse_settings(server.url(), signing_key=signing_key), warn=warnings)


def publish(server: CacheServer, durations: dict[str, float], signing_key: str = SIGNING) -> None:
    with cache(server, Warnings(), signing_key) as writer:
        publish_durations(writer, KEY, durations)


def put_blob(server: CacheServer, data: bytes) -> str:
    digest = hashlib.sha256(data).hexdigest()
    request = urllib.request.Request(f"{server.url()}/cas/{digest}", data=data, method="PUT")
    with urllib.request.urlopen(request) as answer:
        assert answer.status in (200, 201, 204)
    return digest


def test_the_key_is_the_projects_and_selections_not_the_shard_counts() -> None:
    assert durations_key("as-test.config.json", "astest", ["b", "a"]) == durations_key(
        "as-test.config.json", "astest", ["a", "b"]
    )
    others = {
        durations_key("other.config.json", "astest", ["wasi"]),
        durations_key("as-test.config.json", "integration", ["wasi"]),
        durations_key("as-test.config.json", "astest", ["wasi", "bindings"]),
    }
    assert KEY not in others and len(others) == 3


def test_published_durations_come_back_whole(cache_server: CacheServer, warnings: Warnings) -> None:
    publish(cache_server, DURATIONS)
    shared = SharedDurations(parse_settings(cache_server.url(), signing_key=SIGNING), KEY)
    assert shared.read(warnings) == DURATIONS
    assert warnings == []


def test_no_published_durations_read_as_none_without_a_warning(
    cache_server: CacheServer, warnings: Warnings
) -> None:
    with cache(cache_server, warnings) as reader:
        assert read_durations(reader, KEY, warnings) == {}
    assert warnings == []


def test_durations_signed_with_another_key_are_ignored_with_one_warning(
    cache_server: CacheServer, warnings: Warnings
) -> None:
    publish(cache_server, DURATIONS, signing_key="a forger's key")
    with cache(cache_server, warnings) as reader:
        assert read_durations(reader, KEY, warnings) == {}
        assert read_durations(reader, KEY, warnings) == {}
    assert len(warnings) == 1 and "signature does not match" in warnings[0]


@pytest.mark.parametrize(
    ("blob", "says"),
    [
        (b"not json", "ignored"),
        (b'{"format": 1, "durations": {"wasi:math": -1}}', "not a number of seconds"),
        (b'{"format": 1, "durations": {"wasi:math": "1"}}', "not a number"),
        (b'{"format": 1, "durations": {"wasi:math": 1e400}}', "not a number of seconds"),
        # An integer too large for a float: math.isfinite raised OverflowError on it.
        (b'{"format": 1, "durations": {"wasi:math": 1' + b"0" * 400 + b"}}", "number of seconds"),
        (b'{"format": 1, "durations": {"no-mode": 1}}', "not mode:spec-id"),
        (b'{"format": 2, "durations": {}}', "not in format 1"),
    ],
)
def test_a_bad_blob_is_ignored_with_one_warning(
    cache_server: CacheServer, warnings: Warnings, blob: bytes, says: str
) -> None:
    with cache(cache_server, Warnings()) as writer:
        writer.store(KEY, {"durations": blob}, {})  # a signed entry naming bad bytes
    with cache(cache_server, warnings) as reader:
        assert read_durations(reader, KEY, warnings) == {}
    assert len(warnings) == 1 and says in warnings[0], warnings
    assert warnings[0].endswith("; splitting the shards by hash")


def test_an_oversized_blob_is_ignored_unread_and_the_cache_stays_on(
    cache_server: CacheServer, warnings: Warnings
) -> None:
    huge = b" " * (MAX_DURATIONS_BYTES + 1)
    with cache(cache_server, Warnings()) as writer:
        writer.store(KEY, {"durations": huge}, {})
    with cache(cache_server, warnings) as reader:
        assert read_durations(reader, KEY, warnings) == {}
        assert reader.active, "one oversized blob does not make the server unusable"
    assert len(warnings) == 1 and "larger than" in warnings[0]


def test_an_entry_naming_other_blobs_is_ignored(
    cache_server: CacheServer, warnings: Warnings
) -> None:
    with cache(cache_server, Warnings()) as writer:
        writer.store(KEY, {"wasm": b"\0asm"}, {})
    with cache(cache_server, warnings) as reader:
        assert read_durations(reader, KEY, warnings) == {}
    assert len(warnings) == 1 and "names other blobs" in warnings[0]


def test_read_mode_publishes_nothing(cache_server: CacheServer) -> None:
    settings = parse_settings(cache_server.url(), mode=RemoteMode.READ, signing_key=SIGNING)
    with RemoteCache(settings, warn=Warnings()) as reader:
        publish_durations(reader, KEY, DURATIONS)
    assert not (cache_server.stored / "ac" / KEY).exists()


def test_too_many_pairs_are_refused_before_any_upload() -> None:
    many = {f"wasi:{'s' * 200}{i}": 1.0 for i in range(MAX_DURATIONS_BYTES // 200)}
    with pytest.raises(ValueError, match="more than"):
        encode_durations(many)


def test_what_is_published_decodes_to_itself() -> None:
    assert decode_durations(encode_durations(DURATIONS)) == DURATIONS
    assert json.loads(encode_durations({}))["durations"] == {}


def test_a_pair_a_shard_would_refuse_is_left_out_of_the_blob_not_spoiling_it() -> None:
    durations = {
        "wasi:a": 1.5,
        "wasi:" + "b" * 2000: 1.0,  # a name longer than a shard reads
        "wasi:c": float("inf"),
        "wasi:e": 10**400,  # as a merge could read one, too large for a float
        "no-colon": 2.0,
        "wasi:d": 2.5,
    }
    assert decode_durations(encode_durations(durations)) == {"wasi:a": 1.5, "wasi:d": 2.5}
