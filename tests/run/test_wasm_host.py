"""run_module: hand-written WebAssembly guests exercising the WASI and bindings host imports."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from pathlib import Path

import pytest
import wasmtime

from astest_tasks import runner
from astest_tasks.run.channel import ProtocolChannel
from astest_tasks.run.wasm_compiler import (
    HEAVY_RUN_S,
    SWITCH_VARIABLE,
    WasmCompiler,
    compiler_for,
)
from astest_tasks.run.wasm_host import (
    GuestMemory,
    GuestRun,
    GuestStartError,
    HostLimits,
    prepare_guest,
    run_module,
)
from astest_tasks.run.wipc import HEADER_SIZE, FrameType, encode_frame
from tests import recorded_wire
from tests.run.compilers import compiled_by_winch, needs_winch

LIMITS = HostLimits(timeout_s=5.0)
FILE_START = {"kind": "event:file-start", "file": "x.spec.ts"}
SNAPSHOT_ASSERT = {"kind": "snapshot:assert", "key": "x.spec.ts::t", "actual": '"v"'}

WASI_PRELUDE = """
  (import "wasi_snapshot_preview1" "fd_write"
    (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_read"
    (func $fd_read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $proc_exit (param i32)))
  (memory (export "memory") 1)
  ;; write(fd, ptr, len): one iovec at 0, the written count at 8
  (func $write (param $fd i32) (param $ptr i32) (param $len i32)
    (i32.store (i32.const 0) (local.get $ptr))
    (i32.store (i32.const 4) (local.get $len))
    (drop (call $fd_write (local.get $fd) (i32.const 0) (i32.const 1) (i32.const 8))))
"""


def call_frame(message: Mapping[str, object]) -> bytes:
    return encode_frame(FrameType.CALL, json.dumps(message).encode())


def wat_bytes(data: bytes) -> str:
    return '"' + "".join(f"\\{byte:02x}" for byte in data) + '"'


def wasi_module(
    *writes: tuple[int, bytes] | str, then: str = "", extra: str = "", pages: int = 1
) -> str:
    """A WASI guest whose _start writes each (fd, bytes) in order, then runs ``then``.

    A plain string among ``writes`` is WAT run at that point; ``extra`` adds module fields
    (globals, functions, a start section); ``pages`` sizes the memory for large writes.
    """
    segments, calls = [extra], []
    offset = 1024
    for write in writes:
        if isinstance(write, str):
            calls.append(write)
            continue
        fd, payload = write
        segments.append(f"(data (i32.const {offset}) {wat_bytes(payload)})")
        calls.append(
            f"(call $write (i32.const {fd}) (i32.const {offset}) (i32.const {len(payload)}))"
        )
        offset += len(payload) + 16
    body = "\n    ".join([*calls, then])
    prelude = WASI_PRELUDE.replace(
        '(memory (export "memory") 1)', f'(memory (export "memory") {pages})'
    )
    return f'(module {prelude}\n  {" ".join(segments)}\n  (func (export "_start")\n    {body}))'


def array_buffer(pointer: int, payload: bytes) -> str:
    """A data segment laying out an AssemblyScript ArrayBuffer/String: u32 size at pointer - 4."""
    framed = len(payload).to_bytes(4, "little") + payload
    return f"(data (i32.const {pointer - 4}) {wat_bytes(framed)})"


def as_string(pointer: int, text: str) -> str:
    return array_buffer(pointer, text.encode("utf-16-le"))


def save(tmp_path: Path, wat: str, name: str = "guest.wasm") -> Path:
    path = tmp_path / name
    path.write_bytes(bytes(wasmtime.wat2wasm(wat)))
    return path


def run(
    tmp_path: Path,
    wat: str,
    target: str = "wasi",
    limits: HostLimits = LIMITS,
    compiler: WasmCompiler | None = None,
) -> tuple[GuestRun, ProtocolChannel]:
    channel = ProtocolChannel(None)
    result = run_module(save(tmp_path, wat), target, channel, limits, {}, compiler=compiler)
    return result, channel


# -- WASI target -----------------------------------------------------------------------------------


def test_wasi_guest_frames_passthrough_and_stderr_reach_the_host(tmp_path: Path) -> None:
    wat = wasi_module(
        (1, b"hello "),
        (1, call_frame(FILE_START)),
        (1, b"world\n"),
        (2, b"oops on stderr\n"),
    )
    result, channel = run(tmp_path, wat)
    assert result.exit_code == 0
    assert result.start_failure is None
    assert result.trap is None
    assert not result.timed_out
    assert result.stderr == "oops on stderr\n"
    assert channel.progress.file_started
    assert channel.frames_seen == 1
    assert channel.output_text == "hello world\n"


def test_fd_write_joins_several_iovecs_into_one_stream(tmp_path: Path) -> None:
    frame = call_frame({"kind": "event:warn", "message": "split"})
    half = len(frame) // 2
    wat = f"""(module {WASI_PRELUDE}
      (data (i32.const 1024) {wat_bytes(frame[:half])})
      (data (i32.const 4096) {wat_bytes(frame[half:])})
      (func (export "_start")
        (i32.store (i32.const 16) (i32.const 1024))
        (i32.store (i32.const 20) (i32.const {half}))
        (i32.store (i32.const 24) (i32.const 4096))
        (i32.store (i32.const 28) (i32.const {len(frame) - half}))
        (drop (call $fd_write (i32.const 1) (i32.const 16) (i32.const 2) (i32.const 32)))))"""
    result, channel = run(tmp_path, wat)
    assert result.exit_code == 0
    assert channel.warnings == ["split"]
    assert channel.output_text == ""


def test_proc_exit_keeps_its_code_and_what_was_written_before(tmp_path: Path) -> None:
    wat = wasi_module(
        (1, call_frame(FILE_START)),
        (2, b"abort: kaboom\n"),
        then="(call $proc_exit (i32.const 255))",
    )
    result, channel = run(tmp_path, wat)
    assert result.exit_code == 255
    assert result.trap is None
    assert result.start_failure is None
    assert result.stderr == "abort: kaboom\n"
    assert channel.progress.file_started


def test_proc_exit_zero_is_a_clean_exit(tmp_path: Path) -> None:
    result, _ = run(tmp_path, wasi_module(then="(call $proc_exit (i32.const 0))"))
    assert result.exit_code == 0
    assert result.stderr == ""


def test_unreachable_trap_is_exit_code_one_with_the_trap_in_stderr(tmp_path: Path) -> None:
    result, channel = run(tmp_path, wasi_module((1, b"partial"), then="unreachable"))
    assert result.exit_code == 1
    assert result.trap
    assert not result.timed_out
    assert result.start_failure is None
    assert result.stderr == f"wasm trap: {result.trap}\n"
    assert channel.output_text == "partial"


def test_trap_description_names_the_cause(tmp_path: Path) -> None:
    result, _ = run(tmp_path, wasi_module(then="unreachable"))
    assert result.trap is not None
    assert "unreachable" in result.trap
    assert "unreachable" in result.stderr


def test_module_with_a_start_function_runs(tmp_path: Path) -> None:
    init = """(global $g (mut i32) (i32.const 0))
      (func $init (global.set $g (i32.const 1)))
      (start $init)"""
    result, channel = run(tmp_path, wasi_module((1, b"ran"), extra=init))
    assert result.start_failure is None
    assert result.exit_code == 0
    assert channel.output_text == "ran"


def test_infinite_loop_is_stopped_by_the_timeout(tmp_path: Path) -> None:
    wat = wasi_module((1, call_frame(FILE_START)), then="(loop $spin (br $spin))")
    started = time.monotonic()
    result, channel = run(tmp_path, wat, limits=HostLimits(timeout_s=0.3))
    assert time.monotonic() - started < 30.0  # stopped, not spinning (a loaded machine is slow)
    assert result.timed_out
    assert result.exit_code == 1
    assert result.trap == "timed out"
    assert result.elapsed_s >= 0.2
    assert channel.progress.file_started  # output before the timeout is still there


def test_unknown_env_import_is_a_start_failure_naming_it(tmp_path: Path) -> None:
    wat = """(module
      (import "env" "mystery" (func $mystery (param i32)))
      (memory (export "memory") 1)
      (func (export "_start") (call $mystery (i32.const 1))))"""
    result, _ = run(tmp_path, wat)
    assert result.start_failure is not None
    assert "env.mystery" in result.start_failure
    assert "mockImport" in result.start_failure
    assert result.exit_code == 1


def test_import_from_another_module_is_a_start_failure_naming_it(tmp_path: Path) -> None:
    wat = """(module
      (import "mylib" "helper" (func $helper))
      (func (export "_start") (call $helper)))"""
    result, _ = run(tmp_path, wat)
    assert result.start_failure is not None
    assert "mylib.helper" in result.start_failure


def test_fd_read_delivers_the_snapshot_reply_queued_by_the_channel(tmp_path: Path) -> None:
    # Send snapshot:assert, read stdin into 32768 (iovec at 16, count at 24), echo it to fd 2.
    read_and_echo = """
      (i32.store (i32.const 16) (i32.const 32768))
      (i32.store (i32.const 20) (i32.const 1024))
      (drop (call $fd_read (i32.const 0) (i32.const 16) (i32.const 1) (i32.const 24)))
      (call $write (i32.const 2) (i32.const 32768) (i32.load (i32.const 24)))"""
    wat = wasi_module((1, call_frame(SNAPSHOT_ASSERT)), then=read_and_echo)
    result, channel = run(tmp_path, wat)
    assert result.exit_code == 0
    assert result.stderr.encode() == encode_frame(FrameType.CALL, b'1\n"v"')
    assert channel.read_stdin(1024) == b""  # drained by the guest


# Recorded conversations (tests/recorded_wire.py) played by a real wasm guest in wasmtime.


def test_a_1_1_0_guest_sending_a_chunked_report_runs_to_a_whole_report(tmp_path: Path) -> None:
    recorded = recorded_wire.recorded_1_0_7()
    stream = recorded_wire.as_1_1_0(recorded)
    result, channel = run(tmp_path, wasi_module((1, stream), pages=1 + len(stream) // 65536 + 1))
    assert result.exit_code == 0
    assert result.trap is None and not result.timed_out
    assert channel.report_problem is None
    assert channel.report_payload == recorded_wire.report_of(recorded)
    assert channel.closed
    assert len(channel.logs) == recorded_wire.RECORDED_TESTS


def test_a_head_guest_blocking_on_coverage_detail_reads_our_answer(tmp_path: Path) -> None:
    # The guest stops after file-end to ask coverage:detail, reads stdin, shows the answer on
    # fd 2, and only then streams coverage and its report. Reply buffer: 8 (iovec at 16..).
    recorded = recorded_wire.recorded_1_0_7()
    body = recorded_wire.as_1_1_0(recorded)
    split = body.index(json.dumps({"kind": "report:start"}).encode()[:-1]) - HEADER_SIZE
    question, after = recorded_wire.head_coverage_calls()
    pages = 1 + len(body) // 65536 + 2
    reply_at = (pages - 1) * 65536
    read_reply = f"""
      (i32.store (i32.const 16) (i32.const {reply_at}))
      (i32.store (i32.const 20) (i32.const 1024))
      (drop (call $fd_read (i32.const 0) (i32.const 16) (i32.const 1) (i32.const 24)))
      (call $write (i32.const 2) (i32.const {reply_at}) (i32.load (i32.const 24)))"""
    wat = wasi_module(
        (1, body[:split]), (1, question), read_reply, (1, after + body[split:]), pages=pages
    )
    result, channel = run(tmp_path, wat)
    assert result.exit_code == 0
    assert result.stderr.encode() == encode_frame(FrameType.CALL, b"0")
    assert channel.report_payload == recorded_wire.report_of(recorded)
    assert channel.report_problem is None


def test_fd_read_with_nothing_queued_reads_zero_bytes(tmp_path: Path) -> None:
    # Store the count as one byte at 40 and write that byte to fd 2.
    read_count = """
      (i32.store (i32.const 16) (i32.const 32768))
      (i32.store (i32.const 20) (i32.const 64))
      (i32.store (i32.const 24) (i32.const 99))
      (drop (call $fd_read (i32.const 0) (i32.const 16) (i32.const 1) (i32.const 24)))
      (i32.store8 (i32.const 40) (i32.add (i32.const 48) (i32.load (i32.const 24))))
      (call $write (i32.const 2) (i32.const 40) (i32.const 1))"""
    result, _ = run(tmp_path, wasi_module(then=read_count))
    assert result.stderr == "0"


def test_module_without_start_export_fails_with_a_clear_message(tmp_path: Path) -> None:
    result, _ = run(tmp_path, '(module (memory (export "memory") 1))')
    assert result.exit_code == 1
    assert result.trap == "the module exports no _start function"
    assert "no _start" in result.stderr


def test_missing_wasm_file_is_a_start_failure(tmp_path: Path) -> None:
    channel = ProtocolChannel(None)
    result = run_module(tmp_path / "absent.wasm", "wasi", channel, LIMITS, {})
    assert result.exit_code == 1
    assert result.start_failure is not None
    assert "absent.wasm" in result.start_failure


def test_invalid_wasm_bytes_are_a_start_failure(tmp_path: Path) -> None:
    path = tmp_path / "garbage.wasm"
    path.write_bytes(b"\x00asm garbage")
    result = run_module(path, "wasi", ProtocolChannel(None), LIMITS, {})
    assert result.exit_code == 1
    assert result.start_failure


def test_memory_above_the_limit_is_a_start_failure(tmp_path: Path) -> None:
    wat = '(module (memory (export "memory") 4) (func (export "_start")))'
    result, _ = run(tmp_path, wat, limits=HostLimits(memory_bytes=2 * 65536))
    assert result.start_failure is not None
    assert result.exit_code == 1


# -- bindings target -------------------------------------------------------------------------------

BINDINGS_WRITE = '(import "env" "process.stdout.write" (func $out (param i32)))'


def test_bindings_stdout_write_sends_an_array_buffer_to_the_channel(tmp_path: Path) -> None:
    frame = call_frame(FILE_START)
    wat = f"""(module {BINDINGS_WRITE}
      (memory (export "memory") 1)
      {array_buffer(1024, frame)}
      {array_buffer(4096, b"text after")}
      (func (export "_start") (call $out (i32.const 1024)) (call $out (i32.const 4096))))"""
    result, channel = run(tmp_path, wat, target="bindings")
    assert result.exit_code == 0
    assert result.start_failure is None
    assert channel.progress.file_started
    assert channel.output_text == "text after"


def test_bindings_stdin_read_allocates_the_reply_with_dunder_new(tmp_path: Path) -> None:
    # __new(size, id) bump-allocates an ArrayBuffer (size at ptr - 4) and traps unless id == 1.
    wat = f"""(module {BINDINGS_WRITE}
      (import "env" "process.stdin.read" (func $in (param i32) (result i32)))
      (memory (export "memory") 1)
      (global $next (mut i32) (i32.const 40960))
      {array_buffer(1024, call_frame(SNAPSHOT_ASSERT))}
      (func (export "__new") (param $size i32) (param $id i32) (result i32)
        (if (i32.ne (local.get $id) (i32.const 1)) (then unreachable))
        (i32.store (global.get $next) (local.get $size))
        (global.set $next (i32.add (global.get $next) (i32.const 4)))
        (global.get $next))
      (func (export "_start")
        (call $out (i32.const 1024))
        (call $out (call $in (i32.const 4096)))))"""
    result, channel = run(tmp_path, wat, target="bindings")
    assert result.exit_code == 0, result.stderr
    channel_reply = encode_frame(FrameType.CALL, b'1\n"v"')
    # The echoed reply is not a JSON CALL, so the channel keeps it as plain output.
    assert channel.output_text == channel_reply.decode()
    assert channel.read_stdin(1024) == b""


def test_bindings_stdin_read_without_dunder_new_fails_clearly(tmp_path: Path) -> None:
    wat = """(module
      (import "env" "process.stdin.read" (func $in (param i32) (result i32)))
      (memory (export "memory") 1)
      (func (export "_start") (drop (call $in (i32.const 16)))))"""
    result, _ = run(tmp_path, wat, target="bindings")
    assert result.exit_code == 1
    assert result.trap is not None
    assert "__new" in result.trap
    assert "__new" in result.stderr


def test_abort_with_null_pointers_exits_one_and_reports_on_stderr(tmp_path: Path) -> None:
    wat = """(module
      (import "env" "abort" (func $abort (param i32 i32 i32 i32)))
      (memory (export "memory") 1)
      (func (export "_start")
        (call $abort (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0))))"""
    result, _ = run(tmp_path, wat, target="bindings")
    assert result.exit_code == 1
    assert result.trap is None
    assert "abort:" in result.stderr
    assert result.stderr == "abort: null in null(0:0)\n"


def test_abort_decodes_the_utf16_message_and_file(tmp_path: Path) -> None:
    wat = f"""(module
      (import "env" "abort" (func $abort (param i32 i32 i32 i32)))
      (memory (export "memory") 1)
      {as_string(1024, "kaboom")}
      {as_string(2048, "assembly/__tests__/crash.spec.ts")}
      (func (export "_start")
        (call $abort (i32.const 1024) (i32.const 2048) (i32.const 5) (i32.const 9))))"""
    result, _ = run(tmp_path, wat, target="bindings")
    assert result.exit_code == 1
    assert result.stderr == "abort: kaboom in assembly/__tests__/crash.spec.ts(5:9)\n"


def test_console_log_goes_to_stdout_and_console_error_to_stderr(tmp_path: Path) -> None:
    wat = f"""(module
      (import "env" "console.log" (func $log (param i32)))
      (import "env" "console.error" (func $error (param i32)))
      (memory (export "memory") 1)
      {as_string(1024, "to stdout")}
      {as_string(2048, "to stderr")}
      (func (export "_start") (call $log (i32.const 1024)) (call $error (i32.const 2048))))"""
    result, channel = run(tmp_path, wat, target="bindings")
    assert result.exit_code == 0
    assert channel.output_text == "to stdout\n"
    assert result.stderr == "to stderr\n"


def test_bindings_target_does_not_supply_wasi(tmp_path: Path) -> None:
    result, _ = run(tmp_path, wasi_module((1, b"x")), target="bindings")
    assert result.start_failure is not None
    assert "wasi_snapshot_preview1" in result.start_failure


# -- runner-supplied imports ---------------------------------------------------------------------

HOST_ADD_GUEST = f"""(module
  (import "env" "host_add" (func $host_add (param i32 i32) (result i32)))
  {WASI_PRELUDE}
  (global $sum (export "sum") (mut i32) (i32.const 0))
  (func (export "_start") (global.set $sum (call $host_add (i32.const 2) (i32.const 3)))))"""


def test_a_runner_import_is_callable_from_the_spec(tmp_path: Path) -> None:
    calls: list[tuple[int, int]] = []

    def host_add(a: int, b: int) -> int:
        calls.append((a, b))
        return a + b

    channel = ProtocolChannel(None)
    guest = prepare_guest(
        save(tmp_path, HOST_ADD_GUEST), "wasi", channel, LIMITS, {}, {"env": {"host_add": host_add}}
    )
    result = guest.start()
    assert result.exit_code == 0, result
    assert calls == [(2, 3)]
    assert guest.start() is result, "a second start() must not run the spec again"


def test_a_spec_import_nothing_supplies_names_module_and_field(tmp_path: Path) -> None:
    result = run_module(save(tmp_path, HOST_ADD_GUEST), "wasi", ProtocolChannel(None), LIMITS, {})
    assert result.start_failure is not None
    assert "env.host_add" in result.start_failure
    assert "runner" in result.start_failure


def test_a_runner_import_colliding_with_a_builtin_is_refused(tmp_path: Path) -> None:
    wasm = save(tmp_path, HOST_ADD_GUEST)
    for module, field in (("env", "abort"), ("wasi_snapshot_preview1", "fd_write")):
        with pytest.raises(GuestStartError, match=rf"{module}\.{field} collides"):
            prepare_guest(
                wasm, "wasi", ProtocolChannel(None), LIMITS, {}, {module: {field: lambda: 0}}
            )


def test_a_runner_import_that_is_not_a_function_is_refused(tmp_path: Path) -> None:
    with pytest.raises(GuestStartError, match=r"env\.host_add is a int, not a function"):
        prepare_guest(
            save(tmp_path, HOST_ADD_GUEST),
            "wasi",
            ProtocolChannel(None),
            LIMITS,
            {},
            {"env": {"host_add": 42}},
        )


def test_a_raising_host_function_fails_the_spec_instead_of_escaping(tmp_path: Path) -> None:
    def host_add(a: int, b: int) -> int:
        raise ValueError("runner bug")

    channel = ProtocolChannel(None)
    result = run_module(
        save(tmp_path, HOST_ADD_GUEST), "wasi", channel, LIMITS, {}, {"env": {"host_add": host_add}}
    )
    assert result.exit_code == 1
    assert result.trap is not None and "ValueError: runner bug" in result.trap
    assert "runner bug" in result.stderr


def test_a_with_memory_import_reads_an_assemblyscript_string(tmp_path: Path) -> None:
    wat = f"""(module
      (import "env" "shout" (func $shout (param i32)))
      {WASI_PRELUDE}
      {as_string(2048, "héllo")}
      (func (export "_start") (call $shout (i32.const 2048))))"""
    seen: list[str] = []

    def shout(memory: GuestMemory, pointer: int) -> None:
        seen.append(memory.string(pointer))

    shout_import = runner.with_memory(shout)
    result = run_module(
        save(tmp_path, wat),
        "wasi",
        ProtocolChannel(None),
        LIMITS,
        {},
        {"env": {"shout": shout_import}},
    )
    assert result.exit_code == 0, result
    assert seen == ["héllo"]


def test_an_out_of_bounds_pointer_from_the_guest_fails_the_spec(tmp_path: Path) -> None:
    wat = f"""(module {WASI_PRELUDE}
      (func (export "_start")
        (drop (call $fd_write (i32.const 1) (i32.const 65530) (i32.const 4) (i32.const 8)))))"""
    result, _ = run(tmp_path, wat)
    assert result.exit_code == 1
    assert result.start_failure is None
    assert result.trap is not None


def test_huge_timeouts_do_not_overflow_the_epoch_deadline() -> None:
    assert HostLimits(timeout_s=float("inf")).epoch_ticks > 0
    assert HostLimits(timeout_s=1e300).epoch_ticks > 0


def test_a_host_function_calling_sys_exit_fails_the_spec_and_does_not_exit(
    tmp_path: Path,
) -> None:
    def host_add(a: int, b: int) -> int:
        raise SystemExit(0)

    result = run_module(
        save(tmp_path, HOST_ADD_GUEST),
        "wasi",
        ProtocolChannel(None),
        LIMITS,
        {},
        {"env": {"host_add": host_add}},
    )
    assert result.exit_code == 1
    assert result.trap is not None and "SystemExit" in result.trap


def test_a_guest_writing_past_the_output_limit_is_stopped_there(tmp_path: Path) -> None:
    # Writes 1 KiB to stdout forever; the limit ends it long before the timeout would.
    spam = """(loop $again
        (call $write (i32.const 1) (i32.const 1024) (i32.const 1024))
        (br $again))"""
    channel = ProtocolChannel(None, output_limit=64 * 1024)
    result = run_module(save(tmp_path, wasi_module(then=spam)), "wasi", channel, LIMITS, {})
    assert result.exit_code == 1
    assert not result.timed_out
    assert channel.over_limit


def test_a_bindings_guest_logging_past_the_output_limit_is_stopped_there(tmp_path: Path) -> None:
    """console.log feeds the same stdout as process.stdout.write: it was counted but never
    stopped, so a flood ran on to the time limit and was reported as a timeout."""
    wat = f"""(module
      (import "env" "console.log" (func $log (param i32)))
      (memory (export "memory") 1)
      {as_string(1024, "x" * 1000)}
      (func (export "_start") (loop $again (call $log (i32.const 1024)) (br $again))))"""
    channel = ProtocolChannel(None, output_limit=64 * 1024)
    result = run_module(save(tmp_path, wat), "bindings", channel, LIMITS, {})
    assert result.exit_code == 1
    assert not result.timed_out
    assert channel.over_limit


def test_a_guest_failing_with_its_memory_at_the_limit_is_marked_as_out_of_memory(
    tmp_path: Path,
) -> None:
    # Grows by a page until memory.grow fails, then traps, as AssemblyScript's allocator does.
    grow = """(loop $more
        (br_if $more (i32.ne (memory.grow (i32.const 1)) (i32.const -1))))
      unreachable"""
    limits = HostLimits(timeout_s=5.0, memory_bytes=8 * 65536)
    result, _ = run(tmp_path, wasi_module(then=grow), limits=limits)
    assert result.exit_code == 1
    assert result.memory_exhausted


def test_a_guest_failing_far_below_the_memory_limit_is_not_out_of_memory(tmp_path: Path) -> None:
    result, _ = run(tmp_path, wasi_module(then="unreachable"))
    assert result.exit_code == 1
    assert not result.memory_exhausted


def test_a_module_compiled_ahead_is_the_one_the_run_uses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, instantiated: list[wasmtime.Module]
) -> None:
    from astest_tasks.run import module_shelf, wasm_host

    shelf = module_shelf.ModuleShelf()
    monkeypatch.setattr(module_shelf, "SHELF", shelf)
    wasm = save(tmp_path, HOST_ADD_GUEST)
    engine = wasm_host._ENGINES.engine(compiler_for(None))
    compile_it = wasm_host.compile_ahead_of_run(wasm.read_bytes())
    assert compile_it is not None and len(shelf) == 1  # its place is there before it compiles
    compile_it()
    offered = shelf._entries[module_shelf._key(wasm.read_bytes())].module
    imports = {"env": {"host_add": lambda a, b: a + b}}
    guest = prepare_guest(wasm, "wasi", ProtocolChannel(None), LIMITS, {}, imports)
    assert instantiated == [offered] and len(shelf) == 0
    assert guest.start().exit_code == 0
    assert wasm_host._ENGINES.engine(compiler_for(None)) is engine


def test_nothing_is_compiled_ahead_before_a_run_has_made_the_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from astest_tasks.run import module_shelf, wasm_host

    shelf = module_shelf.ModuleShelf()
    monkeypatch.setattr(module_shelf, "SHELF", shelf)
    monkeypatch.setattr(wasm_host, "_ENGINES", wasm_host._EngineHolder())
    assert wasm_host.compile_ahead_of_run(save(tmp_path, HOST_ADD_GUEST).read_bytes()) is None
    assert len(shelf) == 0


# -- compilers: Winch for specs that run briefly, Cranelift for heavy ones ------------------------

# A function that returns its argument by recursing that deep (for ever when it is negative):
# four i64 locals per frame.
RECURSE = """
  (func $depth (param $n i32) (result i32) (local i64 i64 i64 i64)
    (if (result i32) (i32.eqz (local.get $n))
      (then (i32.const 0))
      (else (i32.add (i32.const 1) (call $depth (i32.sub (local.get $n) (i32.const 1)))))))"""

# Tail calls: Cranelift compiles them, wasmtime's Winch does not (yet).
TAIL_CALL = """
  (func $finish (result i32) (i32.const 0))
  (func $via_tail_call (result i32) (return_call $finish))"""


@needs_winch
def test_a_spec_never_run_before_is_compiled_by_winch(
    tmp_path: Path, instantiated: list[wasmtime.Module]
) -> None:
    result, _ = run(tmp_path, wasi_module((1, b"hi\n")))
    assert result.exit_code == 0
    (module,) = instantiated
    assert compiled_by_winch(module)


def test_a_spec_whose_last_run_was_heavy_is_compiled_by_cranelift(
    tmp_path: Path, instantiated: list[wasmtime.Module]
) -> None:
    compiler = compiler_for(previous_run_s=HEAVY_RUN_S * 2)
    result, _ = run(tmp_path, wasi_module((1, b"hi\n")), compiler=compiler)
    assert result.exit_code == 0
    (module,) = instantiated
    assert not compiled_by_winch(module)


@needs_winch
def test_a_module_winch_refuses_is_compiled_by_cranelift(
    tmp_path: Path, instantiated: list[wasmtime.Module]
) -> None:
    wat = wasi_module(then="(call $proc_exit (call $via_tail_call))", extra=TAIL_CALL)
    result, _ = run(tmp_path, wat)
    assert result.start_failure is None and result.exit_code == 0
    (module,) = instantiated
    assert not compiled_by_winch(module)


@pytest.mark.parametrize("compiler", list(WasmCompiler))
def test_a_run_whose_stack_ran_out_says_so_and_which_compiler_compiled_it(
    tmp_path: Path, compiler: WasmCompiler
) -> None:
    """The run action then runs it again under the other compiler (actions/run_action.py)."""
    endless = wasi_module(then="(drop (call $depth (i32.const -1)))", extra=RECURSE)
    result, _ = run(tmp_path, endless, compiler=compiler)
    assert result.trap is not None and "call stack exhausted" in result.trap
    assert result.stack_exhausted
    assert result.compiled_by is compiler


def test_the_compilers_frames_differ_in_size(tmp_path: Path) -> None:
    # Why a run out of stack is run again: in wasmtime's default stack this function recursed
    # 16,380 calls deep under Cranelift and 5,459 under Winch, whose frames keep every local.
    deep = wasi_module(then="(drop (call $depth (i32.const 12000)))", extra=RECURSE)
    runs = {compiler: run(tmp_path, deep, compiler=compiler)[0] for compiler in WasmCompiler}
    assert runs[WasmCompiler.WINCH].stack_exhausted
    assert not runs[WasmCompiler.CRANELIFT].stack_exhausted
    assert runs[WasmCompiler.CRANELIFT].exit_code == 0
    assert not run(tmp_path, wasi_module((1, b"fine"), extra=RECURSE))[0].stack_exhausted


@pytest.mark.parametrize("compiler", list(WasmCompiler))
def test_the_timeout_stops_a_guest_of_either_compiler(
    tmp_path: Path, compiler: WasmCompiler
) -> None:
    wat = wasi_module(then="(loop $forever (br $forever))")
    result, _ = run(tmp_path, wat, limits=HostLimits(timeout_s=0.2), compiler=compiler)
    assert result.timed_out


def test_a_switch_naming_no_compiler_fails_the_start_and_says_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SWITCH_VARIABLE, "turbofan")
    result, _ = run(tmp_path, wasi_module((1, b"hi\n")))
    assert result.start_failure is not None
    assert f"{SWITCH_VARIABLE}='turbofan'" in result.start_failure
    assert "winch or cranelift" in result.start_failure


def test_without_winch_in_wasmtime_every_spec_is_compiled_by_cranelift(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, instantiated: list[wasmtime.Module]
) -> None:
    from astest_tasks.run import wasm_host

    real_config = wasm_host._engine_config

    def no_winch(compiler: WasmCompiler) -> wasmtime.Config:
        if compiler is WasmCompiler.WINCH:
            raise wasmtime.WasmtimeError("compiler support for `winch` is not enabled")
        return real_config(compiler)

    monkeypatch.setattr(wasm_host, "_engine_config", no_winch)
    monkeypatch.setattr(wasm_host, "_ENGINES", wasm_host._EngineHolder())
    for compiler in (WasmCompiler.WINCH, WasmCompiler.CRANELIFT):
        result, _ = run(tmp_path, wasi_module((1, b"hi\n")), compiler=compiler)
        assert result.exit_code == 0 and result.start_failure is None
    assert [compiled_by_winch(module) for module in instantiated] == [False, False]
    engines = wasm_host._ENGINES
    assert engines.engine(WasmCompiler.WINCH) is engines.engine(WasmCompiler.CRANELIFT)


def test_a_spec_run_and_a_fuzz_run_give_the_host_their_limits_alike() -> None:
    """One conversion for both routes into wasmtime: a spec's limits and a fuzz run's."""
    from astest_tasks.run.limits import ModeLimits
    from astest_tasks.run.runtime import SpecLimits

    mode = ModeLimits(timeout_s=7.5, memory_mib=64, output_mib=1)
    assert HostLimits.of(mode) == HostLimits(timeout_s=7.5, memory_bytes=64 * 1024 * 1024)
    spec = SpecLimits(timeout_s=7.5, memory_bytes=64 * 1024 * 1024)
    assert HostLimits.of(spec) == HostLimits.of(mode)
