"""Spec modules compiled for wasmtime ahead of their run, handed to the run in this process.

A run's first step is Cranelift compiling the spec's new module: about 30 ms for a small spec,
on the critical path of a watch cycle. The compile that watch mode starts ahead of a build
(build_prefetch.py, schedule/compile_ahead.py) does that step too, on its thread, right after asc:
``reserve`` puts the module's place on the shelf while the build still waits for asc's output,
then compiles it; the run's ``take`` finds it by the module's bytes (waiting if it is still being
compiled) instead of compiling again.

- Keyed by the bytes' SHA-256 and the engine: a module is handed only to a run of exactly those
  bytes, with the engine it was compiled for (a forked doit worker makes its own engine and
  starts with an empty shelf).
- Bounded: at most ``SHELF_SIZE`` modules wait here; the oldest goes first. A module nobody takes
  (its run was up to date after all) costs memory until then, nothing else.
- Taken once: a run takes its module off the shelf.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

import wasmtime

SHELF_SIZE = 4


@dataclass
class _Entry:
    engine: wasmtime.Engine
    module: wasmtime.Module | None = None
    ready: threading.Event = field(default_factory=threading.Event)


class ModuleShelf:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: OrderedDict[bytes, _Entry] = OrderedDict()

    def reserve(self, engine: wasmtime.Engine, wasm: bytes) -> Callable[[], None] | None:
        """Put a place for the module on the shelf now, so that its run waits for it rather than
        compiling it again; the returned call compiles it (None: already there)."""
        key = _key(wasm)
        entry = _Entry(engine)
        with self._lock:
            if key in self._entries:
                return None
            self._entries[key] = entry
            while len(self._entries) > SHELF_SIZE:
                self._entries.popitem(last=False)

        def compile_it() -> None:
            try:
                entry.module = wasmtime.Module(engine, wasm)
            except wasmtime.WasmtimeError:
                entry.module = None  # the run compiles it again and reports the error itself
            finally:
                entry.ready.set()

        return compile_it

    def take(self, engine: wasmtime.Engine, wasm: bytes) -> wasmtime.Module | None:
        """The module compiled ahead for these bytes and this engine; None when there is none."""
        if not self._entries:  # most runs: nothing was compiled ahead, so hash nothing
            return None
        with self._lock:
            entry = self._entries.pop(_key(wasm), None)
        if entry is None or entry.engine is not engine:
            return None
        entry.ready.wait()
        return entry.module

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)


def _key(wasm: bytes) -> bytes:
    return hashlib.sha256(wasm).digest()


SHELF = ModuleShelf()


def _forget_after_fork() -> None:
    # A forked doit worker has an engine of its own, and the parent's compiling threads are not
    # there to finish what they started.
    global SHELF
    SHELF = ModuleShelf()


os.register_at_fork(after_in_child=_forget_after_fork)
