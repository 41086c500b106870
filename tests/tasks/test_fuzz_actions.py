"""How a fuzz campaign's end is judged, from hand-made runs (the real ones: test_fuzz.py)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from astest_tasks.fuzz.runs import FuzzCampaign, replay_command
from astest_tasks.model.results import SpecIdentity
from astest_tasks.run.channel import ProtocolChannel
from astest_tasks.run.guest_run import GuestRun
from astest_tasks.run.limits import ModeLimits
from astest_tasks.run.wipc import FrameType, encode_frame
from astest_tasks.tasks.fuzz_actions import FuzzRunRequest, _judge
from tests.fuzz.test_fuzzer_report import REPORT

REQUEST = FuzzRunRequest(
    project_root="/p",
    fuzz_file=SpecIdentity("assembly/__fuzz__/a.fuzz.ts", "a", "wasi", "bindings"),
    wasm_path="a.wasm",
    build_record_path="a.build.json",
    result_path="a.result.json",
    crash_dir="crashes",
    limits=ModeLimits(timeout_s=10, memory_mib=256, output_mib=1),
    campaign=FuzzCampaign(runs=200, seed=77, seed_is_random=False),
    group="astest:fuzz",
    command="doit",
    options_command="doit astest",
)
CLEAN = GuestRun(exit_code=0, stderr="", elapsed_s=0.1)


def channel(*frames: bytes) -> ProtocolChannel:
    fed = ProtocolChannel(None, output_limit=1024 * 1024, fuzz_config=b"200\n77\n0\n0")
    for frame in frames:
        fed.write_stdout(frame)
    fed.finish()
    return fed


ASK = encode_frame(FrameType.CALL, json.dumps({"kind": "fuzz:config"}).encode())


def test_a_clean_campaign_gives_its_fuzzers() -> None:
    fuzzers, problem = _judge(REQUEST, CLEAN, channel(ASK, encode_frame(FrameType.DATA, REPORT)))
    assert problem == "" and [f.name for f in fuzzers] == ["clamp keeps values", "ok"]


@pytest.mark.parametrize(
    ("run", "frames", "says"),
    [
        (GuestRun(1, "", 10.5, timed_out=True), (ASK,), "stopped after 10 s"),
        (
            GuestRun(1, "", 0.1, trap="unreachable"),
            (ASK,),
            "crashed (the module trapped: unreachable) with seed 77",
        ),
        (GuestRun(1, "", 0.1, memory_exhausted=True), (ASK,), "out of memory at the limit of 256"),
        (GuestRun.not_started("bad magic", 0.0), (), "could not be started: bad magic"),
        (CLEAN, (ASK,), "ended without sending its fuzz report"),
        (CLEAN, (), "never asked for its fuzz config"),
        (CLEAN, (ASK, encode_frame(FrameType.DATA, b'{"suites":[]}')), 'no "fuzzers" list'),
        (CLEAN, (ASK, b"x" * (2 * 1024 * 1024)), "more than 1 MiB"),
    ],
)
def test_every_other_end_is_a_failure_that_says_why(
    run: GuestRun, frames: tuple[bytes, ...], says: str
) -> None:
    fuzzers, problem = _judge(REQUEST, run, channel(*frames))
    assert fuzzers == () and says in problem


def test_replay_commands_name_the_program_that_runs_the_tasks() -> None:
    assert replay_command(REQUEST.run_command, 5) == (
        "ASTEST_FUZZ_SEED=5 ASTEST_FUZZ_RUNS=1 doit astest:fuzz:wasi:a"
    )
    standalone = replace(REQUEST, command="astest", group="web:fuzz")
    assert replay_command(standalone.run_command, 5, "") == (
        "ASTEST_FUZZ_SEED=5 astest web:fuzz:wasi:a"
    )
