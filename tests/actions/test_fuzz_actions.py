"""How a fuzz campaign's end is judged, from hand-made runs (the real ones: test_fuzz.py)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from astest_tasks.actions.fuzz_actions import FuzzRunRequest, _judge, _write_crash_records
from astest_tasks.core.disk_space import DiskFull
from astest_tasks.fuzz.crash_records import FuzzCrash
from astest_tasks.fuzz.runs import FuzzCampaign, replay_command
from astest_tasks.model.results import SpecIdentity
from astest_tasks.run.channel import ProtocolChannel
from astest_tasks.run.guest_run import GuestRun
from astest_tasks.run.limit_messages import (
    LimitedRun,
    LimitMessage,
    memory_exhausted,
    output_flooded,
    timed_out,
)
from astest_tasks.run.limits import ModeLimits
from astest_tasks.run.wipc import FrameType, encode_frame
from tests.fuzz.test_fuzzer_report import REPORT
from tests.tmpfs import fill, mounted_tmpfs

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
CAMPAIGN = LimitedRun(
    "the campaign",
    "doit astest",
    tasks="astest:fuzz",
    shorter_run="run fewer iterations with ASTEST_FUZZ_RUNS",
)


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


@pytest.mark.parametrize(
    ("run", "frames", "message"),
    [
        (
            GuestRun(1, "", 10.5, timed_out=True),
            (ASK,),
            timed_out(CAMPAIGN, 10),
        ),
        (CLEAN, (ASK, b"x" * (2 * 1024 * 1024)), output_flooded(CAMPAIGN, 1)),
        (GuestRun(1, "", 0.1, memory_exhausted=True), (ASK,), memory_exhausted(CAMPAIGN, 256)),
    ],
)
def test_a_campaign_stopped_at_a_limit_says_so_as_a_spec_does(
    run: GuestRun, frames: tuple[bytes, ...], message: LimitMessage
) -> None:
    """The spec path's wording (run/limit_messages.py): title, then what happened and the fix."""
    _, problem = _judge(REQUEST, run, channel(*frames))
    assert problem == f"{message.title}\n{message.details}"


def test_a_limit_hint_gives_the_options_before_the_fuzz_group() -> None:
    """`doit astest --timeout 5 astest:fuzz`: doit would drop an option after the task name."""
    _, problem = _judge(REQUEST, GuestRun(1, "", 10.5, timed_out=True), channel(ASK))
    assert problem.splitlines() == [
        "test runtime timed out after 10 s (limit: --timeout / ASTEST_TIMEOUT)",
        "the campaign was stopped after 10 s of wall-clock time; if it is merely slow, raise the "
        "limit with `doit astest --timeout SECONDS astest:fuzz` or ASTEST_TIMEOUT, or run fewer "
        "iterations with ASTEST_FUZZ_RUNS",
    ]
    standalone = replace(REQUEST, options_command="astest", group="web:fuzz")
    _, problem = _judge(standalone, CLEAN, channel(ASK, b"x" * (2 * 1024 * 1024)))
    assert problem.endswith("`astest --output-limit MIB web:fuzz` or ASTEST_OUTPUT_LIMIT")


def test_replay_commands_name_the_program_that_runs_the_tasks() -> None:
    assert replay_command(REQUEST.run_command, 5) == (
        "ASTEST_FUZZ_SEED=5 ASTEST_FUZZ_RUNS=1 doit astest:fuzz:wasi:a"
    )
    standalone = replace(REQUEST, command="astest", group="web:fuzz")
    assert replay_command(standalone.run_command, 5, "") == (
        "ASTEST_FUZZ_SEED=5 astest web:fuzz:wasi:a"
    )


CRASH = FuzzCrash(
    file="assembly/__fuzz__/a.fuzz.ts", file_id="a", mode="wasi", seed=77,
    error="the module trapped: unreachable", stdout="", stderr="", cwd="/p",
    build_command="doit astest:build:wasi:a", repro_command="doit astest:fuzz:wasi:a",
)  # fmt: skip


def test_a_full_disk_fails_the_fuzz_task_instead_of_a_note_about_its_crash_record(
    tmp_path: Path,
) -> None:
    """On a real full tmpfs: ``DiskFull`` is an ``OSError``, and was swallowed into a note while
    the file's result went on; a spec's crash record (run_action.py) lets it through."""
    with mounted_tmpfs(tmp_path / "disk", 256 * 1024) as root:
        fill(root, 0)
        with pytest.raises(DiskFull):
            _write_crash_records(replace(REQUEST, project_root=str(root)), root, CRASH, ())
        assert not (root / "crashes").exists() or not any((root / "crashes").iterdir())


def test_a_crash_record_that_cannot_be_written_otherwise_is_a_note(tmp_path: Path) -> None:
    (tmp_path / "crashes").write_text("a file where the folder goes")
    logs = _write_crash_records(replace(REQUEST, project_root=str(tmp_path)), tmp_path, CRASH, ())
    assert len(logs) == 1 and logs[0].startswith("(could not write the crash record in crashes:")
