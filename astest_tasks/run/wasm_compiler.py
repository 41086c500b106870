"""Which of wasmtime's two compilers turns a spec's module into machine code.

Cranelift optimises; Winch, wasmtime's baseline compiler, translates in one pass. Most specs run
for a few milliseconds, so compiling the module costs more than running it. On the 50-spec bench
suite (modules of about 80 KB), Cranelift took 58 ms of CPU per module and Winch 11 ms, and a cold
run took 8.3 s instead of 9.5 s. Winch's code is slower: the big-suite bench's guests took 1.4
times as long. So a spec whose previous run took ``HEAVY_RUN_S`` or more is compiled with
Cranelift next time, much as V8 moves hot code from Liftoff to TurboFan. A spec never run before
is judged by the last spec this process ran, since a suite's specs tend to be alike (on the big
suite, only the first run of each process then pays for Winch); the first starts on Winch.

Winch is used only on x86-64, where wasmtime supports it as a tier-1 compiler. A module Winch
will not compile goes to Cranelift, which compiles it or says what is wrong with it.
``ASTEST_WASM_COMPILER`` picks one compiler for every spec: ``cranelift``, ``winch`` or ``auto``
(the default: the rule above).
"""

from __future__ import annotations

import enum
import math
import os
import platform
from collections.abc import Mapping

SWITCH_VARIABLE = "ASTEST_WASM_COMPILER"

# Break-even: Winch saves ~50 ms of compiling per typical module and loses ~40 % of the guest's
# running time, so a run of ~0.13 s is even; the margin keeps borderline specs on the cheap
# compile, since their recorded time includes host work that no compiler speeds up.
HEAVY_RUN_S = 0.3

# Winch keeps every local and operand of a frame in memory: the same recursion took three times
# the stack that Cranelift's frames take (5,459 calls deep against 16,380 in wasmtime's default
# 512 KiB). Three times the stack keeps a spec's recursion depth what it was under Cranelift.
WINCH_MAX_WASM_STACK = 3 * 512 * 1024

_WINCH_MACHINES = frozenset({"x86_64", "amd64"})


class WasmCompiler(enum.Enum):
    CRANELIFT = "cranelift"
    WINCH = "winch"


class CompilerChoiceError(ValueError):
    """ASTEST_WASM_COMPILER names no compiler; the message says which values it takes."""


class _LastRunHere:
    """How long the last spec run in this process took (a forked process inherits it)."""

    seconds: float | None = None


def note_run(seconds: float) -> None:
    """A spec ran in this process for ``seconds``, module compile included."""
    _LastRunHere.seconds = seconds


def compiler_for(
    previous_run_s: float | None, environ: Mapping[str, str] | None = None
) -> WasmCompiler:
    """The compiler for a spec whose last run took ``previous_run_s`` (None: never run)."""
    if previous_run_s is None:
        previous_run_s = _LastRunHere.seconds
    choice = (os.environ if environ is None else environ).get(SWITCH_VARIABLE, "auto")
    choice = choice.strip().lower() or "auto"
    if choice not in ("auto", "cranelift", "winch"):
        raise CompilerChoiceError(
            f"{SWITCH_VARIABLE}={choice!r} names no compiler; fix: set it to auto (the default), "
            "winch or cranelift, or unset it"
        )
    if choice == "cranelift" or not winch_runs_here():
        return WasmCompiler.CRANELIFT
    if choice == "winch":
        return WasmCompiler.WINCH
    heavy = previous_run_s is not None and previous_run_s >= HEAVY_RUN_S
    return WasmCompiler.CRANELIFT if heavy else WasmCompiler.WINCH


def compiler_for_hot_code(environ: Mapping[str, str] | None = None) -> WasmCompiler:
    """For a module whose code runs thousands of times (a fuzz campaign): Cranelift, unless
    ``ASTEST_WASM_COMPILER`` picks one compiler for everything."""
    return compiler_for(math.inf, environ)


def winch_runs_here() -> bool:
    return platform.machine().lower() in _WINCH_MACHINES
