"""Run one compiled spec in wasmtime, inside this Python process.

The host supplies what as-test's Node runners supply: WASI (wasi target) or the raw-bindings
``env`` imports (bindings target), with the spec's stdout and stdin wired to a
``ProtocolChannel``, plus whatever extra imports a runner script declares. It enforces a
wall-clock limit with epoch interruption and a memory limit with store limits, and turns every way
a spec can die (abort, ``proc_exit``, a trap, a timeout, a link error, a host function raising)
into a ``GuestRun`` instead of an exception, so one bad spec never stops the run. The imports a
spec expects are docs/design/host-contract.md §5.1.

Two steps, so a runner script can act between them: ``prepare_guest`` compiles, links and
instantiates (raising ``GuestStartError``); ``PreparedGuest.start`` runs ``_start``.
"""

from __future__ import annotations

import contextlib
import os
import random
import struct
import threading
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import field
from pathlib import Path
from typing import Any, Protocol, cast

import wasmtime

from astest_tasks.core.frozen import frozen
from astest_tasks.core.guest_text import decode_guest_utf16, encode_wtf8
from astest_tasks.core.interrupts import signals_stop_the_guest
from astest_tasks.run import module_shelf
from astest_tasks.run.channel import ProtocolChannel
from astest_tasks.run.guest_run import GuestRun, StderrBuffer
from astest_tasks.run.limits import MEMORY_LIMIT, MIB, TIMEOUT
from astest_tasks.run.wasm_compiler import (
    CompilerChoiceError,
    WasmCompiler,
    compiler_for,
)

__all__ = [
    "GuestMemory",
    "GuestRun",
    "GuestStartError",
    "HostLimits",
    "PreparedGuest",
    "prepare_guest",
    "run_module",
]

WASI_MODULE = "wasi_snapshot_preview1"
ERRNO_SUCCESS = 0
ERRNO_BADF = 8
EPOCH_TICK_S = 0.05
MAX_EPOCH_TICKS = 2**40  # far beyond any real limit, and well inside wasmtime's u64 deadline
ARRAY_BUFFER_CLASS_ID = 1  # AssemblyScript's runtime id of ArrayBuffer
WITH_MEMORY_ATTRIBUTE = "astest_with_memory"
MODULE_CACHE_SWITCH = "ASTEST_MODULE_CACHE"  # "0" turns wasmtime's compiled-code cache off

HostFunction = Callable[..., Any]
UserImports = Mapping[str, Mapping[str, object]]  # checked when linking: functions only


class _Bounded(Protocol):
    """What a run's limits give the host: a spec's (``SpecLimits``), a fuzz run's
    (``ModeLimits``)."""

    @property
    def timeout_s(self) -> float: ...

    @property
    def memory_bytes(self) -> int: ...


@frozen
class HostLimits:
    """A guest's limits; the defaults are the options' (run/limits.py), stated there once."""

    timeout_s: float = TIMEOUT.default
    memory_bytes: int = int(MEMORY_LIMIT.default * MIB)

    @classmethod
    def of(cls, limits: _Bounded) -> HostLimits:
        """The host's part of a run's limits: one conversion for the spec path and fuzzing."""
        return cls(timeout_s=limits.timeout_s, memory_bytes=limits.memory_bytes)

    @property
    def epoch_ticks(self) -> int:
        ticks = self.timeout_s / EPOCH_TICK_S  # a float: inf or 1e300 must not reach int()
        return int(max(1.0, min(float(MAX_EPOCH_TICKS), ticks + 1)))


@frozen
class WasiGrants:
    """What a wasi spec may reach beyond its sandbox, granted by its runner script: directories
    (guest path to host path, read-only) and extra environment variables."""

    dirs: Mapping[str, Path] = field(default_factory=dict)
    env: Mapping[str, str] = field(default_factory=dict)


def _granted(wasi_env: Mapping[str, str], grants: WasiGrants | None) -> WasiGrants:
    if grants is None:
        return WasiGrants(env=dict(wasi_env))
    return WasiGrants(dirs=grants.dirs, env={**wasi_env, **grants.env})


class GuestStartError(Exception):
    """The module could not be compiled, linked or instantiated; the message is one line."""


class _GuestExit(Exception):
    def __init__(self, code: int) -> None:
        super().__init__(f"proc_exit({code})")
        self.code = code


def _write_stdout(channel: ProtocolChannel, data: bytes) -> None:
    """What the guest writes to stdout, by any route (WASI's fd 1, the bindings'
    process.stdout.write, console.log): past the output limit it is stopped right there, not at
    the timeout."""
    channel.write_stdout(data)
    if channel.over_limit:
        raise _GuestExit(1)


class _EngineHolder:
    """This process's engines, one per compiler (made on first use; wasmtime engines are
    thread-safe), and one epoch ticker thread that advances them all.

    Rebuilt after a fork: doit's ``-n N`` worker processes must not share the parent's ticker.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pid = -1
        self._engines: dict[WasmCompiler, wasmtime.Engine] = {}
        self._ticked: tuple[wasmtime.Engine, ...] = ()

    def existing(self, compiler: WasmCompiler) -> wasmtime.Engine | None:
        """This process's engine for ``compiler``, if a run has made it yet."""
        with self._lock:
            return self._engines.get(compiler) if self._pid == os.getpid() else None

    def engine(self, compiler: WasmCompiler) -> wasmtime.Engine:
        with self._lock:
            if self._pid != os.getpid():
                self._engines = {}
                self._ticked = ()
                self._pid = os.getpid()
                ticker = threading.Thread(
                    target=self._tick_forever, name="astest-epoch", daemon=True
                )
                ticker.start()
            engine = self._engines.get(compiler)
            if engine is None:
                engine = self._engines[compiler] = self._new_engine(compiler)
                if engine not in self._ticked:
                    self._ticked = (*self._ticked, engine)
            return engine

    def _new_engine(self, compiler: WasmCompiler) -> wasmtime.Engine:
        try:
            return wasmtime.Engine(_engine_config(compiler))
        except (wasmtime.WasmtimeError, AttributeError, ImportError):
            if compiler is WasmCompiler.CRANELIFT:
                raise
        # A wasmtime built without Winch, or a wasmtime-py whose private C bindings moved:
        # everything compiles with Cranelift, as before Winch.
        cranelift = self._engines.get(WasmCompiler.CRANELIFT)
        if cranelift is None:
            cranelift = self._engines[WasmCompiler.CRANELIFT] = self._new_engine(
                WasmCompiler.CRANELIFT
            )
        return cranelift

    def compiler_of(self, engine: wasmtime.Engine) -> WasmCompiler:
        """Which compiler ``engine`` compiles with (Winch's may have fallen back to Cranelift)."""
        with self._lock:
            cranelift = self._engines.get(WasmCompiler.CRANELIFT)
        return WasmCompiler.CRANELIFT if engine is cranelift else WasmCompiler.WINCH

    def _tick_forever(self) -> None:
        while True:
            time.sleep(EPOCH_TICK_S)
            for engine in self._ticked:  # replaced whole under the lock, never changed in place
                engine.increment_epoch()


# Stopping a guest moves its engine's epoch past the guest's deadline, one tick per call (about
# half a microsecond each): up to the longest --timeout allowed (a day) that takes under a second.
STOP_TICKS_LIMIT = 2_000_000


def _stopper(engine: wasmtime.Engine, deadline_ticks: int) -> Callable[[], None] | None:
    """What stops a guest of ``engine`` whose deadline is ``deadline_ticks`` away, at once, from
    any thread (the engine's epoch is shared and atomic; its store is not: only the thread
    running the guest may touch it). The guest traps as if timed out; the signal that asked for
    it then raises KeyboardInterrupt (core/interrupts.py), so no verdict is recorded. None when
    the deadline is too far to reach this way."""
    if deadline_ticks > STOP_TICKS_LIMIT:
        return None

    def stop() -> None:
        for _ in range(deadline_ticks + 1):
            engine.increment_epoch()

    return stop


# wasmtime's C API value for Winch (WASMTIME_STRATEGY_WINCH in wasmtime/config.h): wasmtime-py's
# Config.strategy setter accepts only "auto" and "cranelift".
_WASMTIME_STRATEGY_WINCH = 2


def _engine_config(compiler: WasmCompiler) -> wasmtime.Config:
    config = wasmtime.Config()
    config.epoch_interruption = True
    if compiler is WasmCompiler.WINCH:
        from wasmtime import _ffi

        _ffi.wasmtime_config_strategy_set(config.ptr(), _WASMTIME_STRATEGY_WINCH)
    else:
        config.strategy = "cranelift"
    if os.environ.get(MODULE_CACHE_SWITCH, "1") != "0":
        # wasmtime's own compiled-code cache: compiling a spec's module costs ~0.1 s, loading it
        # from the cache ~2 ms. Its entries are keyed by the wasm's bytes, the engine settings and
        # wasmtime's version, so a module compiled for another configuration is never loaded.
        # With no writable cache folder, wasmtime refuses: compile every time, still correct.
        with contextlib.suppress(wasmtime.WasmtimeError):
            config.cache = True
    return config


_ENGINES = _EngineHolder()


def _compiled(wasm: bytes, compiler: WasmCompiler) -> tuple[wasmtime.Engine, wasmtime.Module]:
    """The module, from the shelf or compiled now, and the engine its store must use."""
    engine = _ENGINES.engine(compiler)
    module = module_shelf.SHELF.take(engine, wasm)
    if module is not None:
        return engine, module
    try:
        return engine, wasmtime.Module(engine, wasm)
    except wasmtime.WasmtimeError:
        if compiler is WasmCompiler.CRANELIFT:
            raise
    # Winch refuses what it does not implement yet; Cranelift compiles it, or says what is
    # wrong with the module.
    engine = _ENGINES.engine(WasmCompiler.CRANELIFT)
    return engine, wasmtime.Module(engine, wasm)


def compile_ahead_of_run(wasm: bytes) -> Callable[[], None] | None:
    """A place on the shelf for a module its run will take (module_shelf.py), and the call that
    compiles it. Only once a run has made this process's engine: a project whose modes all run in
    Node never needs it."""
    try:
        compiler = compiler_for(None)  # what the run will choose, unless its spec ran heavy
    except CompilerChoiceError:
        return None  # the run says what is wrong with the switch
    engine = _ENGINES.existing(compiler)
    return None if engine is None else module_shelf.SHELF.reserve(engine, wasm)


class GuestMemory:
    """The spec's memory, for host functions marked ``with_memory`` (AssemblyScript layouts)."""

    def __init__(self, caller: wasmtime.Caller) -> None:
        self._caller = caller

    def read(self, pointer: int, length: int) -> bytes:
        return bytes(_memory(self._caller).read(self._caller, pointer, pointer + length))

    def write(self, pointer: int, data: bytes) -> None:
        _memory(self._caller).write(self._caller, data, pointer)

    def array_buffer(self, pointer: int) -> bytes:
        return _array_buffer(self._caller, pointer)

    def string(self, pointer: int) -> str:
        return _as_string(self._caller, pointer)


def run_module(
    wasm_path: Path,
    target: str,
    channel: ProtocolChannel,
    limits: HostLimits,
    wasi_env: Mapping[str, str],
    user_imports: UserImports | None = None,
    compiler: WasmCompiler | None = None,
) -> GuestRun:
    """Instantiate and start in one go: what the default runners do."""
    started = time.perf_counter()
    try:
        guest = prepare_guest(
            wasm_path, target, channel, limits, wasi_env, user_imports, compiler=compiler
        )
    except GuestStartError as exc:
        channel.finish()
        return GuestRun.not_started(str(exc), started)
    return guest.start()


def prepare_guest(
    wasm_path: Path,
    target: str,
    channel: ProtocolChannel,
    limits: HostLimits,
    wasi_env: Mapping[str, str],
    user_imports: UserImports | None = None,
    grants: WasiGrants | None = None,
    compiler: WasmCompiler | None = None,
) -> PreparedGuest:
    """``compiler``: wasm_compiler.py's choice for the spec; None, the choice for a spec never
    run before."""
    started = time.perf_counter()
    stderr = StderrBuffer()
    try:
        wasm = wasm_path.read_bytes()
        engine, module = _compiled(wasm, compiler or compiler_for(None))
        compiled_by = _ENGINES.compiler_of(engine)
        store = wasmtime.Store(engine)
        store.set_limits(memory_size=limits.memory_bytes)
        # Before instantiating: a module's start section runs during instantiation, and a new
        # store's deadline of 0 would interrupt it at once.
        store.set_epoch_deadline(limits.epoch_ticks)
        linker = wasmtime.Linker(engine)
        linker.allow_shadowing = True
        if target == "wasi":
            _define_wasi(store, linker, channel, stderr, wasm_path, _granted(wasi_env, grants))
        _define_imports(module, linker, channel, stderr, target, user_imports or {})
        instance = linker.instantiate(store, module)
    except _GuestExit as exit_request:
        code = exit_request.code
        raise GuestStartError(f"the module exited with code {code} while starting") from None
    except (wasmtime.WasmtimeError, wasmtime.Trap, _LinkProblem, OSError) as exc:
        raise GuestStartError(_one_line(exc)) from None
    except CompilerChoiceError as exc:
        raise GuestStartError(str(exc)) from None
    stop = _stopper(engine, limits.epoch_ticks)
    return PreparedGuest(store, instance, channel, stderr, limits, started, compiled_by, stop)


class PreparedGuest:
    """An instantiated spec, not yet started."""

    def __init__(
        self,
        store: wasmtime.Store,
        instance: wasmtime.Instance,
        channel: ProtocolChannel,
        stderr: StderrBuffer,
        limits: HostLimits,
        started: float,
        compiled_by: WasmCompiler = WasmCompiler.CRANELIFT,
        stop: Callable[[], None] | None = None,
    ) -> None:
        self._store = store
        self._stop = stop  # interrupts the guest from another thread (see _stopper)
        self._compiled_by = compiled_by
        self._instance = instance
        self._channel = channel
        self._stderr = stderr
        self._limits = limits
        self._started = started
        self._result: GuestRun | None = None

    @property
    def result(self) -> GuestRun | None:
        return self._result

    def export_names(self) -> list[str]:
        return list(self._instance.exports(self._store))

    def call(self, name: str, *args: Any) -> Any:
        """Call an exported function (a runner's startup logic), e.g. ``call("setup", 3)``."""
        function = self._instance.exports(self._store).get(name)
        if not isinstance(function, wasmtime.Func):
            raise KeyError(f"the spec exports no function named {name!r}")
        return function(self._store, *args)

    def start(self) -> GuestRun:
        """Run ``_start`` once; later calls return the first run's outcome."""
        if self._result is not None:
            return self._result
        self._store.set_epoch_deadline(self._limits.epoch_ticks)
        exit_code, trap, timed_out, stack_exhausted = 0, None, False, False
        try:
            start = self._instance.exports(self._store).get("_start")
            if not isinstance(start, wasmtime.Func):
                raise _LinkProblem("the module exports no _start function")
            with signals_stop_the_guest(self._stop):
                start(self._store)
        except _GuestExit as exit_request:
            exit_code = exit_request.code
        except wasmtime.Trap as exc:
            timed_out = exc.trap_code == wasmtime.TrapCode.INTERRUPT
            stack_exhausted = exc.trap_code == wasmtime.TrapCode.STACK_OVERFLOW
            exit_code = 1
            trap = "timed out" if timed_out else _one_line(exc)
            if not timed_out:
                self._stderr.write(encode_wtf8(f"wasm trap: {trap}\n"))
        except (wasmtime.WasmtimeError, _LinkProblem) as exc:
            exit_code = 1
            trap = _one_line(exc)
            self._stderr.write(encode_wtf8(f"wasm error: {trap}\n"))
        except (Exception, SystemExit) as exc:
            # A host function raised (or called sys.exit): a runner's own import, or a pointer
            # from the guest that does not fit its memory. It is this spec's failure, not doit's.
            exit_code = 1
            trap = f"a host function raised {type(exc).__name__}: {exc}"
            self._stderr.write(encode_wtf8(f"{trap}\n{traceback.format_exc()}"))
        finally:
            self._channel.finish()
        self._result = GuestRun(
            exit_code=exit_code,
            stderr=self._stderr.text,
            elapsed_s=time.perf_counter() - self._started,
            timed_out=timed_out,
            trap=trap,
            memory_exhausted=exit_code != 0 and self._memory_is_at_the_limit(),
            stack_exhausted=stack_exhausted,
            compiled_by=self._compiled_by,
        )
        return self._result

    def _memory_is_at_the_limit(self) -> bool:
        """wasmtime refuses memory.grow past the store's limit without a word, and the guest
        then aborts or traps on its own; a memory whose next growth would pass the limit tells
        why."""
        memory = self._instance.exports(self._store).get("memory")
        if not isinstance(memory, wasmtime.Memory):
            return False
        size = memory.data_len(self._store)
        # AssemblyScript's allocator asks for at least as much again as it has (TLSF doubles).
        return size + max(size, 65536) > self._limits.memory_bytes


class _LinkProblem(Exception):
    pass


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
    stderr: StderrBuffer,
    wasm_path: Path,
    grants: WasiGrants,
) -> None:
    config = wasmtime.WasiConfig()
    config.argv = [wasm_path.name]
    # Only what the config passes and the runner grants: no host environment, no directories.
    config.env = sorted(grants.env.items())
    for guest_path, host_path in sorted(grants.dirs.items()):
        config.preopen_dir(str(host_path), guest_path, fs_mutable=False)
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
            _write_stdout(channel, data)
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


# -- bindings (the raw helper's env imports, natively) and the runner's own imports -------------
def _define_imports(
    module: wasmtime.Module,
    linker: wasmtime.Linker,
    channel: ProtocolChannel,
    stderr: StderrBuffer,
    target: str,
    user_imports: UserImports,
) -> None:
    """Supply every non-WASI import the spec declares; anything unknown is a clear link error."""
    builtin = _builtin_env(channel, stderr)
    _check_user_imports(user_imports, builtin, target)
    for wanted in module.imports:
        if wanted.module == WASI_MODULE and target == "wasi":
            continue
        name = wanted.name or ""
        user_function = user_imports.get(wanted.module, {}).get(name)
        if user_function is not None:
            entry: tuple[HostFunction, bool] | None = _user_entry(cast(HostFunction, user_function))
        else:
            entry = builtin.get(name) if wanted.module == "env" else None
        if entry is None:
            raise _LinkProblem(
                f"the spec imports {wanted.module}.{name}, which nothing supplies; fix: add it to "
                "the imports of the mode's runner script (.as-test/runners/), mock it with "
                "mockImport() in the spec, or remove the @external declaration"
            )
        if not isinstance(wanted.type, wasmtime.FuncType):
            raise _LinkProblem(
                f"the spec imports {wanted.module}.{name} as a {type(wanted.type).__name__}; "
                "only functions can be supplied"
            )
        function, needs_caller = entry
        linker.define_func(wanted.module, name, wanted.type, function, access_caller=needs_caller)


def _check_user_imports(
    user_imports: UserImports, builtin: Mapping[str, object], target: str
) -> None:
    if not isinstance(user_imports, Mapping):
        raise _LinkProblem(
            'the runner\'s imports must be a dict of modules, e.g. {"env": {"now_ms": now_ms}}'
        )
    for module_name, fields in user_imports.items():
        if not isinstance(fields, Mapping):
            raise _LinkProblem(
                f"the runner's imports[{module_name!r}] must be a dict of functions, "
                f'e.g. {{{module_name!r}: {{"now_ms": now_ms}}}}'
            )
        for field_name, function in fields.items():
            where = f"{module_name}.{field_name}"
            if (module_name == WASI_MODULE and target == "wasi") or (
                module_name == "env" and field_name in builtin
            ):
                raise _LinkProblem(
                    f"the runner's import {where} collides with the built-in {where} that "
                    "astest-tasks supplies; fix: remove it from the runner's imports, or give "
                    "the @external declaration another name"
                )
            if not callable(function):
                raise _LinkProblem(
                    f"the runner's import {where} is a {type(function).__name__}, not a function"
                )


def _user_entry(function: HostFunction) -> tuple[HostFunction, bool]:
    if not getattr(function, WITH_MEMORY_ATTRIBUTE, False):
        return function, False

    def with_memory(caller: wasmtime.Caller, *args: Any) -> Any:
        return function(GuestMemory(caller), *args)

    return with_memory, True


def _builtin_env(
    channel: ProtocolChannel, stderr: StderrBuffer
) -> dict[str, tuple[HostFunction, bool]]:
    """The raw bindings helper's ``env`` imports, keyed by field, with "needs the caller"."""
    clock = _Clock()

    def abort(caller: wasmtime.Caller, message: int, file: int, line: int, column: int) -> None:
        text = f"abort: {_as_string(caller, message)} in {_as_string(caller, file)}"
        stderr.write(encode_wtf8(f"{text}({line}:{column})\n"))
        raise _GuestExit(1)

    def stdout_write(caller: wasmtime.Caller, buffer: int) -> None:
        _write_stdout(channel, _array_buffer(caller, buffer))

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
            line = encode_wtf8(_as_string(caller, text) + "\n")
            if stream == "stderr":
                stderr.write(line)
            else:
                _write_stdout(channel, line)

        return write

    def trace(caller: wasmtime.Caller, message: int, count: int, *values: float) -> None:
        shown = ", ".join(repr(v) for v in values[: max(0, count)])
        stderr.write(encode_wtf8(f"trace: {_as_string(caller, message)} {shown}\n"))

    return {
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
    return decode_guest_utf16(_array_buffer(caller, pointer))


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
