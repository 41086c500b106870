"""Fixtures shared by the compile pool and shared server tests of this folder."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from astest_tasks.schedule import scheduler
from astest_tasks.schedule.compile_pool import CompilePool
from tests.fakes import FAKE_SERVER


@pytest.fixture
def process_pool(monkeypatch: pytest.MonkeyPatch) -> Iterator[CompilePool]:
    """This process's pool (what builds use, and what a forked child inherits), serving from
    the fake server: the pool of a scheduler installed behind the door."""
    installed = scheduler.Scheduler(server_script=FAKE_SERVER)
    monkeypatch.setattr(scheduler, "_current", installed)
    yield installed.compile_pool
    installed.close()
