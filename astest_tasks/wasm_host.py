"""Run one compiled spec in wasmtime, inside this Python process.

The host supplies what as-test's Node runners supply: WASI (wasi target) or the raw-bindings
``env`` imports (bindings target), with the spec's stdout and stdin wired to a
``ProtocolChannel``. It enforces a wall-clock limit with epoch interruption and a memory limit
with store limits, and turns every way a spec can die (abort, ``proc_exit``, a trap, a timeout, a
link error) into a ``GuestRun`` instead of an exception, so one bad spec never stops the run.
"""

from __future__ import annotations

import os
import random
import struct
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import wasmtime

from astest_tasks.channel import ProtocolChannel

WASI_MODULE = "wasi_snapshot_preview1"
ERRNO_SUCCESS = 0
ERRNO_BADF = 8
EPOCH_TICK_S = 0.05
MAX_KEPT_STDERR = 256 * 1024
ARRAY_BUFFER_CLASS_ID = 1  # AssemblyScript's runtime id of ArrayBuffer


@dataclass(frozen=True)
class HostLimits:
    timeout_s: float = 10.0
    memory_bytes: int = 1024 * 1024 * 1024


@dataclass
class GuestRun:
    """How the guest ended. ``exit_code`` follows Node's runners: 0 clean, non-zero otherwise."""

    exit_code: int
    stderr: str
    elapsed_s: float
    timed_out: bool = False
    start_failure: str | None = None  # could not compile, link or instantiate the module
    trap: str | None = None


class _GuestExit(Exception):
    def __init__(self, code: int) -> None:
        super().__init__(f"proc_exit({code})")
        self.code = code


class _EngineHolder:
    """One engine per process (wasmtime engines are thread-safe) and one epoch ticker thread.

    Rebuilt after a fork: doit's ``-n N`` worker processes must not share the parent's ticker.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pid = -1
        self._engine: wasmtime.Engine | None = None

    def engine(self) -> wasmtime.Engine:
        with self._lock:
            if self._engine is None or self._pid != os.getpid():
                config = wasmtime.Config()
                config.epoch_interruption = True
                self._engine = wasmtime.Engine(config)
                self._pid = os.getpid()
                ticker = threading.Thread(
                    target=_tick_forever, args=(self._engine,), name="astest-epoch", daemon=True
                )
                ticker.start()
            return self._engine


def _tick_forever(engine: wasmtime.Engine) -> None:
    while True:
        time.sleep(EPOCH_TICK_S)
        engine.increment_epoch()


_ENGINES = _EngineHolder()


def run_module(
    wasm_path: Path,
    target: str,
    channel: ProtocolChannel,
    limits: HostLimits,
    wasi_env: Mapping[str, str],
) -> GuestRun:
    started = time.perf_counter()
    stderr = _StderrBuffer()
    engine = _ENGINES.engine()
    try:
        module = wasmtime.Module.from_file(engine, str(wasm_path))
        store = wasmtime.Store(engine)
        store.set_limits(memory_size=limits.memory_bytes)
        # Before instantiating: a module's start section runs during instantiation, and a new
        # store's deadline of 0 would interrupt it at once.
        store.set_epoch_deadline(max(1, int(limits.timeout_s / EPOCH_TICK_S) + 1))
        linker = wasmtime.Linker(engine)
        linker.allow_shadowing = True
        clock = _Clock()
        if target == "wasi":
            _define_wasi(store, linker, channel, stderr, wasi_env, wasm_path)
        _define_env(module, linker, channel, stderr, clock)
        instance = linker.instantiate(store, module)
    except (wasmtime.WasmtimeError, wasmtime.Trap, _LinkProblem, OSError) as exc:
        return GuestRun(
            exit_code=1,
            stderr=stderr.text,
            elapsed_s=time.perf_counter() - started,
            start_failure=_one_line(exc),
        )

    store.set_epoch_deadline(max(1, int(limits.timeout_s / EPOCH_TICK_S) + 1))
    exit_code, trap, timed_out = 0, None, False
    try:
        start = instance.exports(store).get("_start")
        if not isinstance(start, wasmtime.Func):
            raise _LinkProblem("the module exports no _start function")
        start(store)
    except _GuestExit as exit_request:
        exit_code = exit_request.code
    except wasmtime.Trap as exc:
        timed_out = exc.trap_code == wasmtime.TrapCode.INTERRUPT
        exit_code = 1
        trap = "timed out" if timed_out else _one_line(exc)
        if not timed_out:
            stderr.write(f"wasm trap: {trap}\n".encode())
    except (wasmtime.WasmtimeError, _LinkProblem) as exc:
        exit_code = 1
        trap = _one_line(exc)
        stderr.write(f"wasm error: {trap}\n".encode())
    channel.finish()
    return GuestRun(
        exit_code=exit_code,
        stderr=stderr.text,
        elapsed_s=time.perf_counter() - started,
        timed_out=timed_out,
        trap=trap,
    )


class _LinkProblem(Exception):
    pass


class _StderrBuffer:
    def __init__(self) -> None:
        self._data = bytearray()
        self._total = 0

    def write(self, data: bytes) -> None:
        self._total += len(data)
        room = MAX_KEPT_STDERR - len(self._data)
        if room > 0:
            self._data += data[:room]

    @property
    def text(self) -> str:
        text = self._data.decode("utf-8", errors="replace")
        if self._total > len(self._data):
            text += f"\n… {self._total - len(self._data)} more bytes of stderr not kept"
        return text


class _Clock:
    def __init__(self) -> None:
        self._origin = time.perf_counter()

    def performance_now(self) -> float:
        return (time.perf_counter() - self._origin) * 1000.0


# -- WASI ----------------------------------------------------------------------------------------
def _define_wasi(
    store: wasmtime.Store,
    linker: wasmtime.Linker,
    channel: ProtocolChannel,
    stderr: _StderrBuffer,
    wasi_env: Mapping[str, str],
    wasm_path: Path,
) -> None:
    config = wasmtime.WasiConfig()
    config.argv = [wasm_path.name]
    config.env = sorted(wasi_env.items())  # only what the config passes: no host env, no dirs
    store.set_wasi(config)
    linker.define_wasi()
    i32 = wasmtime.ValType.i32()

    def fd_write(caller: wasmtime.Caller, fd: int, iovs: int, count: int, written: int) -> int:
        memory = _memory(caller)
        data = b"".join(
            memory.read(caller, pointer, pointer + length)
            for pointer, length in _iovecs(caller, memory, iovs, count)
        )
        if fd == 1:
            channel.write_stdout(data)
        elif fd == 2:
            stderr.write(data)
        else:
            return ERRNO_BADF
        memory.write(caller, struct.pack("<I", len(data)), written)
        return ERRNO_SUCCESS

    def fd_read(caller: wasmtime.Caller, fd: int, iovs: int, count: int, nread: int) -> int:
        if fd != 0:
            return ERRNO_BADF
        memory = _memory(caller)
        total = 0
        for pointer, length in _iovecs(caller, memory, iovs, count):
            chunk = channel.read_stdin(length)
            memory.write(caller, chunk, pointer)
            total += len(chunk)
            if len(chunk) < length:
                break
        memory.write(caller, struct.pack("<I", total), nread)
        return ERRNO_SUCCESS

    def proc_exit(code: int) -> None:
        # wasi-shim's abort ends with proc_exit(255), which wasmtime's own WASI turns into an
        # error we could not tell apart from a crash; ending the run ourselves keeps the code.
        raise _GuestExit(code)

    four_i32 = wasmtime.FuncType([i32, i32, i32, i32], [i32])
    linker.define_func(WASI_MODULE, "fd_write", four_i32, fd_write, access_caller=True)
    linker.define_func(WASI_MODULE, "fd_read", four_i32, fd_read, access_caller=True)
    linker.define_func(WASI_MODULE, "proc_exit", wasmtime.FuncType([i32], []), proc_exit)


def _iovecs(
    caller: wasmtime.Caller, memory: wasmtime.Memory, iovs: int, count: int
) -> list[tuple[int, int]]:
    raw = memory.read(caller, iovs, iovs + 8 * count)
    return [struct.unpack_from("<II", raw, 8 * i) for i in range(count)]


# -- bindings (the raw helper's env imports, natively) -------------------------------------------
HostFunction = Callable[..., Any]


def _define_env(
    module: wasmtime.Module,
    linker: wasmtime.Linker,
    channel: ProtocolChannel,
    stderr: _StderrBuffer,
    clock: _Clock,
) -> None:
    """Supply the ``env`` imports the spec declares; anything unknown is a clear link error."""

    def abort(caller: wasmtime.Caller, message: int, file: int, line: int, column: int) -> None:
        text = f"abort: {_as_string(caller, message)} in {_as_string(caller, file)}"
        stderr.write(f"{text}({line}:{column})\n".encode())
        raise _GuestExit(1)

    def stdout_write(caller: wasmtime.Caller, buffer: int) -> None:
        channel.write_stdout(_array_buffer(caller, buffer))

    def stdin_read(caller: wasmtime.Caller, max_bytes: int) -> int:
        data = channel.read_stdin(max(0, max_bytes))
        new = caller.get("__new")
        if not isinstance(new, wasmtime.Func):
            raise _LinkProblem("a bindings build must export __new (build with --exportRuntime)")
        pointer = int(new(caller, len(data), ARRAY_BUFFER_CLASS_ID))
        _memory(caller).write(caller, data, pointer)
        return pointer

    def console_line(stream: str) -> HostFunction:
        def write(caller: wasmtime.Caller, text: int) -> None:
            line = (_as_string(caller, text) + "\n").encode()
            if stream == "stderr":
                stderr.write(line)
            else:
                channel.write_stdout(line)

        return write

    def trace(caller: wasmtime.Caller, message: int, count: int, *values: float) -> None:
        shown = ", ".join(repr(v) for v in values[: max(0, count)])
        stderr.write(f"trace: {_as_string(caller, message)} {shown}\n".encode())

    supplied: dict[str, tuple[HostFunction, bool]] = {
        "abort": (abort, True),
        "process.stdout.write": (stdout_write, True),
        "process.stdin.read": (stdin_read, True),
        "performance.now": (clock.performance_now, False),
        "Date.now": (lambda: time.time() * 1000.0, False),
        "seed": (lambda: random.random() * 2.0**52, False),
        "console.log": (console_line("stdout"), True),
        "console.info": (console_line("stdout"), True),
        "console.debug": (console_line("stdout"), True),
        "console.warn": (console_line("stderr"), True),
        "console.error": (console_line("stderr"), True),
        "trace": (trace, True),
    }
    for wanted in module.imports:
        if wanted.module == WASI_MODULE:
            continue
        name = wanted.name or ""
        entry = supplied.get(name) if wanted.module == "env" else None
        if entry is None or not isinstance(wanted.type, wasmtime.FuncType):
            raise _LinkProblem(
                f"the spec imports {wanted.module}.{wanted.name}, which nothing supplies; "
                "fix: mock it with mockImport() in the spec, or remove the @external declaration"
            )
        function, needs_caller = entry
        linker.define_func(wanted.module, name, wanted.type, function, access_caller=needs_caller)


def _memory(caller: wasmtime.Caller) -> wasmtime.Memory:
    memory = caller.get("memory")
    if not isinstance(memory, wasmtime.Memory):
        raise _LinkProblem("the module exports no memory")
    return memory


def _array_buffer(caller: wasmtime.Caller, pointer: int) -> bytes:
    memory = _memory(caller)
    (length,) = struct.unpack("<I", memory.read(caller, pointer - 4, pointer))
    return bytes(memory.read(caller, pointer, pointer + length))


def _as_string(caller: wasmtime.Caller, pointer: int) -> str:
    if pointer == 0:
        return "null"
    return _array_buffer(caller, pointer).decode("utf-16-le", errors="replace")


def _one_line(exc: BaseException) -> str:
    """The cause of a wasmtime error on one line.

    wasmtime puts the backtrace first and the cause last ("Caused by: wasm trap: ..."), so the
    first line alone would say only "error while executing at wasm backtrace:".
    """
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    if not lines:
        return type(exc).__name__
    for line in reversed(lines):
        if line.startswith("wasm trap:"):
            return line.removeprefix("wasm trap:").strip()
    if "Caused by:" in lines:
        after = lines[lines.index("Caused by:") + 1 :]
        if after:
            return after[-1]
    return lines[-1] if lines[0].endswith("backtrace:") else lines[0]
