"""Builds compiled ahead of their turn (build_prefetch.py), as a run and as watch mode start them.

During a run, the next build's asc runs beside the guest. In watch mode, a saved file's build
starts on the first event of a save, while the save's burst is still gathered and the cycle loads
its tasks; once asc is done, the same thread compiles the module for wasmtime too
(module_shelf.py), so that a cycle's run finds it ready. (During a serial run the wasmtime compile
is left to the run itself: measured on a 20-spec suite, doing it ahead competed with the next asc
for the two cores and made the run 0.1-0.2 s slower.)"""

from __future__ import annotations

from collections.abc import Callable, Collection

from astest_tasks.build.build_prefetch import (
    enabled,
    planned_builds,
    prefetch_after,
    prefetch_for,
)
from astest_tasks.build.compiler import compile_ahead
from astest_tasks.build.compiler_warmup import CompilerWarmup


def compile_next(basename: str, mode: str, spec_id: str) -> bool:
    """While the run of (basename, mode, spec_id) starts: the next build doit will run."""
    return prefetch_after(basename, mode, spec_id, compile_ahead)


def compile_changed(changed: Collection[str]) -> bool:
    """As soon as a watched file changes: the first build that reads it."""
    return prefetch_for(changed, compile_ahead, _compile_for_wasmtime)


def _compile_for_wasmtime(wasm: bytes) -> Callable[[], None] | None:
    # Imported here: a no-op doit makes the run tasks, and must not pay for loading wasmtime.
    from astest_tasks.run.wasm_host import compile_ahead_of_run

    return compile_ahead_of_run(wasm)


def warm_compiler(warmup: CompilerWarmup) -> bool:
    """While watch mode idles: compile the project's builds again to warm the compile server."""
    return enabled() and warmup.start(planned_builds(), compile_ahead)
