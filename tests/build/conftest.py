"""Fixtures shared by the compile server tests of this folder."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from astest_tasks.build import compile_pool
from astest_tasks.build.compile_pool import CompilePool
from tests.fakes import FAKE_SERVER


@pytest.fixture
def process_pool(monkeypatch: pytest.MonkeyPatch) -> Iterator[CompilePool]:
    """This process's pool (what builds use, and what a forked child inherits), serving from
    the fake server."""
    created = CompilePool(script=FAKE_SERVER)
    monkeypatch.setattr(compile_pool, "_pool", created)
    yield created
    compile_pool.shutdown()
