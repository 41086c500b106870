"""Runner scripts executed in-process: imports, environment, and every way a runner goes wrong."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest
import wasmtime

from astest_tasks.run import wasm_compiler
from astest_tasks.run.channel import ProtocolChannel
from astest_tasks.run.guest_run import GuestRun
from astest_tasks.run.inprocess_runtime import InProcessRuntime
from astest_tasks.run.runner_script import RunnerContext, run_runner_script
from astest_tasks.run.runtime import RunnableSpec, SpecLimits
from astest_tasks.run.wasm_compiler import SWITCH_VARIABLE
from astest_tasks.run.wasm_host import HostLimits
from astest_tasks.runner import RunnerUsageError, instantiate
from tests.run.compilers import compiled_by_winch, needs_winch

# A WASI guest whose _start writes host_add(2, 3) as one byte to stdout.
GUEST = """(module
  (import "env" "host_add" (func $host_add (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write"
    (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "_start")
    (i32.store8 (i32.const 100)
      (i32.add (i32.const 48) (call $host_add (i32.const 2) (i32.const 3))))
    (i32.store (i32.const 0) (i32.const 100))
    (i32.store (i32.const 4) (i32.const 1))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))))"""

ADDING_RUNNER = """
from astest_tasks.runner import instantiate

def host_add(a, b):
    return a + b

instantiate({"env": {"host_add": host_add}}).start()
"""


def run_script(
    tmp_path: Path, source: str, environ: dict[str, str] | None = None
) -> tuple[GuestRun, ProtocolChannel]:
    wasm = tmp_path / "guest.wasm"
    wasm.write_bytes(bytes(wasmtime.wat2wasm(GUEST)))
    script = tmp_path / "runner.py"
    script.write_text(source)
    channel = ProtocolChannel(None)
    context = RunnerContext(
        runner_path="runner.py",
        wasm_path=wasm,
        target="wasi",
        channel=channel,
        limits=HostLimits(timeout_s=5.0),
        wasi_env={},
        environ=environ or {},
    )
    return run_runner_script(script, context), channel


def test_the_runner_supplies_a_host_import_the_spec_calls(tmp_path: Path) -> None:
    run, channel = run_script(tmp_path, ADDING_RUNNER)
    assert run.exit_code == 0, run
    assert channel.output_text == "5"


def test_an_instantiated_spec_is_started_even_if_the_runner_forgets(tmp_path: Path) -> None:
    source = ADDING_RUNNER.replace(").start()", ")")
    run, channel = run_script(tmp_path, source)
    assert run.exit_code == 0
    assert channel.output_text == "5"


def test_the_runner_sees_the_runtime_variables_only_while_it_runs(tmp_path: Path) -> None:
    source = ADDING_RUNNER + (
        "\nimport os\nassert os.environ['AS_TEST_RUNTIME_TARGET'] == 'wasi'"
        "\nassert os.environ['MY_MODE_VAR'] == 'on'\n"
    )
    run, _ = run_script(tmp_path, source, {"AS_TEST_RUNTIME_TARGET": "wasi", "MY_MODE_VAR": "on"})
    assert run.exit_code == 0, run
    assert "MY_MODE_VAR" not in os.environ


def test_a_runner_that_never_instantiates_fails_clearly(tmp_path: Path) -> None:
    run, _ = run_script(tmp_path, "x = 1\n")
    assert "never called instantiate(imports)" in str(run.start_failure)


def test_a_runner_that_raises_first_fails_with_its_traceback(tmp_path: Path) -> None:
    run, _ = run_script(tmp_path, "raise RuntimeError('no database')\n")
    assert "raised before instantiating" in str(run.start_failure)
    assert "RuntimeError: no database" in str(run.stderr)


def test_a_runner_with_a_syntax_error_fails_clearly(tmp_path: Path) -> None:
    run, _ = run_script(tmp_path, "def broken(:\n")
    assert "cannot be loaded" in str(run.start_failure)


def test_a_missing_import_fails_the_spec_naming_it(tmp_path: Path) -> None:
    run, _ = run_script(
        tmp_path, "from astest_tasks.runner import instantiate\ninstantiate({}).start()\n"
    )
    assert "env.host_add" in str(run.start_failure)


def test_a_missing_runner_script_says_how_to_fix_it(tmp_path: Path) -> None:
    channel = ProtocolChannel(None)
    context = RunnerContext("gone.py", tmp_path / "x.wasm", "wasi", channel, HostLimits(), {}, {})
    run = run_runner_script(tmp_path / "gone.py", context)
    assert "gone.py does not exist" in str(run.start_failure)


def test_an_edited_runner_is_recompiled(tmp_path: Path) -> None:
    first, _ = run_script(tmp_path, ADDING_RUNNER)
    assert first.exit_code == 0
    second, channel = run_script(tmp_path, ADDING_RUNNER.replace("a + b", "a * b") + "\n# longer\n")
    assert second.exit_code == 0
    assert channel.output_text == "6"


def test_a_runner_replaced_by_one_of_the_same_size_and_time_is_recompiled(tmp_path: Path) -> None:
    """As a checkout or an editor's save by rename replaces it: another file, whatever its
    modification time and size say (core/project_source.py's file_signature)."""
    first, _ = run_script(tmp_path, ADDING_RUNNER)
    assert first.exit_code == 0
    script = tmp_path / "runner.py"
    before = script.stat()
    replacement = tmp_path / "runner.py.new"
    replacement.write_text(ADDING_RUNNER.replace("a + b", "a * b"))  # the same length
    os.utime(replacement, ns=(before.st_atime_ns, before.st_mtime_ns))
    os.replace(replacement, script)
    assert (script.stat().st_size, script.stat().st_mtime_ns) == (
        before.st_size,
        before.st_mtime_ns,
    )
    wasm = tmp_path / "guest.wasm"
    channel = ProtocolChannel(None)
    context = RunnerContext("runner.py", wasm, "wasi", channel, HostLimits(timeout_s=5.0), {}, {})
    assert run_runner_script(script, context).exit_code == 0
    assert channel.output_text == "6"


def test_instantiate_outside_a_run_task_says_what_to_do() -> None:
    with pytest.raises(RunnerUsageError, match="run the specs with `doit`"):
        instantiate({})


def test_sys_exit_zero_after_a_clean_start_ends_only_the_runner(tmp_path: Path) -> None:
    source = ADDING_RUNNER.replace("instantiate({", "import sys\nsys.exit(instantiate({").replace(
        ").start()", ").start())"
    )
    run, channel = run_script(tmp_path, source)
    assert run.exit_code == 0, run
    assert run.stderr == ""
    assert channel.output_text == "5"


@pytest.mark.parametrize("call", ["sys.exit(0)", "sys.exit(3)", "sys.exit('bye')"])
def test_sys_exit_before_the_spec_started_fails_the_spec_not_doit(
    tmp_path: Path, call: str
) -> None:
    run, _ = run_script(tmp_path, f"import sys\n{call}\n")
    assert run.exit_code == 1
    assert run.start_failure is not None
    assert "called sys.exit" in run.stderr


def test_sys_exit_non_zero_after_the_spec_ran_fails_it(tmp_path: Path) -> None:
    source = ADDING_RUNNER.replace(").start()", ").start()\nimport sys\nsys.exit(2)")
    run, _ = run_script(tmp_path, source)
    assert run.exit_code == 1
    assert "called sys.exit(2)" in run.stderr


# -- the runtime ---------------------------------------------------------------------------------


def test_a_custom_runner_is_an_input_while_it_exists_and_its_path_is_in_the_key(
    tmp_path: Path,
) -> None:
    runtime = InProcessRuntime(".as-test/runners/mine.py")
    assert runtime.input_files(tmp_path) == [], "a missing runner fails its specs instead"
    (tmp_path / ".as-test/runners").mkdir(parents=True)
    (tmp_path / ".as-test/runners/mine.py").write_text(ADDING_RUNNER)
    assert runtime.input_files(tmp_path) == [".as-test/runners/mine.py"]
    assert runtime.cache_key == "in-process runner .as-test/runners/mine.py"
    assert runtime.default_runner_target is None, "the user's runner: nothing renders it"


def test_the_runtime_runs_its_runner_with_the_mode_env(tmp_path: Path) -> None:
    (tmp_path / "guest.wasm").write_bytes(bytes(wasmtime.wat2wasm(GUEST)))
    (tmp_path / "runner.py").write_text(
        "import os\n"
        "from astest_tasks.runner import instantiate\n"
        "assert os.environ['GREETING'] == 'hi', 'the mode env'\n"
        "assert os.environ['AS_TEST_RUNTIME_TARGET'] == 'wasi', 'as-test variables'\n"
        "instantiate({'env': {'host_add': lambda a, b: a + b}}).start()\n"
    )
    spec = RunnableSpec(tmp_path, "guest.spec.ts", "guest.wasm", "wasi", {"GREETING": "hi"})
    channel = ProtocolChannel(None)
    run = InProcessRuntime("runner.py").run(spec, channel, SpecLimits(5.0, 1 << 24))
    assert run.exit_code == 0 and run.start_failure is None
    assert channel.output_text == "5"
    assert "GREETING" not in os.environ, "the env is the runner's only while it runs"


@needs_winch
@pytest.mark.parametrize(("previous_run_s", "by_winch"), [(None, True), (0.05, True), (9.0, False)])
def test_the_runtime_has_the_module_compiled_for_how_long_the_spec_ran_last(
    tmp_path: Path,
    instantiated: list[wasmtime.Module],
    previous_run_s: float | None,
    by_winch: bool,
) -> None:
    (tmp_path / "guest.wasm").write_bytes(bytes(wasmtime.wat2wasm(GUEST)))
    (tmp_path / "runner.py").write_text(ADDING_RUNNER)
    spec = RunnableSpec(tmp_path, "guest.spec.ts", "guest.wasm", "wasi", {}, previous_run_s)
    run = InProcessRuntime("runner.py").run(spec, ProtocolChannel(None), SpecLimits(5.0, 1 << 24))
    assert run.exit_code == 0 and run.start_failure is None
    (module,) = instantiated
    assert compiled_by_winch(module) is by_winch


def test_a_switch_naming_no_compiler_fails_the_spec_before_its_runner_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SWITCH_VARIABLE, "liftoff")
    (tmp_path / "runner.py").write_text("raise SystemExit('the runner ran')\n")
    spec = RunnableSpec(tmp_path, "guest.spec.ts", "guest.wasm", "wasi", {})
    run = InProcessRuntime("runner.py").run(spec, ProtocolChannel(None), SpecLimits(5.0, 1 << 24))
    assert run.start_failure is not None
    assert f"{SWITCH_VARIABLE}='liftoff'" in run.start_failure


def test_a_started_run_is_noted_for_the_next_spec_never_run_before(tmp_path: Path) -> None:
    (tmp_path / "guest.wasm").write_bytes(bytes(wasmtime.wat2wasm(GUEST)))
    (tmp_path / "runner.py").write_text(ADDING_RUNNER)
    spec = RunnableSpec(tmp_path, "guest.spec.ts", "guest.wasm", "wasi", {})
    run = InProcessRuntime("runner.py").run(spec, ProtocolChannel(None), SpecLimits(5.0, 1 << 24))
    assert run.start_failure is None
    assert wasm_compiler._LastRunHere.seconds == run.elapsed_s
    missing = replace(spec, wasm_path="missing.wasm")
    failed = InProcessRuntime("runner.py").run(missing, ProtocolChannel(None), SpecLimits(5, 1))
    assert failed.start_failure is not None
    assert wasm_compiler._LastRunHere.seconds == run.elapsed_s, "a spec that never started: no"
