"""CyclicGcPaused: the collector is off inside the stretch and as it was found after it."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from astest_tasks.core.gc_pause import CyclicGcPaused, keep_for_the_process


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


def test_what_exists_is_kept_out_of_the_collectors_sight_and_can_be_put_back() -> None:
    gc.unfreeze()
    made_before = [object()]  # a container the collector tracks
    assert gc.is_tracked(made_before)
    try:
        keep_for_the_process()
        assert gc.get_freeze_count() >= 1
    finally:
        gc.unfreeze()
    assert gc.get_freeze_count() == 0
