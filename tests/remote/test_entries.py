from __future__ import annotations

import hashlib

import pytest

from astest_tasks.remote.entries import (
    Entry,
    EntryRejected,
    NotAnEntry,
    decode_entry,
    encode_entry,
)

KEY = hashlib.sha256(b"inputs").hexdigest()
ENTRY = Entry(blobs={"wasm": hashlib.sha256(b"wasm").hexdigest()}, meta={"verdict": "ok"})


@pytest.mark.parametrize("signing_key", [None, b"k"])
def test_an_entry_round_trips(signing_key: bytes | None) -> None:
    assert decode_entry(KEY, encode_entry(KEY, ENTRY, signing_key), signing_key) == ENTRY


def test_a_signed_entry_fails_under_another_key_or_signing_key() -> None:
    data = encode_entry(KEY, ENTRY, b"k")
    with pytest.raises(EntryRejected, match="signature does not match"):
        decode_entry(KEY, data, b"other")
    with pytest.raises(EntryRejected, match="signature does not match"):
        decode_entry(hashlib.sha256(b"x").hexdigest(), data, b"k")
    with pytest.raises(EntryRejected, match="not signed"):
        decode_entry(KEY, encode_entry(KEY, ENTRY, None), b"k")


def test_a_changed_body_fails_the_signature() -> None:
    data = encode_entry(KEY, ENTRY, b"k").replace(b'"ok"', b'"failed"')
    with pytest.raises(EntryRejected, match="signature does not match"):
        decode_entry(KEY, data, b"k")


@pytest.mark.parametrize("data", [b"\x0a\x20protobuf", b"[]", b'{"entry": {"format": 99}}'])
def test_bytes_that_are_no_entry_are_told_apart(data: bytes) -> None:
    with pytest.raises(NotAnEntry):
        decode_entry(KEY, data, None)


def test_a_blob_name_that_is_no_digest_is_rejected() -> None:
    bad = Entry(blobs={"wasm": "../../etc/passwd"}, meta={})
    with pytest.raises(EntryRejected, match="malformed"):
        decode_entry(KEY, encode_entry(KEY, bad, None), None)


def test_a_signed_entry_with_a_lone_surrogate_is_rejected_not_an_encoding_error() -> None:
    """JSON may spell a lone surrogate, which no UTF-8 encodes: a server that sends one must get
    the entry refused (a counted miss with a warning), never a UnicodeEncodeError."""
    data = encode_entry(KEY, ENTRY, b"k").replace(b'"ok"', b'"\\ud800"')
    with pytest.raises(EntryRejected, match="not Unicode"):
        decode_entry(KEY, data, b"k")
