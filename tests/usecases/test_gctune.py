"""The long-lived process GC settings: warm-up objects frozen, the thresholds set; in the
projector every survivor of a collection frozen too, and the full collection that still finds
cycles among the frozen. Source: docs/decisions/0012-hot-reads-and-off-loop-replays.md."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from services.runtime.gctune import (
    CATCH_UP,
    FULL_READS_TO_PAUSE,
    MAX_PAUSED_READS,
    SURVIVOR_THRESHOLDS,
    THRESHOLDS,
    CatchUpPause,
    collect_everything,
    freeze_survivors,
    tune_for_long_life,
)


@pytest.fixture
def restored_gc() -> Iterator[None]:
    """The test process goes on collecting as before, whatever the test set."""
    before = gc.get_threshold()
    gc.unfreeze()
    try:
        yield
    finally:
        while freeze_survivors in gc.callbacks:
            gc.callbacks.remove(freeze_survivors)
        gc.unfreeze()
        gc.set_threshold(*before)
        gc.enable()
        CATCH_UP.enabled = False


class Node:
    """A container that can sit in a reference cycle."""

    def __init__(self) -> None:
        self.other: Node | None = None


def test_tune_freezes_the_warm_up_objects_and_sets_the_thresholds(restored_gc: None) -> None:
    tune_for_long_life()
    assert gc.get_threshold() == THRESHOLDS
    assert gc.get_freeze_count() > 0
    assert freeze_survivors not in gc.callbacks  # the query process: plain generations
    assert not CATCH_UP.enabled  # no pause where nothing collects what it would freeze


def test_survivors_of_a_young_collection_are_frozen(restored_gc: None) -> None:
    tune_for_long_life(survivors=True)
    tune_for_long_life(survivors=True)  # registered once
    assert gc.get_threshold() == SURVIVOR_THRESHOLDS
    assert gc.callbacks.count(freeze_survivors) == 1
    assert CATCH_UP.enabled  # the projector alone: the catch-up pause too
    kept = [Node() for _ in range(100)]
    frozen = gc.get_freeze_count()
    gc.collect(0)
    print(f"frozen before {frozen}, after a young collection {gc.get_freeze_count()}")
    assert gc.get_freeze_count() >= frozen + len(kept)
    assert not gc.get_objects(1)
    assert not gc.get_objects(2)


def test_a_cycle_dropped_after_it_was_frozen_is_found_by_the_full_collection(
    restored_gc: None,
) -> None:
    tune_for_long_life(survivors=True)
    a, b = Node(), Node()
    a.other, b.other = b, a
    gc.collect(0)  # survived: frozen
    del a, b  # now garbage, but only a collection of the frozen objects can see it
    assert gc.collect() == 0
    assert collect_everything() >= 2
    assert gc.get_freeze_count() > 0  # the survivors frozen again


def test_the_collector_pauses_while_reads_come_back_full_and_resumes_frozen() -> None:
    pause = CatchUpPause()
    pause.read(True)
    assert gc.isenabled()
    assert not pause.paused
    pause.enabled = True
    try:
        gc.unfreeze()
        for _ in range(FULL_READS_TO_PAUSE - 1):
            pause.read(True)
        pause.read(False)  # a burst shorter than FULL_READS_TO_PAUSE keeps the collector on
        for _ in range(FULL_READS_TO_PAUSE - 1):
            pause.read(True)
        assert gc.isenabled()
        assert not pause.paused
        pause.read(True)
        assert not gc.isenabled()
        assert pause.paused
        kept = [[i] for i in range(1000)]  # what a catch-up leaves alive
        pause.read(True)
        assert not gc.isenabled()
        pause.read(False)
        assert gc.isenabled()
        assert not pause.paused
        assert gc.get_freeze_count() >= len(kept)
    finally:
        gc.enable()
        gc.unfreeze()


def test_a_pause_that_never_ends_still_collects_now_and_then() -> None:
    """A loop that stays behind (every read full) runs one full collection every
    MAX_PAUSED_READS full reads and pauses again: cyclic garbage is bounded."""
    pause = CatchUpPause()
    pause.enabled = True
    try:
        for _ in range(FULL_READS_TO_PAUSE):
            pause.read(True)
        assert pause.paused
        for _ in range(MAX_PAUSED_READS - 1):
            pause.read(True)
        assert pause.collections == 0
        cycle = _Node()
        cycle.me = cycle
        alive = weakref.ref(cycle)
        del cycle  # garbage only a collection frees
        pause.read(True)
        assert alive() is None
        assert pause.collections == 1
        assert pause.paused
        assert not gc.isenabled()
        for _ in range(MAX_PAUSED_READS):
            pause.read(True)
        assert pause.collections == 2
    finally:
        gc.enable()
        gc.unfreeze()


class _Node:
    """An object that can sit in a reference cycle and be watched by a weak reference."""

    me: object = None
