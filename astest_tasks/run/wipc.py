"""WIPC framing: the protocol an as-test spec speaks on its stdout (to us) and stdin (from us).

A frame is ``b"WIPC"``, a type byte, a little-endian u32 payload length, then the payload. The
guest's plain output travels on the same stream, so every byte outside a frame is *passthrough*.

The decoder follows as-test HEAD's robust parser (docs/design/wipc.md §3): a magic split
across reads is held back rather than flushed, and a ``WIPC`` that turns out not to head a
plausible frame (unknown type, absurd length, CALL payload that is not a JSON object) is treated
as coincidental text: its four bytes become passthrough and scanning resumes right after them.
"""

from __future__ import annotations

import struct
from enum import Enum, IntEnum
from typing import Final

from astest_tasks.core.frozen import frozen
from astest_tasks.core.guest_text import decode_guest_utf8
from astest_tasks.core.json_text import parse_json, reject_constant


class FrameType(IntEnum):
    OPEN = 0
    CLOSE = 1
    CALL = 2
    DATA = 3


MAGIC: Final = b"WIPC"
HEADER_SIZE: Final = 9
MAX_PAYLOAD: Final = 16 * 1024 * 1024

_HEADER: Final = struct.Struct("<4sBI")
_KNOWN_TYPES: Final = frozenset(int(member) for member in FrameType)
_MAX_ENCODABLE: Final = 0xFFFFFFFF
# JSON allows only these before a value; anything else before "{" means "not an object".
_JSON_WHITESPACE: Final = frozenset(b" \t\n\r")
_OPEN_BRACE: Final = ord("{")
# Compacting the buffer costs a copy of what is left, so only do it once the consumed prefix is
# big enough to be worth it and at least half the buffer (amortised O(1) per byte).
_COMPACT_THRESHOLD: Final = 64 * 1024


@frozen
class Frame:
    type: FrameType
    payload: bytes


@frozen
class Passthrough:
    """Bytes outside any frame: the spec's plain stdout."""

    data: bytes


Item = Frame | Passthrough


class _NoFrame(Enum):
    """Why the magic at the scan position yields no frame (yet)."""

    INCOMPLETE = "incomplete"  # plausible so far; wait for more bytes
    COINCIDENTAL = "coincidental"  # not a frame: the magic is ordinary text


def encode_frame(frame_type: FrameType, payload: bytes) -> bytes:
    """Encode one frame; raises ``ValueError`` if the payload cannot fit a u32 length."""
    if len(payload) > _MAX_ENCODABLE:
        raise ValueError(f"WIPC payload of {len(payload)} bytes does not fit a u32 length")
    return _HEADER.pack(MAGIC, int(frame_type), len(payload)) + bytes(payload)


def parse_call(payload: bytes) -> dict[str, object]:
    """Decode a guest CALL payload: UTF-8 JSON whose top level is an object.

    Raises ``ValueError`` for anything else (bad UTF-8, bad JSON, another JSON type, nesting too
    deep for the parser).
    """
    try:
        text = decode_guest_utf8(payload)
        value = parse_json(text, parse_constant=reject_constant)
    except ValueError as error:  # UnicodeDecodeError and JSONDecodeError (also too deep)
        raise ValueError(f"CALL payload is not UTF-8 JSON: {error}") from error
    if not isinstance(value, dict):
        raise ValueError(f"CALL payload is JSON {type(value).__name__}, not an object")
    return value


def _is_call_payload(payload: bytes) -> bool:
    try:
        parse_call(payload)
    except ValueError:
        return False
    return True


def _cannot_be_json_object(payload_head: int | None, declared_length: int) -> bool:
    """True if a CALL payload is already known not to be a JSON object from its first byte.

    Lets a coincidental ``WIPC\\x02<length>`` in plain text be rejected at once instead of
    holding back all later output until ``length`` bytes have arrived. Only the first byte is
    looked at (O(1) per feed); leading JSON whitespace, which the guest never sends, defers the
    decision to the full parse.
    """
    if declared_length == 0:
        return True
    if payload_head is None or payload_head in _JSON_WHITESPACE:
        return False
    return payload_head != _OPEN_BRACE


def _split_magic_length(buffer: bytearray, start: int) -> int:
    """Length (0-3) of the longest tail of ``buffer[start:]`` that is a proper prefix of MAGIC."""
    available = len(buffer) - start
    for length in range(min(len(MAGIC) - 1, available), 0, -1):
        if buffer.endswith(MAGIC[:length]):
            return length
    return 0


class FrameDecoder:
    """Incremental decoder: feed() chunks as they arrive, get frames and passthrough in order.

    Never raises on any input. Bytes are scanned once: ``_start`` indexes the first byte not yet
    emitted, and the consumed prefix of ``_buffer`` is dropped only occasionally.
    """

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._start = 0
        self._truncated = False

    @property
    def truncated(self) -> bool:
        """True if finish() found an incomplete frame (a full magic without all of its frame)."""
        return self._truncated

    def feed(self, chunk: bytes) -> list[Item]:
        self._buffer += chunk
        items: list[Item] = []
        pending = bytearray()
        self._drain(items, pending)
        _flush_passthrough(items, pending)
        self._compact()
        return items

    def finish(self) -> list[Item]:
        """End of stream: return whatever is still buffered as passthrough and reset."""
        rest = bytes(self._buffer[self._start :])
        self._buffer = bytearray()
        self._start = 0
        if not rest:
            return []
        # A held-back "W"/"WI"/"WIP" is just trailing text; only a whole magic means a frame
        # was cut short (typically the guest died mid-write).
        if rest.startswith(MAGIC):
            self._truncated = True
        return [Passthrough(rest)]

    def _drain(self, items: list[Item], pending: bytearray) -> None:
        buffer = self._buffer
        while True:
            magic_at = buffer.find(MAGIC, self._start)
            if magic_at < 0:
                keep = _split_magic_length(buffer, self._start)
                pending += buffer[self._start : len(buffer) - keep]
                self._start = len(buffer) - keep
                return
            pending += buffer[self._start : magic_at]
            self._start = magic_at
            outcome = self._try_frame()
            if outcome is _NoFrame.INCOMPLETE:
                return  # a plausible frame whose bytes have not all arrived yet
            if outcome is _NoFrame.COINCIDENTAL:
                pending += MAGIC
                self._start += len(MAGIC)
            else:
                _flush_passthrough(items, pending)
                items.append(outcome)

    def _try_frame(self) -> Frame | _NoFrame:
        """Decode (and consume) the frame whose magic is at ``_start``, if it is one."""
        buffer = self._buffer
        start = self._start
        if len(buffer) - start < HEADER_SIZE:
            return _NoFrame.INCOMPLETE
        _, type_byte, length = _HEADER.unpack_from(buffer, start)
        if type_byte not in _KNOWN_TYPES or length > MAX_PAYLOAD:
            return _NoFrame.COINCIDENTAL
        payload_start = start + HEADER_SIZE
        payload_end = payload_start + length
        is_call = type_byte == FrameType.CALL
        payload_head = buffer[payload_start] if payload_start < len(buffer) else None
        if is_call and _cannot_be_json_object(payload_head, length):
            return _NoFrame.COINCIDENTAL
        if len(buffer) < payload_end:
            return _NoFrame.INCOMPLETE
        payload = bytes(buffer[payload_start:payload_end])
        if is_call and not _is_call_payload(payload):
            return _NoFrame.COINCIDENTAL
        self._start = payload_end
        return Frame(FrameType(type_byte), payload)

    def _compact(self) -> None:
        if self._start >= _COMPACT_THRESHOLD and self._start * 2 >= len(self._buffer):
            del self._buffer[: self._start]
            self._start = 0


def _flush_passthrough(items: list[Item], pending: bytearray) -> None:
    if pending:
        items.append(Passthrough(bytes(pending)))
        pending.clear()
