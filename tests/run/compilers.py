"""Which of wasmtime's compilers made a module (run/wasm_compiler.py chooses)."""

from __future__ import annotations

import pytest
import wasmtime

from astest_tasks.run.wasm_compiler import winch_runs_here

needs_winch = pytest.mark.skipif(
    not winch_runs_here(), reason="wasmtime's Winch is used on x86-64 only"
)


def compiled_by_winch(module: wasmtime.Module) -> bool:
    """Code Winch made will not load into a Cranelift engine: its calling convention differs."""
    config = wasmtime.Config()
    config.epoch_interruption = True  # as the host's engines: that difference would stop it too
    try:
        wasmtime.Module.deserialize(wasmtime.Engine(config), module.serialize())
    except wasmtime.WasmtimeError as exc:
        assert "Winch" in str(exc)
        return True
    return False
