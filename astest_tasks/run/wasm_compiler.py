"""Which of wasmtime's two compilers turns a spec's module into machine code.

Cranelift optimises; Winch, wasmtime's baseline compiler, translates in one pass. Most specs run
for a few milliseconds, so compiling the module costs more than running it. On the 50-spec bench
suite (modules of about 80 KB), Cranelift took 58 ms of CPU per module and Winch 11 ms, and a
cold run took 7.5-8.3 s instead of 8.5-9.1 s. Winch's code is slower: the big-suite bench's
guests took 1.4 times as long. So a spec whose previous run took ``HEAVY_RUN_S`` or more is
compiled with Cranelift next time, much as V8 moves hot code from Liftoff to TurboFan. A spec
never run before is judged by the last spec this process ran, since a suite's specs tend to be
alike (on the big suite, only the first run of each process then pays for Winch); the first
starts on Winch. Fuzz campaigns run their code thousands of times: Cranelift.

Which compiler a spec got must never change its verdict:
- Winch is used only on x86-64, where wasmtime supports it as a tier-1 compiler.
- A module Winch will not compile goes to Cranelift, which compiles it or says what is wrong.
- The two lay out frames differently, in stacks of the same size. Winch gives every local a
  slot (its frames were three times Cranelift's for a function of ten locals, thirty times for
  one of 200 mostly unused), while an AssemblyScript function of three locals went 6,550 calls
  deep under Winch and 5,459 under Cranelift. A run whose call stack runs out is run again
  under the other compiler (``other_compiler``, actions/run_action.py), so it fails only when it
  runs out under both.

``ASTEST_WASM_COMPILER`` picks one compiler for every spec and fuzz campaign: ``cranelift``,
``winch`` or ``auto`` (the default: the rules above).
"""

from __future__ import annotations

import enum
import math
import os
from collections.abc import Mapping

SWITCH_VARIABLE = "ASTEST_WASM_COMPILER"

# Break-even: Winch saves ~50 ms of compiling per typical module and loses ~40 % of the guest's
# running time, so a run of ~0.13 s is even; the margin keeps borderline specs on the cheap
# compile, since their recorded time includes host work that no compiler speeds up.
HEAVY_RUN_S = 0.3

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
    choice = _switch(environ)
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


def other_compiler(
    used: WasmCompiler | None, environ: Mapping[str, str] | None = None
) -> WasmCompiler | None:
    """The compiler to run a spec again with, after its call stack ran out in code ``used``
    compiled; None when there is none (the switch picks one compiler, or Winch does not run
    here) or wasmtime did not run the spec."""
    try:
        choice = _switch(environ)
    except CompilerChoiceError:
        return None
    if used is None or choice != "auto" or not winch_runs_here():
        return None
    return WasmCompiler.WINCH if used is WasmCompiler.CRANELIFT else WasmCompiler.CRANELIFT


def _switch(environ: Mapping[str, str] | None) -> str:
    choice = (os.environ if environ is None else environ).get(SWITCH_VARIABLE, "auto")
    choice = choice.strip().lower() or "auto"
    if choice not in ("auto", "cranelift", "winch"):
        raise CompilerChoiceError(
            f"{SWITCH_VARIABLE}={choice!r} names no compiler; fix: set it to auto (the default), "
            "winch or cranelift, or unset it"
        )
    return choice


def winch_runs_here() -> bool:
    import platform  # asked once a spec runs; planning never needs the machine's name

    return platform.machine().lower() in _WINCH_MACHINES
