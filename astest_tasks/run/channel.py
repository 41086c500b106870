"""The host side of as-test's WIPC conversation with one running spec.

The guest writes frames (and plain text) to its stdout; this class decodes them, answers the CALLs
that expect a reply by queueing bytes for the guest's stdin, keeps the lifecycle events that tell
how far a spec got, and collects the final report (one DATA frame, or as-test's chunked form).
It knows nothing about wasmtime: the host feeds it bytes and drains replies.

What the guest sends is docs/design/wipc.md §4, the replies it waits for docs/design/wipc.md §5,
the chunked report docs/design/wipc.md §7 and streamed coverage docs/design/wipc.md §8.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from astest_tasks.core.guest_text import decode_guest_utf8, encode_wtf8
from astest_tasks.model.snapshots import SnapshotStore
from astest_tasks.run.wipc import (
    Frame,
    FrameDecoder,
    FrameType,
    Passthrough,
    encode_frame,
    parse_call,
)

# Generous, but bounded: a spec that prints forever must not exhaust the host's memory.
MAX_KEPT_OUTPUT = 1024 * 1024
# What a spec may write to stdout in all (frames included) before it is stopped and failed: far
# above any honest report, low enough that a spec printing in a loop cannot fill the memory.
DEFAULT_OUTPUT_LIMIT = 64 * 1024 * 1024
# as-test 1.1.0's host answers unknown CALL kinds with this so a newer guest never blocks on us.
GENERIC_REPLY = json.dumps({"ok": True, "expected": ""}, separators=(",", ":")).encode()


@dataclass
class SuiteProgress:
    """How far the spec got, from its streamed events; shown when it dies before reporting."""

    file_started: bool = False
    file_ended: bool = False
    file_verdict: str = ""
    file_name: str = ""  # the "file" of event:file-start/-end, for a report rebuilt from events
    suite_starts: int = 0
    suite_ends: int = 0
    open_suites: list[str] = field(default_factory=list)
    finished: list[tuple[str, str]] = field(default_factory=list)  # (suite path, verdict)
    assert_failures: int = 0

    def describe(self) -> str:
        lines = []
        if self.finished:
            done = ", ".join(f"{path} ({verdict})" for path, verdict in self.finished[-5:])
            more = len(self.finished) - 5
            prefix = f"{more} earlier, " if more > 0 else ""
            lines.append(f"finished before it stopped: {prefix}{done}")
        if self.open_suites:
            lines.append(f"running when it stopped: {' > '.join(self.open_suites)}")
        if not self.file_started:
            lines.append("it stopped before as-test's run() started")
        return "\n".join(lines)


class ProtocolChannel:
    def __init__(
        self,
        snapshots: SnapshotStore | None,
        output_limit: int = DEFAULT_OUTPUT_LIMIT,
        fuzz_config: bytes | None = None,
        coverage_detail: bool = False,
    ) -> None:
        self.output_limit = output_limit
        self._coverage_detail = coverage_detail  # --show-coverage: parents and scopes of points
        self._fuzz_config = fuzz_config  # the answer to a fuzz build's fuzz:config (fuzz/runs.py)
        self.fuzz_config_asked = False
        self.bytes_received = 0  # everything the spec wrote to stdout: frames and plain output
        self._decoder = FrameDecoder()
        self._snapshots = snapshots
        self._replies = bytearray()
        self._output = bytearray()
        self.output_bytes_total = 0
        self.progress = SuiteProgress()
        self.warnings: list[str] = []
        self.logs: list[str] = []
        self.report_payload: bytes | None = None
        self.report_problem: str | None = None
        self.closed = False
        self.frames_seen = 0
        self.data_frames = 0
        self._chunks: list[bytes] | None = None
        # as-test 1.8 streams coverage beside the report (coverage:summary, then coverage:batch
        # frames) instead of inside it: gathered here in the report's own "coverage" shape.
        self.streamed_coverage: dict[str, object] | None = None
        self._chunk_header: dict[str, object] = {}

    # -- bytes in, bytes out -------------------------------------------------------------------
    def write_stdout(self, data: bytes) -> None:
        """Take what the spec wrote. Past the output limit nothing more is read: the runtime
        sees ``over_limit`` and stops the spec."""
        if self.over_limit:
            return
        self.bytes_received += len(data)
        if self.over_limit:
            return
        for item in self._decoder.feed(data):
            self._handle(item)

    @property
    def over_limit(self) -> bool:
        return self.bytes_received > self.output_limit

    def read_stdin(self, max_bytes: int) -> bytes:
        taken = bytes(self._replies[:max_bytes])
        del self._replies[:max_bytes]
        return taken

    def take_replies(self) -> bytes:
        """Every reply not yet read: for a runtime in another process, written to its stdin."""
        taken = bytes(self._replies)
        self._replies.clear()
        return taken

    def finish(self) -> None:
        for item in self._decoder.finish():
            self._handle(item)
        if self._chunks is not None and self.report_payload is None:
            self.report_problem = "the report was cut off: report:start without report:end"

    @property
    def output_text(self) -> str:
        """The spec's plain stdout (not frames), decoded; truncated past MAX_KEPT_OUTPUT."""
        text = decode_guest_utf8(self._output)
        dropped = self.output_bytes_total - len(self._output)
        if dropped > 0:
            text += f"\n… {dropped} more bytes of output not kept"
        return text

    # -- dispatch ------------------------------------------------------------------------------
    def _handle(self, item: Frame | Passthrough) -> None:
        if isinstance(item, Passthrough):
            self._keep_output(item.data)
            return
        self.frames_seen += 1
        if item.type == FrameType.CALL:
            self._on_call(item.payload)
        elif item.type == FrameType.DATA:
            self._on_data(item.payload)
        elif item.type == FrameType.CLOSE:
            self.closed = True

    def _keep_output(self, data: bytes) -> None:
        self.output_bytes_total += len(data)
        room = MAX_KEPT_OUTPUT - len(self._output)
        if room > 0:
            self._output += data[:room]

    def _on_call(self, payload: bytes) -> None:
        try:
            message = parse_call(payload)
        except ValueError:
            return  # the decoder already treats non-JSON CALLs as passthrough; be safe anyway
        kind = str(message.get("kind", ""))
        if kind.startswith("event:"):
            self._on_event(kind, message)
        elif kind == "report:start":
            self._chunks = []
            self._chunk_header = message
        elif kind == "report:end":
            self._finish_chunked_report(message)
        elif kind.startswith("report:"):
            pass  # a later as-test's report message that needs no answer
        elif kind == "snapshot:assert":
            self._answer_snapshot(message)
        elif kind == "fuzz:config" and self._fuzz_config is not None:
            self.fuzz_config_asked = True
            self._reply(self._fuzz_config)
        elif kind == "coverage:detail":
            # as-test 1.8 guests ask whether to stream detailed points (parents and scopes);
            # as-test asks for them only under --show-coverage, to draw the gap tree.
            self._reply(b"1" if self._coverage_detail else b"0")
        elif kind == "coverage:summary":
            self.streamed_coverage = _coverage_summary(message)
        elif kind == "coverage:batch":
            _add_coverage_batch(self._streamed_or_new(), message)
        elif kind.startswith("coverage:"):
            pass  # other coverage messages of a later as-test need no answer
        else:
            self._reply(GENERIC_REPLY)

    def _on_event(self, kind: str, message: dict[str, object]) -> None:
        progress = self.progress
        if kind in ("event:file-start", "event:file-end") and message.get("file") is not None:
            progress.file_name = str(message.get("file"))
        if kind == "event:file-start":
            progress.file_started = True
        elif kind == "event:file-end":
            progress.file_ended = True
            progress.file_verdict = str(message.get("verdict", ""))
        elif kind == "event:suite-start":
            progress.suite_starts += 1
            depth = _int(message.get("depth"))
            del progress.open_suites[max(depth, 0) :]
            progress.open_suites.append(str(message.get("description", "")))
        elif kind == "event:suite-end":
            progress.suite_ends += 1
            depth = _int(message.get("depth"))
            path = " > ".join(progress.open_suites[: depth + 1])
            progress.finished.append((path, str(message.get("verdict", ""))))
            del progress.open_suites[max(depth, 0) :]
        elif kind == "event:assert-fail":
            progress.assert_failures += 1
        elif kind == "event:warn":
            self.warnings.append(str(message.get("message", "")))
        elif kind == "event:log":
            self.logs.append(str(message.get("text", "")))

    def _answer_snapshot(self, message: dict[str, object]) -> None:
        key = str(message.get("key", ""))
        actual = str(message.get("actual", ""))
        if self._snapshots is None:
            self._reply(b"1\n" + encode_wtf8(actual))
            return
        answer = self._snapshots.assert_snapshot(key, actual)
        self._reply(SnapshotStore.reply_payload(answer))

    def _on_data(self, payload: bytes) -> None:
        self.data_frames += 1
        if self._chunks is not None:
            self._chunks.append(payload)
        elif self.report_payload is None:
            self.report_payload = payload
        else:
            self.report_problem = "the spec sent more than one report"

    def _finish_chunked_report(self, message: dict[str, object]) -> None:
        chunks = self._chunks or []
        self._chunks = None
        # Join as bytes before decoding: a multi-byte character may straddle two chunks.
        joined = b"".join(chunks)
        expected_bytes = _int(message.get("totalBytes", self._chunk_header.get("totalBytes")))
        expected_count = _int(message.get("chunkCount", self._chunk_header.get("chunkCount")))
        # As as-test does, a count the guest left out (0) is not checked.
        count_wrong = expected_count > 0 and expected_count != len(chunks)
        if count_wrong or (expected_bytes > 0 and expected_bytes != len(joined)):
            self.report_problem = (
                f"the chunked report does not add up: expected {expected_count} chunks of "
                f"{expected_bytes} bytes in all, got {len(chunks)} chunks of {len(joined)} bytes"
            )
            return
        self.report_payload = joined

    def _streamed_or_new(self) -> dict[str, object]:
        if self.streamed_coverage is None:
            self.streamed_coverage = _coverage_summary({})
        return self.streamed_coverage

    def _reply(self, payload: bytes) -> None:
        self._replies += encode_frame(FrameType.CALL, payload)


def _int(value: object) -> int:
    try:
        return int(value)  # type: ignore[call-overload, no-any-return]
    except (TypeError, ValueError):
        return 0


def _coverage_summary(message: dict[str, object]) -> dict[str, object]:
    """``applyCoverageFrame`` for ``coverage:summary``: the totals, and whether points carry
    detail (as we answered ``coverage:detail``; a guest with no points does not ask)."""
    return {
        "total": message.get("total", 0),
        "covered": message.get("covered", 0),
        "uncovered": message.get("uncovered", 0),
        "percent": message.get("percent", 100),
        "detail": _number(message.get("detail", 1)) == 1,
        "points": [],
    }


def _add_coverage_batch(coverage: dict[str, object], message: dict[str, object]) -> None:
    """``expandCompactCoveragePoints``: ``[line, col, type, executed, hash?, ...]`` per point;
    without detail the point's identity is ``line:col:type``, as as-test makes it."""
    file = message.get("file")
    points = coverage["points"]
    entries = message.get("points")
    if file is None or file == "" or not isinstance(points, list) or not isinstance(entries, list):
        return
    detail = coverage["detail"]
    for entry in entries:
        if not isinstance(entry, list) or len(entry) < 4:
            continue
        line, column, kind = _number_text(entry[0]), _number_text(entry[1]), str(entry[2] or "")
        point: dict[str, object] = {
            "file": str(file),
            "line": entry[0],
            "column": entry[1],
            "type": kind,
            "executed": _number(entry[3]) == 1,
            "hash": _entry_text(entry, 4) if detail else f"{line}:{column}:{kind}",
        }
        if detail:  # [..., hash, parentHash, scopeKind, scopeName, depth]
            point["parentHash"] = _entry_text(entry, 5)
            point["scopeKind"] = _entry_text(entry, 6)
            point["scopeName"] = _entry_text(entry, 7)
            point["depth"] = _int(entry[8]) if len(entry) > 8 else 0
        points.append(point)


def _entry_text(entry: list[object], index: int) -> str:
    """``String(entry[i] ?? "")``."""
    value = entry[index] if len(entry) > index else None
    if value is None:
        return ""
    return _number_text(value) if isinstance(value, int | float) else str(value)


def _number(value: object) -> float:
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):  # OverflowError: an integer past any float
        return float("nan")


def _number_text(value: object) -> str:
    number = _number(value if value is not None else 0)
    return str(int(number)) if number.is_integer() else str(value)
