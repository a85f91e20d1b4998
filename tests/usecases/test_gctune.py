"""The long-lived process GC settings: warm-up objects frozen, the thresholds set. Source: issue 9."""

from __future__ import annotations

import gc
import weakref

from services.gctune import (
    CATCH_UP,
    FULL_READS_TO_PAUSE,
    MAX_PAUSED_READS,
    THRESHOLDS,
    CatchUpPause,
    tune_for_long_life,
)


def test_tune_freezes_the_warm_up_objects_and_sets_the_thresholds() -> None:
    before = gc.get_threshold()
    try:
        gc.unfreeze()
        tune_for_long_life()
        assert gc.get_threshold() == THRESHOLDS
        assert gc.get_freeze_count() > 0
        assert CATCH_UP.enabled
    finally:  # the test process must go on collecting as before
        gc.unfreeze()
        gc.set_threshold(*before)
        CATCH_UP.enabled = False


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
