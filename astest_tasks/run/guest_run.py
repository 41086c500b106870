"""How a spec's runtime ended, whichever runtime ran it (embedded wasmtime or a subprocess)."""

from __future__ import annotations

import time
from dataclasses import dataclass

from astest_tasks.core.guest_text import decode_guest_utf8
from astest_tasks.run.wasm_compiler import WasmCompiler

MAX_KEPT_STDERR = 256 * 1024


@dataclass
class GuestRun:
    """How the guest ended. ``exit_code`` follows Node's runners: 0 clean, non-zero otherwise."""

    exit_code: int
    stderr: str
    elapsed_s: float
    timed_out: bool = False
    start_failure: str | None = None  # could not compile, link, instantiate or spawn it
    trap: str | None = None
    memory_exhausted: bool = False  # its memory had reached the limit when it failed
    stack_exhausted: bool = False  # it trapped because its call stack ran out
    compiled_by: WasmCompiler | None = None  # the wasmtime compiler, when wasmtime ran it

    @classmethod
    def not_started(cls, problem: str, started: float, details: str = "") -> GuestRun:
        """A runtime that never ran the spec; ``started`` is a ``time.perf_counter()`` value."""
        elapsed = time.perf_counter() - started
        return cls(exit_code=1, stderr=details, elapsed_s=elapsed, start_failure=problem)


class StderrBuffer:
    """The guest's stderr, bounded: a spec that floods it must not exhaust our memory."""

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
        text = decode_guest_utf8(self._data)
        if self._total > len(self._data):
            text += f"\n… {self._total - len(self._data)} more bytes of stderr not kept"
        return text
