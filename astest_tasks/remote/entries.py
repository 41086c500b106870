"""The ``/ac/`` entry: which blobs make up one build or run, plus the caller's metadata, as
JSON. With a signing key the entry carries an HMAC-SHA256 over its key and body (as Turborepo
signs its artifacts), so a writer without the key cannot plant results; a missing or bad
signature reads as a miss."""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Mapping
from typing import Any

from astest_tasks.core.digests import is_sha256
from astest_tasks.core.frozen import frozen
from astest_tasks.core.json_text import parse_json

ENTRY_FORMAT = 1


@frozen
class Entry:
    """``blobs`` maps the caller's names (e.g. ``"wasm"``, ``"record"``) to SHA-256 digests."""

    blobs: Mapping[str, str]
    meta: Mapping[str, Any]


def canonical_json(value: object) -> bytes:
    """One byte form per value, whatever the dict order, so digests and signatures are stable."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode(
        "utf-8"
    )


def _signature(key: bytes, action_key: str, body: bytes) -> str:
    # The action key is signed too: a valid entry copied under another key must not verify.
    return hmac.new(key, action_key.encode("ascii") + b"\n" + body, hashlib.sha256).hexdigest()


def encode_entry(action_key: str, entry: Entry, signing_key: bytes | None) -> bytes:
    body = {"format": ENTRY_FORMAT, "blobs": dict(entry.blobs), "meta": dict(entry.meta)}
    document: dict[str, object] = {"entry": body}
    if signing_key is not None:
        document["signature"] = _signature(signing_key, action_key, canonical_json(body))
    return canonical_json(document)


class EntryRejected(ValueError):
    """The bytes are no usable entry; the message says why (never with a secret in it)."""


class NotAnEntry(EntryRejected):
    """The bytes are no entry of ours at all: the server answers garbage, or is a server that
    keeps Bazel's own ``/ac/`` format (bazel-remote without ``--disable_http_ac_validation``)."""


def decode_entry(action_key: str, data: bytes, signing_key: bytes | None) -> Entry:
    try:
        document = parse_json(data)
    except ValueError as exc:
        raise NotAnEntry("the entry is not JSON") from exc
    body = document.get("entry") if isinstance(document, dict) else None
    if not isinstance(body, dict) or body.get("format") != ENTRY_FORMAT:
        raise NotAnEntry(f"the entry is not in format {ENTRY_FORMAT}")
    if signing_key is not None:
        given = document.get("signature")
        if not isinstance(given, str):
            raise EntryRejected("the entry is not signed")
        try:
            signed = canonical_json(body)
        except UnicodeError as exc:
            # JSON may spell a lone surrogate ("\ud800"), which no UTF-8 encodes: such an entry
            # cannot be one we signed, and it must be refused like any other, not escape.
            raise EntryRejected("the entry holds text that is not Unicode") from exc
        if not hmac.compare_digest(given, _signature(signing_key, action_key, signed)):
            raise EntryRejected("the entry's signature does not match the signing key")
    blobs, meta = body.get("blobs"), body.get("meta")
    if (
        not isinstance(blobs, dict)
        or not all(isinstance(k, str) and is_sha256(v) for k, v in blobs.items())
        or not isinstance(meta, dict)
    ):
        raise EntryRejected("the entry's blobs or meta are malformed")
    return Entry(blobs=blobs, meta=meta)
