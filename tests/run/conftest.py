"""Fixtures of the run tests."""

from __future__ import annotations

import pytest
import wasmtime

from astest_tasks.run import wasm_compiler


@pytest.fixture
def instantiated(monkeypatch: pytest.MonkeyPatch) -> list[wasmtime.Module]:
    """The modules the host instantiates, in order."""
    seen: list[wasmtime.Module] = []
    real_linker = wasmtime.Linker

    class SeeingLinker(real_linker):  # type: ignore[misc,valid-type]
        def instantiate(self, store: wasmtime.Store, module: wasmtime.Module) -> object:
            seen.append(module)
            return super().instantiate(store, module)

    monkeypatch.setattr(wasmtime, "Linker", SeeingLinker)
    return seen


@pytest.fixture(autouse=True)
def no_spec_run_here_yet(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts as a fresh process: no earlier run steers wasm_compiler's choice."""
    monkeypatch.setattr(wasm_compiler._LastRunHere, "seconds", None)
