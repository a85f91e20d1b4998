"""The long-lived process GC settings: warm-up objects frozen, the thresholds set. Source: issue 9."""

from __future__ import annotations

import gc

from services.gctune import THRESHOLDS, tune_for_long_life


def test_tune_freezes_the_warm_up_objects_and_sets_the_thresholds() -> None:
    before = gc.get_threshold()
    try:
        gc.unfreeze()
        tune_for_long_life()
        assert gc.get_threshold() == THRESHOLDS
        assert gc.get_freeze_count() > 0
    finally:  # the test process must go on collecting as before
        gc.unfreeze()
        gc.set_threshold(*before)
