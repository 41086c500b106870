"""ProtocolChannel: the host side of one spec's WIPC conversation, fed with hand-made frames."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from astest_tasks.core.records import decode, encode
from astest_tasks.coverage.model import ReportCoverage, coverage_from_dict
from astest_tasks.model.counting import count
from astest_tasks.model.report_parsing import parse_report
from astest_tasks.model.snapshots import SnapshotStore
from astest_tasks.run.channel import GENERIC_REPLY, MAX_KEPT_OUTPUT, ProtocolChannel
from astest_tasks.run.wipc import HEADER_SIZE, MAGIC, FrameType, encode_frame
from tests import recorded_wire

SPEC = "assembly/__tests__/x.spec.ts"
SNAPSHOT_DIR = ".as-test/snapshots"
REPORT = b'{"suites":[{"description":"math","kind":"describe","verdict":"ok"}]}'


def call(kind: str, **fields: object) -> bytes:
    return encode_frame(FrameType.CALL, json.dumps({"kind": kind, **fields}).encode())


def data(payload: bytes) -> bytes:
    return encode_frame(FrameType.DATA, payload)


def close() -> bytes:
    return encode_frame(FrameType.CLOSE, b"")


def fed(*chunks: bytes, snapshots: SnapshotStore | None = None) -> ProtocolChannel:
    channel = ProtocolChannel(snapshots)
    for chunk in chunks:
        channel.write_stdout(chunk)
    return channel


def reply_payloads(stream: bytes) -> list[bytes]:
    """Split the host's reply bytes into CALL payloads (they are plain text, not JSON)."""
    payloads = []
    offset = 0
    while offset < len(stream):
        magic, frame_type, length = struct.unpack_from("<4sBI", stream, offset)
        assert magic == MAGIC
        assert frame_type == FrameType.CALL
        start = offset + HEADER_SIZE
        payloads.append(stream[start : start + length])
        offset = start + length
    assert offset == len(stream)
    return payloads


def all_replies(channel: ProtocolChannel) -> list[bytes]:
    return reply_payloads(channel.read_stdin(1 << 20))


@pytest.fixture
def store(tmp_path: Path) -> SnapshotStore:
    snap = tmp_path / SNAPSHOT_DIR / "x.spec.snap"
    snap.parent.mkdir(parents=True)
    snap.write_text(
        '# as-test snapshot file\n\n=== Card > renders ===\n"hello"\n', encoding="utf-8"
    )
    return SnapshotStore.load(tmp_path, SPEC, SNAPSHOT_DIR)


# -- lifecycle events ------------------------------------------------------------------------------


def test_file_start_and_end_are_tracked_with_the_verdict() -> None:
    channel = fed(call("event:file-start", file="x.spec.ts"))
    assert channel.progress.file_started
    assert not channel.progress.file_ended

    channel.write_stdout(call("event:file-end", file="x.spec.ts", verdict="fail", time="1ms"))
    assert channel.progress.file_ended
    assert channel.progress.file_verdict == "fail"


def test_progress_names_finished_suites_by_path_and_the_one_still_running() -> None:
    channel = fed(
        call("event:file-start", file="x.spec.ts"),
        call("event:suite-start", depth=0, suiteKind="describe", description="outer"),
        call("event:suite-start", depth=1, suiteKind="test", description="inner"),
        call("event:suite-end", depth=1, suiteKind="test", description="inner", verdict="ok"),
        call("event:suite-start", depth=1, suiteKind="test", description="second"),
    )
    progress = channel.progress
    assert progress.finished == [("outer > inner", "ok")]
    assert progress.open_suites == ["outer", "second"]
    assert progress.describe() == (
        "finished before it stopped: outer > inner (ok)\nrunning when it stopped: outer > second"
    )


def test_suite_end_at_depth_zero_closes_the_top_level_suite() -> None:
    channel = fed(
        call("event:file-start"),
        call("event:suite-start", depth=0, description="a"),
        call("event:suite-end", depth=0, description="a", verdict="fail"),
        call("event:suite-start", depth=0, description="b"),
    )
    assert channel.progress.finished == [("a", "fail")]
    assert channel.progress.open_suites == ["b"]


def test_progress_lists_only_the_last_five_finished_suites() -> None:
    frames = [call("event:file-start")]
    for index in range(7):
        frames.append(call("event:suite-start", depth=0, description=f"s{index}"))
        frames.append(call("event:suite-end", depth=0, description=f"s{index}", verdict="ok"))
    described = fed(*frames).progress.describe()
    assert described == (
        "finished before it stopped: 2 earlier, s2 (ok), s3 (ok), s4 (ok), s5 (ok), s6 (ok)"
    )


def test_progress_says_when_run_never_started() -> None:
    assert ProtocolChannel(None).progress.describe() == "it stopped before as-test's run() started"


def test_assert_fail_events_are_counted() -> None:
    failure = call("event:assert-fail", key="k", instr="toBe", left="1", right="2", message="")
    assert fed(failure, failure).progress.assert_failures == 2


def test_warn_and_log_events_are_collected_in_order() -> None:
    channel = fed(
        call("event:warn", message="toThrow() is disabled"),
        call("event:log", file="x.spec.ts", depth=1, text="first"),
        call("event:log", file="x.spec.ts", depth=1, text="second"),
    )
    assert channel.warnings == ["toThrow() is disabled"]
    assert channel.logs == ["first", "second"]


# -- replies ---------------------------------------------------------------------------------------


def test_matching_snapshot_is_answered_ok_with_the_stored_value(store: SnapshotStore) -> None:
    channel = fed(
        call("snapshot:assert", key="x.spec.ts::Card > renders", actual='"hello"'),
        snapshots=store,
    )
    assert all_replies(channel) == [b'1\n"hello"']
    assert store.matched == 1


def test_missing_snapshot_is_answered_not_ok_with_the_missing_marker(
    store: SnapshotStore,
) -> None:
    channel = fed(
        call("snapshot:assert", key="x.spec.ts::Card > other", actual='"new"'), snapshots=store
    )
    assert all_replies(channel) == [b'0\n"<missing snapshot>"']
    assert store.missing_keys == ["x.spec.ts::Card > other"]


def test_mismatched_snapshot_is_answered_not_ok_with_the_stored_value(
    store: SnapshotStore,
) -> None:
    channel = fed(
        call("snapshot:assert", key="x.spec.ts::Card > renders", actual='"changed"'),
        snapshots=store,
    )
    assert all_replies(channel) == [b'0\n"hello"']
    assert store.mismatched == 1


def test_without_a_snapshot_store_the_actual_value_is_echoed_as_ok() -> None:
    channel = fed(call("snapshot:assert", key="x.spec.ts::t", actual='"v é"'))
    assert all_replies(channel) == ['1\n"v é"'.encode()]


def test_lone_surrogates_travel_both_ways_as_the_guest_encodes_them() -> None:
    # A WTF-8 surrogate in plain output is kept; a reply carries one back as WTF-8, which the
    # guest's String.UTF8.decode reads as the surrogate it sent.
    channel = fed(b"raw \xed\xa0\x80\n", call("snapshot:assert", key="k", actual="v\ud800"))
    assert channel.output_text == "raw \ud800\n"
    assert all_replies(channel) == [b"1\nv\xed\xa0\x80"]
    event = call("event:log", file="x.spec.ts", depth=0, text="line \udc00")  # JSON-escaped
    channel.write_stdout(event)
    assert channel.logs == ["line \udc00"]


def test_read_stdin_hands_out_replies_in_pieces_and_then_nothing() -> None:
    channel = fed(call("snapshot:assert", key="k", actual="1"))
    expected = encode_frame(FrameType.CALL, b"1\n1")
    assert channel.read_stdin(4) == expected[:4]
    assert channel.read_stdin(1000) == expected[4:]
    assert channel.read_stdin(1000) == b""


def test_unknown_call_kinds_get_the_generic_reply() -> None:
    channel = fed(call("fuzz:config"), call("something:new", x=1))
    assert GENERIC_REPLY == b'{"ok":true,"expected":""}'
    assert all_replies(channel) == [GENERIC_REPLY, GENERIC_REPLY]


def test_coverage_detail_is_answered_with_zero() -> None:
    assert all_replies(fed(call("coverage:detail"))) == [b"0"]


def test_coverage_detail_is_answered_with_one_under_show_coverage() -> None:
    channel = ProtocolChannel(None, coverage_detail=True)
    channel.write_stdout(call("coverage:detail"))
    assert all_replies(channel) == [b"1"]


@pytest.mark.parametrize(
    "frame",
    [
        call("event:file-start", file="x.spec.ts"),
        call("event:suite-start", depth=0, description="s"),
        call("event:warn", message="w"),
        call("event:log", text="l"),
        call("event:something-new"),
        call("report:start", totalBytes=1, chunkCount=1),
        call("report:progress"),
        call("coverage:summary", total=1, covered=1, uncovered=0, percent=100, detail=0),
        call("coverage:batch", file="x.ts", points=[]),
    ],
)
def test_events_reports_and_coverage_messages_get_no_reply(frame: bytes) -> None:
    channel = fed(frame)
    assert channel.read_stdin(1 << 20) == b""
    assert channel.frames_seen == 1


# -- the report ------------------------------------------------------------------------------------


def test_a_single_data_frame_is_the_report() -> None:
    channel = fed(call("event:file-end", verdict="ok"), data(REPORT), close())
    channel.finish()
    assert channel.report_payload == REPORT
    assert channel.report_problem is None


def test_a_second_report_is_a_problem() -> None:
    channel = fed(data(REPORT), data(REPORT))
    assert channel.report_payload == REPORT
    assert channel.report_problem == "the spec sent more than one report"


def test_chunked_report_is_joined_as_bytes_across_a_split_character() -> None:
    payload = '{"suites":[{"description":"prix €5","kind":"describe"}]}'.encode()
    euro_at = payload.index("€".encode())
    chunks = [payload[:10], payload[10 : euro_at + 1], payload[euro_at + 1 :]]
    assert all(chunks)
    with pytest.raises(UnicodeDecodeError):
        chunks[1].decode("utf-8")  # the split really cuts the character in two
    header = {"encoding": "utf8-chunks", "totalBytes": len(payload), "chunkCount": 3}
    channel = fed(
        call("report:start", **header, chunkBytes=65536),
        *(data(chunk) for chunk in chunks),
        call("report:end", totalBytes=len(payload), chunkCount=3),
        close(),
    )
    channel.finish()
    assert channel.report_problem is None
    assert channel.report_payload == payload
    assert parse_report(payload)[0].description == "prix €5"


def test_chunked_report_with_too_few_chunks_is_a_problem() -> None:
    channel = fed(
        call("report:start", totalBytes=6, chunkCount=3),
        data(b"ab"),
        data(b"cd"),
        call("report:end", totalBytes=6, chunkCount=3),
    )
    channel.finish()
    assert channel.report_payload is None
    assert channel.report_problem == (
        "the chunked report does not add up: expected 3 chunks of 6 bytes in all, "
        "got 2 chunks of 4 bytes"
    )


def test_chunked_report_with_wrong_byte_total_is_a_problem() -> None:
    channel = fed(
        call("report:start", totalBytes=10, chunkCount=1),
        data(b"abcd"),
        call("report:end", totalBytes=10, chunkCount=1),
    )
    assert channel.report_payload is None
    assert channel.report_problem is not None
    assert "10 bytes" in channel.report_problem


def test_chunk_counts_fall_back_to_the_report_start_header() -> None:
    channel = fed(
        call("report:start", totalBytes=4, chunkCount=2),
        data(b"ab"),
        data(b"cd"),
        call("report:end"),
    )
    assert channel.report_problem is None
    assert channel.report_payload == b"abcd"


def test_report_start_without_report_end_is_cut_off_at_finish() -> None:
    channel = fed(call("report:start", totalBytes=4, chunkCount=2), data(b"ab"))
    assert channel.report_problem is None  # not known until the stream ends
    channel.finish()
    assert channel.report_payload is None
    assert channel.report_problem == "the report was cut off: report:start without report:end"


# -- passthrough, close and framing ----------------------------------------------------------------


def test_plain_output_around_frames_is_kept_as_passthrough() -> None:
    channel = fed(b"before\n", call("event:file-start"), b"after\n", data(REPORT), b"end")
    channel.finish()
    assert channel.output_text == "before\nafter\nend"
    assert channel.frames_seen == 2
    assert channel.report_payload == REPORT


def test_passthrough_is_capped_at_max_kept_output_with_a_note() -> None:
    channel = fed(b"x" * (MAX_KEPT_OUTPUT - 10), b"y" * 110)
    channel.finish()
    assert channel.output_bytes_total == MAX_KEPT_OUTPUT + 100
    text = channel.output_text
    kept, note = text.rsplit("\n", 1)
    assert kept == "x" * (MAX_KEPT_OUTPUT - 10) + "y" * 10
    assert note == "… 100 more bytes of output not kept"


def test_output_within_the_cap_has_no_note() -> None:
    channel = fed(b"z" * MAX_KEPT_OUTPUT)
    channel.finish()
    assert channel.output_text == "z" * MAX_KEPT_OUTPUT


def test_close_frame_marks_the_channel_closed() -> None:
    channel = fed(data(REPORT))
    assert not channel.closed
    channel.write_stdout(close())
    assert channel.closed


def test_frames_split_across_writes_are_reassembled() -> None:
    stream = b"".join(
        [
            b"hi ",
            call("event:file-start", file="x.spec.ts"),
            call("event:warn", message="careful"),
            call("snapshot:assert", key="k", actual='"v"'),
            data(REPORT),
            b"bye",
            close(),
        ]
    )
    channel = ProtocolChannel(None)
    for index in range(len(stream)):
        channel.write_stdout(stream[index : index + 1])
    channel.finish()
    assert channel.progress.file_started
    assert channel.warnings == ["careful"]
    assert all_replies(channel) == [b'1\n"v"']
    assert channel.report_payload == REPORT
    assert channel.closed
    assert channel.output_text == "hi bye"
    assert channel.frames_seen == 5


# -- recorded conversations of each as-test wire version ---------------------------------------


def fed_in_pieces(stream: bytes, piece: int) -> ProtocolChannel:
    channel = fed(*(stream[at : at + piece] for at in range(0, len(stream), piece)))
    channel.finish()
    return channel


def assert_whole_recorded_run(channel: ProtocolChannel, report: bytes) -> None:
    assert channel.report_problem is None
    assert channel.report_payload == report
    assert channel.progress.file_ended and channel.progress.file_verdict == "ok"
    assert len(channel.logs) == recorded_wire.RECORDED_TESTS
    assert count(parse_report(report)).tests_passed == recorded_wire.RECORDED_TESTS
    assert channel.output_text == ""


@pytest.mark.parametrize("piece", [7, 4096, 1 << 20])
def test_a_recorded_1_0_7_guest_is_read_whole(piece: int) -> None:
    stream = recorded_wire.recorded_1_0_7()
    channel = fed_in_pieces(stream, piece)
    assert_whole_recorded_run(channel, recorded_wire.report_of(stream))
    assert not channel.closed  # 1.0.7 sends no CLOSE after its report
    assert channel.take_replies() == b""  # nothing in a plain test run asks a question


@pytest.mark.parametrize("piece", [7, 4096, 1 << 20])
def test_the_recorded_run_as_1_1_0_sends_it_with_a_chunked_report(piece: int) -> None:
    recorded = recorded_wire.recorded_1_0_7()
    report = recorded_wire.report_of(recorded)
    assert len(report) > recorded_wire.CHUNK_BYTES  # 1.1.0 would chunk this report
    channel = fed_in_pieces(recorded_wire.as_1_1_0(recorded), piece)
    assert_whole_recorded_run(channel, report)
    assert channel.closed
    assert channel.take_replies() == b""  # report:* messages are never answered


def test_the_recorded_reports_64_kib_cut_falls_inside_a_character() -> None:
    # Why the byte-wise join matters for this recording: decoding chunk by chunk would fail.
    report = recorded_wire.report_of(recorded_wire.recorded_1_0_7())
    with pytest.raises(UnicodeDecodeError):
        report[: recorded_wire.CHUNK_BYTES].decode("utf-8")


def test_the_recorded_run_as_head_gets_its_coverage_question_answered() -> None:
    recorded = recorded_wire.recorded_1_0_7()
    question, after = recorded_wire.head_coverage_calls()
    body = recorded_wire.as_1_1_0(recorded)
    report_at = body.index(call_prefix("report:start")) - HEADER_SIZE
    channel = fed(body[:report_at], question)
    assert reply_payloads(channel.take_replies()) == [b"0"]  # the guest may go on now
    channel.write_stdout(after + body[report_at:])
    channel.finish()
    assert_whole_recorded_run(channel, recorded_wire.report_of(recorded))
    assert channel.take_replies() == b""


def call_prefix(kind: str) -> bytes:
    """The start of a CALL frame of this kind, as json.dumps writes it."""
    return json.dumps({"kind": kind}).encode()[:-1]


def test_past_the_output_limit_nothing_more_is_read() -> None:
    channel = ProtocolChannel(None, output_limit=100)
    channel.write_stdout(call("event:log", file="x", depth=0, text="before"))
    assert not channel.over_limit
    channel.write_stdout(b"y" * 200)
    assert channel.over_limit
    channel.write_stdout(call("event:log", file="x", depth=0, text="after"))
    assert channel.logs == ["before"]
    assert channel.bytes_received <= 100 + 200  # the rest was not even counted


# -- fuzz builds ---------------------------------------------------------------------------------


def test_a_fuzz_build_gets_its_campaign_and_a_test_build_the_generic_answer() -> None:
    fuzzing = ProtocolChannel(None, fuzz_config=b"200\n1337\n2\n1.5")
    fuzzing.write_stdout(call("fuzz:config"))
    assert fuzzing.fuzz_config_asked
    assert all_replies(fuzzing) == [b"200\n1337\n2\n1.5"]
    testing = fed(call("fuzz:config"))
    assert not testing.fuzz_config_asked
    assert all_replies(testing) == [GENERIC_REPLY]


# -- as-test 1.8 streams coverage beside the report ------------------------------------------------


def test_streamed_coverage_is_gathered_in_the_reports_coverage_shape() -> None:
    channel = fed(
        call("coverage:detail"),
        call("coverage:summary", total=3, covered=2, uncovered=1, percent=66.5, detail=0),
        call("coverage:batch", file="assembly/src/calc.ts", points=[[4, 3, "Function", 1]]),
        call(
            "coverage:batch",
            file="assembly/src/shapes.ts",
            points=[[9, 10, "Block", 0], [12, 1, "Expression", 1], [1, 2], "junk"],
        ),
        call("coverage:batch", points=[[1, 1, "Block", 1]]),  # no file: dropped, as as-test does
        data(REPORT),
    )
    assert all_replies(channel) == [b"0"]
    coverage = coverage_from_dict(channel.streamed_coverage)
    assert coverage is not None
    assert (coverage.total, coverage.covered, coverage.uncovered, coverage.percent) == (
        3,
        2,
        1,
        66.5,
    )
    assert [(p.file, p.line, p.column, p.type, p.executed, p.hash) for p in coverage.points] == [
        ("assembly/src/calc.ts", 4, 3, "Function", True, "4:3:Function"),
        ("assembly/src/shapes.ts", 9, 10, "Block", False, "9:10:Block"),
        ("assembly/src/shapes.ts", 12, 1, "Expression", True, "12:1:Expression"),
    ]


def test_detailed_points_keep_the_guests_hash() -> None:
    channel = fed(
        call("coverage:summary", total=1, covered=1, uncovered=0, percent=100, detail=1),
        call("coverage:batch", file="a.ts", points=[[1, 2, "Block", 1, "h1", "", "fn", "f", 0]]),
    )
    coverage = coverage_from_dict(channel.streamed_coverage)
    assert coverage is not None and coverage.points[0].hash == "h1"


def test_detailed_points_carry_their_parent_scope_and_depth_through_a_result_file() -> None:
    channel = fed(
        call("coverage:summary", total=2, covered=1, uncovered=1, percent=50, detail=1),
        call(
            "coverage:batch",
            file="a.ts",
            points=[
                [1, 1, "Function", 1, "f1", "", "Function", "add", 0],
                [2, 3, "Block", 0, "b1", "f1", "", "", 1],
            ],
        ),
    )
    coverage = coverage_from_dict(channel.streamed_coverage)
    assert coverage is not None
    function, block = coverage.points
    assert (function.scope_kind, function.scope_name, function.parent_hash) == (
        "Function",
        "add",
        "",
    )
    assert (block.parent_hash, block.depth) == ("f1", 1)
    stored = decode(ReportCoverage, encode(coverage))  # as the result file keeps it
    assert stored.points == coverage.points


def test_a_1_0_7_guest_streams_no_coverage() -> None:
    assert fed(data(REPORT)).streamed_coverage is None


def test_chunk_totals_the_guest_leaves_out_are_not_checked() -> None:
    """as-test checks a chunked report's count and size only when the guest gave them."""
    channel = fed(call("report:start"), data(b"ab"), data(b"cd"), call("report:end"))
    assert channel.report_problem is None
    assert channel.report_payload == b"abcd"


def test_coverage_numbers_past_any_float_are_read_as_no_number() -> None:
    # JSON holds integers of any size, and a spec's own messages are untrusted.
    huge = 10**400
    channel = fed(
        call("coverage:summary", total=huge, covered=1, uncovered=0, percent=huge, detail=huge),
        call("coverage:batch", file="a.ts", points=[[huge, 2, "Block", huge]]),
    )
    assert all_replies(channel) == []
    coverage = coverage_from_dict(channel.streamed_coverage)
    assert coverage is not None
    assert (coverage.total, coverage.percent) == (0, 0.0)
    (point,) = coverage.points
    assert (point.line, point.executed, point.hash) == (0, False, f"{huge}:2:Block")
