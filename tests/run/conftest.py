"""Fixtures of the run tests."""

from __future__ import annotations

import pytest
import wasmtime


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
