"""Garbage-collector settings for a long-lived service process (projector, query).

After warm-up (imports done, the app built), `gc.freeze()` moves every object alive then into
the permanent generation, so no later collection walks them again; the thresholds then make
young collections rarer and full ones much rarer (issue 9: full collections of the projector
paused it 82-179 ms, straight into the p99). Call once per process, from its entry point,
never from a library or a test (a frozen object is never collected).
Source: issue 9; https://docs.python.org/3/library/gc.html#gc.freeze.
"""

from __future__ import annotations

import gc

THRESHOLDS = (10_000, 50, 1_000)
"""gen0 allocations, gen0 runs per gen1 run, gen1 runs per full run (CPython default 700/10/10)."""


def tune_for_long_life(thresholds: tuple[int, int, int] = THRESHOLDS) -> None:
    """Collect once, freeze what is alive (warm-up objects) and set `thresholds`."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*thresholds)
