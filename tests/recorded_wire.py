"""A real as-test 1.0.7 guest's stdout, and the same conversation as later releases send it.

The recording (``tests/tools/record_wire.py``) is what a compiled 1.0.7 spec wrote: its events,
200 tests, and a report of about 100 KB. npm serves no release after 1.0.7, so the later variants
are derived from it by the rules of docs/design/wipc.md §7: 1.1.0 cuts a report over 64 KiB
into ``report:start``, DATA chunks and ``report:end``, then sends CLOSE; HEAD adds coverage
messages (docs/design/wipc.md §8), one of which (``coverage:detail``) blocks for a reply.
"""

from __future__ import annotations

import json
from pathlib import Path

from astest_tasks.run.wipc import Frame, FrameDecoder, FrameType, Passthrough, encode_frame

RECORDING = Path(__file__).parent / "fixtures" / "wire" / "as-test-1.0.7-large-report.wipc"
CHUNK_BYTES = 65536  # as-test 1.1.0's chunk size, and its threshold for chunking at all
SPEC_FILE = "large.spec.ts"
RECORDED_TESTS = 200


def recorded_1_0_7() -> bytes:
    return RECORDING.read_bytes()


def report_of(stream: bytes) -> bytes:
    """The single DATA payload of a 1.0.7 stream."""
    (report,) = [
        item.payload
        for item in FrameDecoder().feed(stream)
        if isinstance(item, Frame) and item.type == FrameType.DATA
    ]
    return report


def _call(message: dict[str, object]) -> bytes:
    return encode_frame(FrameType.CALL, json.dumps(message).encode())


def _without_report(stream: bytes) -> bytes:
    """Every frame and passthrough byte of a 1.0.7 stream except its report, re-encoded."""
    kept = bytearray()
    for item in FrameDecoder().feed(stream):
        if isinstance(item, Passthrough):
            kept += item.data
        elif item.type != FrameType.DATA:
            kept += encode_frame(item.type, item.payload)
    return bytes(kept)


def chunked_report(report: bytes) -> bytes:
    """The report as as-test 1.1.0 sends one over 64 KiB, followed by its CLOSE frame."""
    chunks = [report[at : at + CHUNK_BYTES] for at in range(0, len(report), CHUNK_BYTES)]
    start = {
        "kind": "report:start",
        "encoding": "utf8-chunks",
        "totalBytes": len(report),
        "chunkCount": len(chunks),
        "chunkBytes": CHUNK_BYTES,
    }
    end = {"kind": "report:end", "totalBytes": len(report), "chunkCount": len(chunks)}
    return b"".join(
        [
            _call(start),
            *(encode_frame(FrameType.DATA, chunk) for chunk in chunks),
            _call(end),
            encode_frame(FrameType.CLOSE, b""),
        ]
    )


def as_1_1_0(stream: bytes) -> bytes:
    return _without_report(stream) + chunked_report(report_of(stream))


def head_coverage_calls() -> tuple[bytes, bytes]:
    """HEAD's coverage messages: the blocking ``coverage:detail`` question, then what follows it."""
    question = _call({"kind": "coverage:detail"})
    after = _call(
        {
            "kind": "coverage:summary",
            "total": 2,
            "covered": 1,
            "uncovered": 1,
            "percent": 50,
            "detail": 0,
        }
    ) + _call(
        {
            "kind": "coverage:batch",
            "file": "assembly/lib.ts",
            "points": [[3, 5, "Function", 1], [9, 1, "Block", 0]],
        }
    )
    return question, after
