"""Our default runner: made from its template when missing, so it is always an input."""

from __future__ import annotations

from pathlib import Path

import wasmtime

from astest_tasks.run.channel import ProtocolChannel
from astest_tasks.run.default_runtime import DefaultRuntime
from astest_tasks.run.runner_files import default_runner_source
from astest_tasks.run.runtime import RunnableSpec, SpecLimits

RUNNER = ".as-test/runners/default.wasi.py"


def test_the_default_runner_is_an_input_even_before_its_runner_task_made_it(
    tmp_path: Path,
) -> None:
    runtime = DefaultRuntime("wasi")
    assert runtime.runner == RUNNER
    assert runtime.input_files(tmp_path) == [RUNNER]
    assert runtime.default_runner_target == "wasi"


def test_its_key_is_the_one_a_configured_in_process_runner_of_that_path_had() -> None:
    # Run keys saved before the runtimes had modules of their own stay valid: no spurious re-run.
    assert DefaultRuntime("bindings").cache_key == (
        "in-process runner .as-test/runners/default.bindings.py"
    )
    assert DefaultRuntime("bindings").description == DefaultRuntime("bindings").cache_key


def test_the_rendered_default_runner_runs_a_spec(tmp_path: Path) -> None:
    (tmp_path / RUNNER).parent.mkdir(parents=True)
    (tmp_path / RUNNER).write_text(default_runner_source("wasi"))
    guest = """(module
      (import "wasi_snapshot_preview1" "fd_write"
        (func $fd_write (param i32 i32 i32 i32) (result i32)))
      (memory (export "memory") 1)
      (data (i32.const 100) "ok")
      (func (export "_start")
        (i32.store (i32.const 0) (i32.const 100))
        (i32.store (i32.const 4) (i32.const 2))
        (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))))"""
    (tmp_path / "a.wasm").write_bytes(bytes(wasmtime.wat2wasm(guest)))
    channel = ProtocolChannel(None)
    spec = RunnableSpec(tmp_path, "a.spec.ts", "a.wasm", "wasi", {})
    run = DefaultRuntime("wasi").run(spec, channel, SpecLimits(5.0, 1 << 24))
    assert (run.exit_code, run.start_failure) == (0, None)
    assert channel.output_text == "ok"
