"""CyclicGcPaused: the collector is off inside the stretch and as it was found after it."""

from __future__ import annotations

import gc
import sys
import types
from collections.abc import Iterator

import pytest

from astest_tasks.core.gc_pause import CyclicGcPaused, FirstLoadKept


@pytest.fixture(autouse=True)
def collector_restored() -> Iterator[None]:
    was_enabled = gc.isenabled()
    yield
    if was_enabled:
        gc.enable()
    else:
        gc.disable()


def test_the_collector_is_off_inside_and_on_again_after() -> None:
    gc.enable()
    with CyclicGcPaused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_collector_the_caller_turned_off_stays_off() -> None:
    gc.disable()
    with CyclicGcPaused():
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_the_collector_is_on_again_after_a_stretch_that_raises() -> None:
    gc.enable()
    with pytest.raises(KeyError), CyclicGcPaused():
        raise KeyError("stopped")
    assert gc.isenabled()


def test_nested_pauses_turn_it_on_once_the_outer_one_ends() -> None:
    gc.enable()
    with CyclicGcPaused():
        with CyclicGcPaused():
            assert not gc.isenabled()
        assert not gc.isenabled(), "the inner pause found it off"
    assert gc.isenabled()


@pytest.fixture
def nothing_frozen() -> Iterator[None]:
    gc.unfreeze()
    yield
    gc.unfreeze()


def test_a_first_load_leaves_what_exists_out_of_the_collectors_sight(
    nothing_frozen: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delitem(sys.modules, "first_loaded", raising=False)
    gc.enable()
    with FirstLoadKept("first_loaded", keeps=lambda: True):
        assert not gc.isenabled()
        monkeypatch.setitem(sys.modules, "first_loaded", types.ModuleType("first_loaded"))
    assert gc.get_freeze_count() > 0 and gc.isenabled()


def test_a_module_loaded_before_a_failed_load_or_another_process_freezes_nothing(
    nothing_frozen: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "loaded_before", types.ModuleType("loaded_before"))
    with FirstLoadKept("loaded_before", keeps=lambda: True):
        pass
    monkeypatch.delitem(sys.modules, "never_loads", raising=False)
    with pytest.raises(ImportError), FirstLoadKept("never_loads", keeps=lambda: True):
        raise ImportError("no such module")
    with FirstLoadKept("never_loads", keeps=lambda: True):
        pass  # a stretch that did not load it
    monkeypatch.delitem(sys.modules, "not_kept_here", raising=False)
    with FirstLoadKept("not_kept_here", keeps=lambda: False):  # not a process to keep it for
        monkeypatch.setitem(sys.modules, "not_kept_here", types.ModuleType("not_kept_here"))
    assert gc.get_freeze_count() == 0 and gc.isenabled()
