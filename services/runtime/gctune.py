"""Garbage-collector settings for a long-lived service process (projector, query).

After warm-up (imports done, the app built), `gc.freeze()` moves every object alive then into
the permanent generation, so no later collection walks them again (docs/decisions/0012-hot-reads-and-off-loop-replays.md: full collections
of the projector paused it 82-179 ms, straight into the p99).

In the projector (`survivors=True`) every object that survives its first young collection is
frozen too (`freeze_survivors`, a `gc.callbacks` hook; `gc.freeze()` splices the generation
lists, O(1)). Why: at 1,000
events/s the projector keeps about 8,000 new tracked objects a second (game states growing);
left in generation 1 they made each gen-1 collection walk all of them (with the former
thresholds 10,000/50/1,000 about 350,000 objects every ~42 s; with 10,000/2 a 38-64 ms pause
every ~2 s under load 3-4), and a young collection of 10,000 allocations took 5-22 ms under
load. Now each object is walked once, in a young collection of `THRESHOLDS[0]` allocations,
and the older generations stay empty. Cost: a reference cycle that becomes garbage after its
first young collection is not collected by the automatic collector; measured on the projector
at 1,000 events/s, none did in steady state (the only such garbage was redis-py's connection
objects at shutdown). `full_collections` collects those every `every_s` (one full pause).

The query process (`scoreledger serve`) keeps the plain thresholds (`THRESHOLDS`): its
objects' lifetimes were not measured.

Call `tune_for_long_life` once per process, from its entry point, never from a library or a
test (a frozen object is never collected automatically).
Source: docs/decisions/0012-hot-reads-and-off-loop-replays.md; https://docs.python.org/3/library/gc.html#gc.freeze; profile
docs/profiles/live-1000.txt.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
from collections.abc import AsyncIterator
from typing import Any

THRESHOLDS = (10_000, 50, 1_000)
"""gen0 allocations, gen0 runs per gen1 run, gen1 runs per full run (CPython default 700/10/10)."""

SURVIVOR_THRESHOLDS = (5_000, 10, 10)
"""With `survivors=True`: gen0 allocations per young collection (the pause's size); the older
generations stay empty, so their thresholds only bound how often an empty list is walked."""

FULL_EVERY_S = 600.0
"""Seconds between full collections of everything frozen since start-up (`full_collections`)."""


def freeze_survivors(phase: str, info: dict[str, Any]) -> None:
    """`gc.callbacks` hook: after every collection, freeze what survived it (module docstring)."""
    if phase == "stop":
        gc.freeze()


def tune_for_long_life(
    thresholds: tuple[int, int, int] | None = None, survivors: bool = False
) -> None:
    """Collect once, freeze what is alive (warm-up objects) and set `thresholds` (default
    `THRESHOLDS`, or `SURVIVOR_THRESHOLDS` with `survivors`). With `survivors`, also freeze
    the survivors of every later collection (`freeze_survivors`, registered once); run
    `full_collections` beside it (`collecting_frozen`). With `survivors` the collector also
    pauses while a batch loop catches up (`CATCH_UP`)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*(thresholds or (SURVIVOR_THRESHOLDS if survivors else THRESHOLDS)))
    if survivors and freeze_survivors not in gc.callbacks:
        gc.callbacks.append(freeze_survivors)
    # the pause freezes what it leaves: only where `full_collections` collects the frozen
    CATCH_UP.enabled = survivors


@contextlib.asynccontextmanager
async def collecting_frozen() -> AsyncIterator[None]:
    """`full_collections` running while inside when survivors are frozen (after
    `tune_for_long_life(survivors=True)`); nothing otherwise."""
    if freeze_survivors not in gc.callbacks:
        yield
        return
    task = asyncio.create_task(full_collections(), name="full-collections")
    try:
        yield
    finally:
        task.cancel()


def collect_everything() -> int:
    """One full collection of every object, the frozen ones included, then freeze the
    survivors again; returns the unreachable objects found (a pause of the whole heap)."""
    gc.unfreeze()
    found = gc.collect()
    gc.freeze()
    return found


async def full_collections(every_s: float = FULL_EVERY_S) -> None:
    """`collect_everything` every `every_s` seconds until cancelled (the cycles that
    `freeze_survivors` kept from the automatic collector)."""
    while True:
        await asyncio.sleep(every_s)
        collect_everything()


FULL_READS_TO_PAUSE = 1
"""Reads in a row that came back full before the collector is paused. One: a full read (500
entries of one shard's feed by default) is a backlog of seconds even at 1,000 events/s over 16
shards, and the catch-up bench row reads each shard's feed only 6 times."""


MAX_PAUSED_READS = 2_000
"""Full reads one pause lasts at most (about 1,000,000 events at the default 500 per read):
then one full collection runs and the pause starts again. It bounds what a projector that
never catches up (always behind) leaves uncollected; a full collection per million events is
about 1 % of their fold."""


class CatchUpPause:
    """The cyclic collector paused while a batch loop catches up, once `tune_for_long_life` ran.

    While reads come back full the process only folds what it reads into states it keeps: the
    collections find almost nothing (with the collector off for a 250,000-event and for a
    1,000,000-event rebuild, a collection at the end found 728 and 724 unreachable objects:
    start-up's and shutdown's, not the catch-up's) but walk every young object and, from gen1
    on, a heap the size of the state cache: 15.6 s of a 1,000,000-event rebuild's 44 s CPU,
    growing with the heap (docs/decisions/0012-hot-reads-and-off-loop-replays.md; docs/profiles/projector-after-gc-pause.txt). After
    `FULL_READS_TO_PAUSE` full reads the collector is off; at the first read that is not full
    what the catch-up left alive is frozen (O(1); the catch-up was the warm-up, and a young
    collection over all of it would be the long pause this avoids) and the collector is on
    again. Cyclic garbage made during the catch-up stays (none measured beyond those); a pause
    longer than `MAX_PAUSED_READS` full reads runs one full collection and pauses again, so a
    loop that stays behind still collects now and then.
    """

    def __init__(self) -> None:
        self.enabled = False  # set by tune_for_long_life: long-lived processes only
        self.paused = False
        self._full = 0
        self.collections = 0  # the full collections a long pause ran (read by tests, metrics)

    def read(self, full: bool) -> None:
        """Note one read of the loop: `full` when it returned as many entries as it asked for."""
        if not self.enabled:
            return
        if full:
            self._full += 1
            if self._full >= FULL_READS_TO_PAUSE and not self.paused and gc.isenabled():
                gc.disable()
                self.paused = True
            elif self.paused and self._full >= FULL_READS_TO_PAUSE + MAX_PAUSED_READS:
                gc.collect()  # still behind: collect once, then pause again
                self.collections += 1
                self._full = FULL_READS_TO_PAUSE
            return
        self._full = 0
        if self.paused:
            self.paused = False
            gc.freeze()
            gc.enable()


CATCH_UP = CatchUpPause()
"""The process's pause (the projector loop reports each read to it)."""
