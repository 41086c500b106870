"""The run action drives whatever runtime its request carries, and records what came of it.

The runtime here replays a real as-test 1.0.7 guest's output (tests/recorded_wire.py): a runtime
is a class with the ``Runtime`` members, and the run action needs neither Node nor wasm to be
tested.
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest

from astest_tasks.actions.run_action import run_spec
from astest_tasks.actions.snapshot_state import SNAPSHOT_STATE, snapshot_state
from astest_tasks.build.compiler import BuildRecord
from astest_tasks.core.setup_checks import Check
from astest_tasks.model.crash_records import crash_entry
from astest_tasks.model.results import Stage, Status, read_result
from astest_tasks.run.channel import ProtocolChannel
from astest_tasks.run.guest_run import GuestRun
from astest_tasks.run.run_request import RunRequest
from astest_tasks.run.runtime import RunnableSpec, RuntimeDefaults, SpecLimits
from astest_tasks.run.runtime_command import resolve_runtime
from astest_tasks.run.runtime_request import RuntimeRequest
from astest_tasks.run.wasm_compiler import SWITCH_VARIABLE, WasmCompiler
from tests.conftest import make_run_request
from tests.recorded_wire import RECORDED_TESTS, SPEC_FILE, recorded_1_0_7

RECORD = ".as-test/build/wasi/large.spec.build.json"


@dataclass(frozen=True)
class ReplayingRuntime(RuntimeDefaults):
    """Sends the recorded guest's stdout, then ends as told; remembers nothing between runs."""

    exit_code: int = 0

    @classmethod
    def claim(cls, request: RuntimeRequest) -> ReplayingRuntime | None:
        return None  # a stand-in: never chosen for a mode's command

    def doctor_checks(self, project_root: Path, scope: str) -> list[Check]:
        return []  # a stand-in: never seen by the doctor

    @property
    def description(self) -> str:
        return "a recorded as-test 1.0.7 guest"

    def input_files(self, project_root: Path) -> list[str]:
        return []

    def run(self, spec: RunnableSpec, channel: ProtocolChannel, limits: SpecLimits) -> GuestRun:
        assert spec.wasm_path == ".as-test/build/wasi/large.spec.wasm"
        assert limits == SpecLimits(timeout_s=7.0, memory_bytes=16 * 1024 * 1024)
        channel.write_stdout(recorded_1_0_7())
        channel.finish()
        return GuestRun(exit_code=self.exit_code, stderr="", elapsed_s=0.01)


def request(root: Path, runtime: ReplayingRuntime) -> RunRequest:
    return make_run_request(root, "large", runtime, timeout_s=7.0, memory_mib=16.0)


def built(root: Path) -> Path:
    record = BuildRecord(
        status="ok",
        spec=f"assembly/__tests__/{SPEC_FILE}",
        mode="wasi",
        target="wasi",
        wasm=".as-test/build/wasi/large.spec.wasm",
        wasm_sha256="0" * 64,
        command="npx asc assembly/__tests__/large.spec.ts",
        exit_code=0,
        diagnostics="",
    )
    (root / RECORD).parent.mkdir(parents=True)
    (root / RECORD).write_text(record.to_json())
    return root


def test_the_runtime_the_request_carries_runs_the_spec(tmp_path: Path) -> None:
    run = request(built(tmp_path), ReplayingRuntime())
    saved = run_spec(run, "session-1")
    result = read_result(tmp_path / run.files.result)
    assert result is not None
    assert result.status is Status.PASSED, result.error
    assert result.counts.tests_passed == RECORDED_TESTS
    assert result.session == "session-1"
    assert saved == {SNAPSHOT_STATE: snapshot_state(tmp_path, run.snapshots.files)}


def test_a_runtime_that_ends_badly_after_a_good_report_fails_the_spec_with_a_crash_record(
    tmp_path: Path,
) -> None:
    run = request(built(tmp_path), ReplayingRuntime(exit_code=3))
    run_spec(run, "session-1")
    result = read_result(tmp_path / run.files.result)
    assert result is not None
    assert result.status is Status.FAILED and result.error
    assert (tmp_path / f"{crash_entry(run.crash_dir, 'large', 'wasi')}.json").is_file()


def test_without_a_build_record_the_runtime_is_not_asked(tmp_path: Path) -> None:
    run = request(tmp_path, ReplayingRuntime())
    run_spec(run, "session-1")
    result = read_result(tmp_path / run.files.result)
    assert result is not None
    assert (result.status, result.stage, result.error) == (Status.FAILED, Stage.BUILD, "not built")
    (failure,) = result.failures
    assert failure.message.endswith("build it with `doit astest:build:wasi:large`")


def test_a_request_pickles_whole_with_the_runtime_it_carries(tmp_path: Path) -> None:
    """doit -n ships each action's arguments to a worker process."""
    runtime = resolve_runtime("node ./runner.mjs <file>", "wasi", tmp_path, "cmd")
    original = replace(request(tmp_path, ReplayingRuntime()), runtime=runtime)
    assert pickle.loads(pickle.dumps(original)) == original


@dataclass(frozen=True)
class TimedRuntime(ReplayingRuntime):
    """Also notes how long each spec it is asked to run took last time."""

    told: list[float | None] = field(default_factory=list, compare=False)

    def run(self, spec: RunnableSpec, channel: ProtocolChannel, limits: SpecLimits) -> GuestRun:
        self.told.append(spec.previous_run_s)
        return super().run(spec, channel, limits)


def test_the_runtime_is_told_how_long_the_specs_last_run_took_whatever_its_verdict(
    tmp_path: Path,
) -> None:
    """It picks wasmtime's compiler by that (run/wasm_compiler.py)."""
    runtime = TimedRuntime(exit_code=3)  # a failed run is remembered too: it may have timed out
    run = request(built(tmp_path), runtime)
    run_spec(run, "session-1")
    first = read_result(tmp_path / run.files.result)
    assert first is not None and first.status is Status.FAILED
    run_spec(run, "session-2")
    assert runtime.told == [None, first.duration_s]


@dataclass(frozen=True)
class DeepRuntime(ReplayingRuntime):
    """Its first run ends with its call stack run out in code ``first`` compiled."""

    first: WasmCompiler = WasmCompiler.WINCH
    asked: list[WasmCompiler | None] = field(default_factory=list, compare=False)

    def run(self, spec: RunnableSpec, channel: ProtocolChannel, limits: SpecLimits) -> GuestRun:
        self.asked.append(spec.compiler)
        if len(self.asked) > 1:
            return super().run(spec, channel, limits)
        channel.write_stdout(recorded_1_0_7()[:100])  # half a report: must not count
        channel.finish()
        return GuestRun(
            exit_code=1,
            stderr="wasm trap: call stack exhausted\n",
            elapsed_s=0.01,
            trap="call stack exhausted",
            stack_exhausted=True,
            compiled_by=self.first,
        )


@pytest.mark.parametrize(
    ("first", "then"),
    [(WasmCompiler.WINCH, WasmCompiler.CRANELIFT), (WasmCompiler.CRANELIFT, WasmCompiler.WINCH)],
)
def test_a_run_out_of_stack_is_run_again_under_the_other_compiler(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, first: WasmCompiler, then: WasmCompiler
) -> None:
    monkeypatch.setattr("platform.machine", lambda: "x86_64")
    runtime = DeepRuntime(first=first)
    run = request(built(tmp_path), runtime)
    run_spec(run, "session-1")
    assert runtime.asked == [None, then]
    result = read_result(tmp_path / run.files.result)
    assert result is not None
    assert result.status is Status.PASSED, result.error
    assert result.counts.tests_passed == RECORDED_TESTS


def test_with_one_compiler_chosen_a_run_out_of_stack_is_the_verdict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SWITCH_VARIABLE, "winch")
    runtime = DeepRuntime()
    run = request(built(tmp_path), runtime)
    run_spec(run, "session-1")
    assert runtime.asked == [None]
    result = read_result(tmp_path / run.files.result)
    assert result is not None
    assert result.status is Status.FAILED
    assert "call stack exhausted" in str(result.failures)
