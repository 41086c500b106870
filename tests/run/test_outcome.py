"""decide_suites: how a spec's run ended turns into counted suites, by as-test 1.0.7's rules."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from astest_tasks.config.as_test_version import AsTestVersion
from astest_tasks.config.run_rules import RunRules
from astest_tasks.model.counting import count, file_verdict
from astest_tasks.model.guest_report import Suite, Verdict
from astest_tasks.model.report_parsing import parse_report
from astest_tasks.run.channel import ProtocolChannel
from astest_tasks.run.guest_run import GuestRun
from astest_tasks.run.outcome import RunVerdictInput, decide_suites, is_empty_spec
from astest_tasks.run.wipc import FrameType, encode_frame

SPEC = RunVerdictInput(spec_basename="math.spec.ts", timeout_s=10.0)
REPORT = json.dumps(
    {
        "suites": [
            {
                "description": "math",
                "kind": "describe",
                "depth": 0,
                "verdict": "ok",
                "time": {"start": 0, "end": 1},
                "suites": [],
                "tests": [
                    {"order": 0, "verdict": "ok", "left": 2, "right": 2, "instr": "toBe"},
                    {"order": 1, "verdict": "ok", "left": 3, "right": 3, "instr": "toBe"},
                ],
                "logs": [],
            }
        ]
    }
).encode()
NODE_WASI_WARNING = (
    "(node:4242) ExperimentalWarning: WASI is an experimental feature and might change at any "
    "time\n(Use `node --trace-warnings ...` to show where the warning was created)\n"
)


def call(kind: str, **fields: object) -> bytes:
    return encode_frame(FrameType.CALL, json.dumps({"kind": kind, **fields}).encode())


def channel_with(*chunks: bytes) -> ProtocolChannel:
    channel = ProtocolChannel(None)
    for chunk in chunks:
        channel.write_stdout(chunk)
    channel.finish()
    return channel


def reported(payload: bytes = REPORT, *extra: bytes) -> ProtocolChannel:
    return channel_with(
        call("event:file-start", file="math.spec.ts"),
        *extra,
        encode_frame(FrameType.DATA, payload),
        encode_frame(FrameType.CLOSE, b""),
    )


def guest(
    exit_code: int = 0,
    stderr: str = "",
    *,
    timed_out: bool = False,
    start_failure: str | None = None,
    trap: str | None = None,
) -> GuestRun:
    return GuestRun(
        exit_code=exit_code,
        stderr=stderr,
        elapsed_s=0.01,
        timed_out=timed_out,
        start_failure=start_failure,
        trap=trap,
    )


def only_runtime_error(suites: tuple[Suite, ...]) -> Suite:
    assert len(suites) == 1
    return runtime_error(suites[-1])


def runtime_error(suite: Suite) -> Suite:
    assert suite.kind == "runtime-error"
    assert suite.description == "math.spec.ts"
    assert suite.verdict is Verdict.FAIL
    assert len(suite.tests) == 1
    return suite


def test_clean_run_counts_the_report_and_gives_no_reason() -> None:
    suites, reason = decide_suites(guest(), reported(), SPEC)
    assert reason == ""
    assert suites == parse_report(REPORT)
    counts = count(suites)
    assert (counts.suites_passed, counts.tests_passed, counts.tests_failed) == (1, 2, 0)
    assert file_verdict(suites) is Verdict.OK


def test_report_with_non_zero_exit_appends_a_failing_runtime_error_suite() -> None:
    suites, reason = decide_suites(guest(exit_code=3), reported(), SPEC)
    assert reason == "test runtime failed with exit code 3"
    assert suites[:-1] == parse_report(REPORT)
    failure = runtime_error(suites[-1]).tests[0]
    assert failure.instr == "test runtime failed with exit code 3"
    assert "child process exited with code 3" in failure.message
    counts = count(suites)
    assert (counts.tests_passed, counts.tests_failed) == (2, 1)
    assert (counts.suites_passed, counts.suites_failed) == (1, 1)
    assert file_verdict(suites) is Verdict.FAIL


def test_report_with_stderr_fails_the_file() -> None:
    suites, reason = decide_suites(guest(stderr="trace: hmm 1.0\n"), reported(), SPEC)
    assert reason == "test runtime wrote to stderr"
    failure = runtime_error(suites[-1]).tests[0]
    assert failure.instr == "test runtime wrote to stderr"
    assert "trace: hmm 1.0" in failure.message
    assert count(suites).tests_failed == 1
    assert file_verdict(suites) is Verdict.FAIL


def test_node_wasi_experimental_warning_in_stderr_is_ignored() -> None:
    suites, reason = decide_suites(guest(stderr=NODE_WASI_WARNING), reported(), SPEC)
    assert reason == ""
    assert suites == parse_report(REPORT)


def test_other_stderr_next_to_the_node_warning_still_counts() -> None:
    _, reason = decide_suites(guest(stderr=NODE_WASI_WARNING + "real problem\n"), reported(), SPEC)
    assert reason == "test runtime wrote to stderr"


def test_no_report_is_a_single_failure_that_shows_the_progress() -> None:
    channel = channel_with(
        call("event:file-start", file="math.spec.ts"),
        call("event:suite-start", depth=0, description="math"),
        call("event:suite-start", depth=1, description="adds"),
        call("event:suite-end", depth=1, description="adds", verdict="ok"),
        call("event:suite-start", depth=1, description="divides"),
        b"printed before dying\n",
    )
    run = guest(exit_code=1, stderr="wasm trap: integer divide by zero\n", trap="divide by zero")
    suites, reason = decide_suites(run, channel, SPEC)
    assert reason == "test runtime exited without sending a report"
    failure = only_runtime_error(suites).tests[0]
    assert failure.instr == reason
    assert "missing report payload from test runtime" in failure.message
    assert "the module trapped: divide by zero" in failure.message
    assert "finished before it stopped: math > adds (ok)" in failure.message
    assert "running when it stopped: math > divides" in failure.message
    assert "stderr:\nwasm trap: integer divide by zero" in failure.message
    assert "stdout:\nprinted before dying" in failure.message
    counts = count(suites)
    assert (counts.suites_failed, counts.tests_failed, counts.tests_passed) == (1, 1, 0)


def test_no_report_and_no_events_says_run_never_started() -> None:
    suites, _ = decide_suites(guest(exit_code=7), channel_with(), SPEC)
    message = only_runtime_error(suites).tests[0].message
    assert "the spec exited with code 7" in message
    assert "it stopped before as-test's run() started" in message


def test_invalid_report_json_is_an_invalid_payload_failure() -> None:
    suites, reason = decide_suites(guest(), reported(b'{"suites": [oops'), SPEC)
    assert reason == "runtime returned an invalid report payload"
    failure = only_runtime_error(suites).tests[0]
    assert failure.instr == reason
    assert "could not parse report payload: report payload is not valid JSON" in failure.message
    assert file_verdict(suites) is Verdict.FAIL


def test_chunk_mismatch_is_an_invalid_payload_failure() -> None:
    channel = channel_with(
        call("report:start", totalBytes=len(REPORT), chunkCount=2),
        encode_frame(FrameType.DATA, REPORT),
        call("report:end", totalBytes=len(REPORT), chunkCount=2),
    )
    suites, reason = decide_suites(guest(), channel, SPEC)
    assert reason == "runtime returned an invalid report payload"
    assert "the chunked report does not add up" in only_runtime_error(suites).tests[0].message


def test_timeout_without_report_names_the_limit_and_how_to_raise_it() -> None:
    spec = RunVerdictInput(spec_basename="math.spec.ts", timeout_s=0.5)
    channel = channel_with(
        call("event:file-start"), call("event:suite-start", depth=0, description="slow")
    )
    run = guest(exit_code=1, timed_out=True, trap="timed out")
    suites, reason = decide_suites(run, channel, spec)
    assert reason == "test runtime timed out after 0.5 s (limit: --timeout / ASTEST_TIMEOUT)"
    failure = only_runtime_error(suites).tests[0]
    assert failure.instr == reason
    assert "stopped after 0.5 s of wall-clock time" in failure.message
    assert "--timeout SECONDS" in failure.message
    assert "ASTEST_TIMEOUT" in failure.message
    assert "running when it stopped: slow" in failure.message


def test_timeout_after_a_report_keeps_the_report_and_appends_the_failure() -> None:
    run = guest(exit_code=1, timed_out=True, trap="timed out")
    suites, reason = decide_suites(run, reported(), SPEC)
    assert reason == "test runtime timed out after 10 s (limit: --timeout / ASTEST_TIMEOUT)"
    assert suites[:-1] == parse_report(REPORT)
    runtime_error(suites[-1])


def test_a_timeout_says_how_long_the_spec_took_when_it_last_passed() -> None:
    spec = RunVerdictInput(spec_basename="math.spec.ts", timeout_s=300, last_pass_s=19.24)
    run = guest(exit_code=1, timed_out=True, trap="timed out")
    suites, reason = decide_suites(run, channel_with(call("event:file-start")), spec)
    assert reason == (
        "test runtime timed out after 300 s "
        "(limit: --timeout / ASTEST_TIMEOUT; it passed in 19.2 s last time)"
    )
    assert only_runtime_error(suites).tests[0].instr == reason


def test_start_failure_is_failed_to_start_with_the_cause() -> None:
    run = guest(exit_code=1, start_failure="the spec imports env.mystery, which nothing supplies")
    suites, reason = decide_suites(run, channel_with(), SPEC)
    assert reason == "failed to start test runtime"
    failure = only_runtime_error(suites).tests[0]
    assert failure.instr == "failed to start test runtime"
    assert "env.mystery" in failure.message
    counts = count(suites)
    assert (counts.suites_failed, counts.tests_failed) == (1, 1)


def test_a_timeout_overrun_by_host_code_says_how_long_it_really_took() -> None:
    spec = RunVerdictInput(spec_basename="math.spec.ts", timeout_s=2.0)
    slow = GuestRun(exit_code=1, stderr="", elapsed_s=15.4, timed_out=True, trap="timed out")
    suites, _ = decide_suites(slow, channel_with(), spec)
    message = only_runtime_error(suites).tests[0].message
    assert "it took 15.4 s in all" in message
    assert "host function" in message
    on_time = GuestRun(exit_code=1, stderr="", elapsed_s=2.05, timed_out=True, trap="timed out")
    suites, _ = decide_suites(on_time, channel_with(), spec)
    assert "in all" not in only_runtime_error(suites).tests[0].message


def test_output_past_the_limit_names_the_limit_and_how_to_raise_it() -> None:
    channel = ProtocolChannel(None, output_limit=2 * 1024 * 1024)
    channel.write_stdout(call("event:file-start", file="math.spec.ts"))
    channel.write_stdout(b"spam" * (1024 * 1024))
    channel.finish()
    spec = RunVerdictInput(spec_basename="math.spec.ts", timeout_s=10)
    suites, reason = decide_suites(guest(exit_code=1), channel, spec)
    assert reason == "the spec's output passed the limit of 2 MiB"
    failure = only_runtime_error(suites).tests[0]
    assert "--output-limit MIB" in failure.message and "ASTEST_OUTPUT_LIMIT" in failure.message


def test_the_output_limit_is_named_as_given_not_as_its_bytes() -> None:
    # --output-limit 0.1 is 104,857 bytes for the channel, which reads back as 0.0999994 MiB.
    channel = ProtocolChannel(None, output_limit=int(0.1 * 1024 * 1024))
    channel.write_stdout(b"spam" * (64 * 1024))
    channel.finish()
    spec = RunVerdictInput(spec_basename="math.spec.ts", timeout_s=10, output_limit_mib=0.1)
    _, reason = decide_suites(guest(exit_code=1), channel, spec)
    assert reason == "the spec's output passed the limit of 0.1 MiB"


def test_a_failure_at_the_memory_limit_says_so_and_how_to_raise_it() -> None:
    run = GuestRun(exit_code=1, stderr="", elapsed_s=0.1, trap="unreachable", memory_exhausted=True)
    spec = RunVerdictInput(spec_basename="math.spec.ts", timeout_s=10, memory_limit_mib=16)
    suites, reason = decide_suites(run, channel_with(call("event:file-start")), spec)
    assert reason == "the spec ran out of memory at the limit of 16 MiB"
    failure = only_runtime_error(suites).tests[0]
    assert "--memory-limit MIB" in failure.message and "ASTEST_MEMORY_LIMIT" in failure.message
    assert "the module trapped: unreachable" in failure.message


# -- any stdout at all: a verdict, never an exception ---------------------------------------------

_KINDS = st.sampled_from(
    [
        "event:file-start",
        "event:suite-start",
        "event:suite-end",
        "event:file-end",
        "event:log",
        "event:assert-fail",
        "event:warn",
        "snapshot:assert",
        "report:start",
        "report:end",
        "coverage:detail",
        "coverage:batch",
        "fuzz:config",
        "something:new",
    ]
)
_FIELD_VALUES = st.one_of(
    st.none(), st.integers(), st.floats(allow_nan=True), st.text(max_size=12), st.booleans()
)
_CALLS = st.builds(
    lambda kind, fields: encode_frame(
        FrameType.CALL, json.dumps({"kind": kind, **fields}).encode()
    ),
    _KINDS,
    st.dictionaries(
        st.sampled_from(["file", "depth", "text", "key", "actual", "verdict", "totalBytes"]),
        _FIELD_VALUES,
        max_size=4,
    ),
)
_REPORTISH = st.sampled_from(
    [REPORT, b"{", b"[]", b"null", b'{"suites": 3}', b"\xff\xfe", b'{"suites": [{}]}']
)
_FRAMES = st.one_of(
    _CALLS,
    _REPORTISH.map(lambda payload: encode_frame(FrameType.DATA, payload)),
    st.builds(encode_frame, st.sampled_from(list(FrameType)), st.binary(max_size=32)),
    # a header promising an absurd length, or a type nobody knows, then a few bytes
    st.builds(
        lambda kind, length, tail: b"WIPC" + bytes([kind]) + length.to_bytes(4, "little") + tail,
        st.integers(0, 255),
        st.integers(0, 2**32 - 1),
        st.binary(max_size=16),
    ),
    st.binary(max_size=48),  # plain garbage, invalid UTF-8 included
)


@settings(max_examples=300, deadline=None, database=None)  # bounded: a fixed, small budget
@given(
    pieces=st.lists(_FRAMES, max_size=10),
    exit_code=st.sampled_from([0, 1, 255]),
    timed_out=st.booleans(),
    stderr=st.sampled_from(["", "abort: boom\n", "\udcff"]),
)
def test_any_stdout_gives_a_verdict_and_never_an_exception(
    pieces: list[bytes], exit_code: int, timed_out: bool, stderr: str
) -> None:
    channel = ProtocolChannel(None, output_limit=4096)
    for piece in pieces:
        channel.write_stdout(piece)
    channel.finish()
    run = guest(exit_code, stderr, timed_out=timed_out)
    suites, reason = decide_suites(run, channel, RunVerdictInput("math.spec.ts", timeout_s=1))
    verdict = file_verdict(suites)
    count(suites)
    if channel.report_payload is None or timed_out or exit_code != 0:
        # Without a whole report and a clean exit, a spec can never pass.
        assert verdict is Verdict.FAIL and reason


# ---- as-test 1.5.1+ / 1.5.3+: a runtime that sent no report -----------------------------------

V18 = RunVerdictInput(
    spec_basename="math.spec.ts",
    timeout_s=10.0,
    rules=RunRules.for_version(AsTestVersion.parse("1.8.0")),
)


def test_under_1_8_a_clean_exit_that_sent_nothing_is_an_empty_skipped_spec() -> None:
    channel = channel_with()
    suites, reason = decide_suites(guest(), channel, V18)
    assert (suites, reason) == ((), "")
    assert is_empty_spec(guest(), channel, V18.rules)
    assert count(suites, every_block_is_suite=True) == count(())
    assert file_verdict(suites) is Verdict.NONE  # a skipped file


def test_under_1_0_a_clean_exit_that_sent_nothing_is_a_missing_report() -> None:
    suites, reason = decide_suites(guest(), channel_with(), SPEC)
    assert reason == "test runtime exited without sending a report"
    only_runtime_error(suites)
    assert not is_empty_spec(guest(), channel_with(), SPEC.rules)


def test_under_1_8_silence_with_a_non_zero_exit_or_stderr_is_still_a_failure() -> None:
    for run in (guest(exit_code=1), guest(stderr="boom\n")):
        _, reason = decide_suites(run, channel_with(), V18)
        assert reason == "test runtime exited without sending a report"


def test_under_1_8_a_runtime_that_stops_before_file_end_fails_with_the_events_kept() -> None:
    channel = channel_with(
        call("event:file-start", file="assembly/__tests__/math.spec.ts"),
        call("event:suite-start", depth=0, description="math", suiteKind="describe"),
    )
    suites, reason = decide_suites(guest(), channel, V18)
    assert reason == "test runtime exited before completing the test file"
    rebuilt, failure = suites
    assert (rebuilt.kind, rebuilt.description) == ("file", "assembly/__tests__/math.spec.ts")
    assert rebuilt.verdict is Verdict.NONE
    assert failure.kind == "runtime-error"
    assert "test runtime exited before reporting file completion" in failure.tests[0].message
    assert file_verdict(suites) is Verdict.FAIL


def test_under_1_8_a_runtime_that_reached_file_end_without_a_report_is_rebuilt() -> None:
    channel = channel_with(
        call("event:file-start", file="math.spec.ts"),
        call("event:suite-start", depth=0, description="math", suiteKind="describe"),
        call("event:suite-end", depth=0, description="math", verdict="ok"),
        call("event:file-end", file="math.spec.ts", verdict="ok"),
    )
    suites, reason = decide_suites(guest(), channel, V18)
    assert reason == ""
    (rebuilt,) = suites
    assert (rebuilt.kind, rebuilt.verdict) == ("file", Verdict.OK)
    # 1.0.7 knows no rebuilding: the same run is a missing report there.
    _, old_reason = decide_suites(guest(), channel, SPEC)
    assert old_reason == "test runtime exited without sending a report"
