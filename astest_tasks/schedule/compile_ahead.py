"""Builds compiled ahead of their turn (build_prefetch.py), as a run and as watch mode start them
(``Scheduler.compile_next``, ``compile_changed`` and ``warm_compiler`` in scheduler.py).

During a run, the next build's asc runs beside the guest. In watch mode, a saved file's build
starts on the first event of a save, while the save's burst is still gathered and the cycle loads
its tasks; once asc is done, the same thread compiles the module for wasmtime too
(module_shelf.py), so that a cycle's run finds it ready. (During a serial run the wasmtime compile
is left to the run itself: measured on a 20-spec suite, doing it ahead competed with the next asc
for the two cores and made the run 0.1-0.2 s slower.)"""

from __future__ import annotations

from collections.abc import Callable


def compile_for_wasmtime(wasm: bytes) -> Callable[[], None] | None:
    """After a saved file's build was compiled ahead: its module for wasmtime, on the same
    thread (module_shelf.py)."""
    # Imported here: a no-op doit makes the run tasks, and must not pay for loading wasmtime.
    from astest_tasks.run.wasm_host import compile_ahead_of_run

    return compile_ahead_of_run(wasm)
