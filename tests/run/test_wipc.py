"""WIPC framing: encoding, and the incremental decoder's HEAD-style robustness rules."""

from __future__ import annotations

import itertools
import json
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from astest_tasks.run.wipc import (
    HEADER_SIZE,
    MAGIC,
    MAX_PAYLOAD,
    Frame,
    FrameDecoder,
    FrameType,
    Item,
    Passthrough,
    encode_frame,
    parse_call,
)

CALL_PAYLOAD = b'{"kind":"event:file-start","file":"math.spec.ts"}'


def call_frame(message: dict[str, object]) -> bytes:
    return encode_frame(FrameType.CALL, json.dumps(message).encode())


def decode_all(*chunks: bytes) -> list[Item]:
    decoder = FrameDecoder()
    items: list[Item] = []
    for chunk in chunks:
        items += decoder.feed(chunk)
    return items + decoder.finish()


def merged(items: list[Item]) -> list[Item]:
    """Join adjacent Passthrough items, since chunking may split passthrough anywhere."""
    out: list[Item] = []
    for item in items:
        if isinstance(item, Passthrough) and out and isinstance(out[-1], Passthrough):
            out[-1] = Passthrough(out[-1].data + item.data)
        else:
            out.append(item)
    return out


def test_encode_frame_layout() -> None:
    encoded = encode_frame(FrameType.DATA, b"abc")
    assert encoded == b"WIPC\x03\x03\x00\x00\x00abc"
    assert len(encoded) == HEADER_SIZE + 3


@pytest.mark.parametrize("frame_type", list(FrameType))
def test_round_trip_every_type(frame_type: FrameType) -> None:
    payload = CALL_PAYLOAD if frame_type is FrameType.CALL else b"\x00\xffWIPC payload"
    assert decode_all(encode_frame(frame_type, payload)) == [Frame(frame_type, payload)]


def test_empty_close_frame() -> None:
    assert decode_all(encode_frame(FrameType.CLOSE, b"")) == [Frame(FrameType.CLOSE, b"")]


def test_frame_split_byte_by_byte() -> None:
    stream = call_frame({"kind": "snapshot:assert", "key": "k", "actual": '"v"'})
    decoder = FrameDecoder()
    fed = [decoder.feed(stream[i : i + 1]) for i in range(len(stream))]
    assert all(items == [] for items in fed[:-1])
    assert fed[-1] == [Frame(FrameType.CALL, stream[HEADER_SIZE:])]
    assert decoder.finish() == []
    assert not decoder.truncated


@pytest.mark.parametrize("split", [1, 2, 3])
def test_magic_split_across_chunks_is_held_back(split: int) -> None:
    frame = encode_frame(FrameType.DATA, b"report")
    decoder = FrameDecoder()
    first = decoder.feed(b"text" + frame[:split])
    assert first == [Passthrough(b"text")]  # the partial magic is not flushed as text
    assert decoder.feed(frame[split:]) == [Frame(FrameType.DATA, b"report")]


def test_trailing_partial_magic_is_text_at_finish() -> None:
    decoder = FrameDecoder()
    assert decoder.feed(b"ends with WI") == [Passthrough(b"ends with ")]
    assert decoder.finish() == [Passthrough(b"WI")]
    assert not decoder.truncated


def test_garbage_between_frames_is_passthrough_in_order() -> None:
    first = call_frame({"kind": "event:file-start"})
    second = encode_frame(FrameType.DATA, b"{}")
    items = decode_all(b"hello\n" + first + b"\x00\x01 middle" + second + b"tail")
    assert items == [
        Passthrough(b"hello\n"),
        Frame(FrameType.CALL, first[HEADER_SIZE:]),
        Passthrough(b"\x00\x01 middle"),
        Frame(FrameType.DATA, b"{}"),
        Passthrough(b"tail"),
    ]


def test_text_mentioning_wipc_is_passthrough() -> None:
    text = b"the WIPC protocol, WIPC!, and WIPCWIPC again\n"
    assert b"".join(_passthrough_bytes(decode_all(text))) == text
    assert all(isinstance(item, Passthrough) for item in decode_all(text))


def test_unknown_type_resyncs_after_magic() -> None:
    bogus = MAGIC + b"\x07" + struct.pack("<I", 2) + b"zz"
    frame = encode_frame(FrameType.CLOSE, b"")
    assert merged(decode_all(bogus + frame)) == [
        Passthrough(bogus),
        Frame(FrameType.CLOSE, b""),
    ]


def test_absurd_length_resyncs_after_magic() -> None:
    bogus = MAGIC + bytes([FrameType.DATA]) + struct.pack("<I", MAX_PAYLOAD + 1)
    frame = encode_frame(FrameType.DATA, b"x")
    decoder = FrameDecoder()
    # Decided as soon as the header is in: no waiting for 16 MiB that will never come.
    assert merged(decoder.feed(bogus + frame)) == [Passthrough(bogus), Frame(FrameType.DATA, b"x")]


def test_payload_of_exactly_max_length_is_a_frame() -> None:
    payload = bytes(MAX_PAYLOAD)
    assert decode_all(encode_frame(FrameType.DATA, payload)) == [Frame(FrameType.DATA, payload)]


@pytest.mark.parametrize(
    "payload",
    [
        b"not json at all",
        b'["an", "array"]',
        b'{"kind": 1',
        b"\xff\xfe{}",
        b"",
        b'{"a":' + b"[" * 100_000,
    ],
)
def test_call_that_is_not_a_json_object_is_coincidental(payload: bytes) -> None:
    bogus = encode_frame(FrameType.CALL, payload)
    real = call_frame({"kind": "event:log"})
    items = merged(decode_all(bogus + real))
    assert items == [Passthrough(bogus), Frame(FrameType.CALL, real[HEADER_SIZE:])]


def test_call_rejected_early_when_first_byte_is_not_brace() -> None:
    # "WIPC\x02" + a big length in plain text must not hold back the output behind it.
    decoder = FrameDecoder()
    text = MAGIC + bytes([FrameType.CALL]) + struct.pack("<I", 50_000) + b"plain text"
    assert merged(decoder.feed(text)) == [Passthrough(text)]


def test_truncated_frame_at_finish() -> None:
    frame = encode_frame(FrameType.DATA, b"0123456789")
    decoder = FrameDecoder()
    assert decoder.feed(b"out" + frame[:-3]) == [Passthrough(b"out")]
    assert decoder.finish() == [Passthrough(frame[:-3])]
    assert decoder.truncated


def test_truncated_header_at_finish() -> None:
    decoder = FrameDecoder()
    decoder.feed(MAGIC + b"\x03\x01")
    assert decoder.finish() == [Passthrough(MAGIC + b"\x03\x01")]
    assert decoder.truncated


def test_passthrough_merged_within_one_feed() -> None:
    decoder = FrameDecoder()
    items = decoder.feed(b"a WIPC b WIPC c")
    assert items == [Passthrough(b"a WIPC b ")]  # "WIPC c" waits for a full header
    assert decoder.finish() == [Passthrough(b"WIPC c")]


def test_many_frames_in_one_chunk() -> None:
    frames = [encode_frame(FrameType.DATA, str(i).encode()) for i in range(5000)]
    items = FrameDecoder().feed(b"".join(frames))
    assert items == [Frame(FrameType.DATA, str(i).encode()) for i in range(5000)]


def test_large_frame_in_small_chunks_and_compaction() -> None:
    payload = bytes(range(256)) * 2048  # 512 KiB
    stream = b"lead" + encode_frame(FrameType.DATA, payload) + b"after"
    items = decode_all(*(stream[i : i + 4096] for i in range(0, len(stream), 4096)))
    assert merged(items) == [
        Passthrough(b"lead"),
        Frame(FrameType.DATA, payload),
        Passthrough(b"after"),
    ]


def test_feed_after_finish_starts_fresh() -> None:
    decoder = FrameDecoder()
    decoder.feed(b"WIPC\x03")
    decoder.finish()
    assert decoder.feed(encode_frame(FrameType.CLOSE, b"")) == [Frame(FrameType.CLOSE, b"")]


def test_parse_call_returns_object() -> None:
    assert parse_call(CALL_PAYLOAD) == {"kind": "event:file-start", "file": "math.spec.ts"}


@pytest.mark.parametrize(
    "payload", [b"[1]", b'"s"', b"{bad", b"\xc3\x28", b'{"n": NaN}', b"[" * 100_000]
)
def test_parse_call_rejects_non_objects(payload: bytes) -> None:
    with pytest.raises(ValueError):
        parse_call(payload)


def _passthrough_bytes(items: list[Item]) -> list[bytes]:
    return [item.data for item in items if isinstance(item, Passthrough)]


_garbage = st.binary(max_size=40).filter(lambda data: MAGIC not in data)
_call_frames = st.dictionaries(
    st.text(max_size=8), st.one_of(st.integers(), st.text(max_size=8)), max_size=3
).map(lambda message: Frame(FrameType.CALL, json.dumps(message, ensure_ascii=False).encode()))
_other_frames = st.builds(
    Frame,
    st.sampled_from([FrameType.OPEN, FrameType.CLOSE, FrameType.DATA]),
    st.binary(max_size=40),
)


@settings(max_examples=200, deadline=None, database=None)  # no .hypothesis/ in the repo
@given(
    leading=_garbage,
    body=st.lists(st.tuples(st.one_of(_call_frames, _other_frames), _garbage), max_size=6),
    cuts=st.lists(st.integers(min_value=0), max_size=12),
)
def test_frames_survive_any_garbage_and_chunking(
    leading: bytes, body: list[tuple[Frame, bytes]], cuts: list[int]
) -> None:
    stream = leading + b"".join(encode_frame(f.type, f.payload) + garbage for f, garbage in body)
    points = sorted({cut % (len(stream) + 1) for cut in cuts} | {0, len(stream)})
    chunks = [stream[a:b] for a, b in itertools.pairwise(points)]

    decoder = FrameDecoder()
    items: list[Item] = []
    for chunk in chunks:
        items += decoder.feed(chunk)
    items += decoder.finish()

    expected: list[Item] = [Passthrough(leading)] if leading else []
    for frame, garbage in body:
        expected.append(frame)
        if garbage:
            expected.append(Passthrough(garbage))
    assert merged(items) == expected
    assert b"".join(_passthrough_bytes(items)) == leading + b"".join(g for _, g in body)
    assert not decoder.truncated
