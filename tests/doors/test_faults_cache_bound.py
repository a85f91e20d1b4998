"""Caches bounded by bytes: ingest's folded states, the projector's views, the read models'
rendered standings. The bound holds on the estimate and on the memory really retained
(tracemalloc: what clearing the cache frees), and the per-game estimate stays above what a
folded game really keeps. Source: docs/decisions/0011-faults-are-answered-not-crashed.md ("Growth without bound ... caches capped at 10,000
games: about 3 GB per process against the 512 Mi limit").
"""

from __future__ import annotations

import tracemalloc
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Protocol

import pytest

from contracts.events import parse_event_json
from domain.fold import fold
from services.adapters.memory.projections import MemoryProjections
from services.adapters.memory.store import MemoryBackend, MemoryDeadLetters, MemoryEventLog
from services.platform.settings import ServiceSettings
from services.runtime.sizedcache import ByteLRU, state_bytes
from services.usecases.check import CheckedAppend, Known
from services.usecases.project import Project
from tests.doors.fault_support import freed_by, kept_by
from tests.pipeline.factory import game_log

BOUND = 2 * 1024 * 1024
GAMES, EVENTS = 60, 40
EXAMPLES = Path(__file__).resolve().parents[2] / "contracts" / "examples"


async def _stays_within_bound(
    label: str, fill: Callable[[], Awaitable[None]], cache: Sized, clear: Callable[[], None]
) -> None:
    """Run `fill()` under tracemalloc (it checks the estimate against `BOUND` as it goes);
    then `cache` must hold some of the `GAMES` but not all, and `clear()` must free no more
    than `BOUND` bytes really retained."""
    tracemalloc.start()
    try:
        await fill()
        cached, estimated = len(cache), cache.bytes
        freed = freed_by(clear)
    finally:
        tracemalloc.stop()
    print(
        f"\n{label}: cached {cached}, estimated {estimated} bytes, measured {freed} bytes,"
        f" bound {BOUND}"
    )
    assert 0 < cached < GAMES
    assert freed <= BOUND


class Sized(Protocol):
    """A cache bounded in bytes: its entry count and its estimated bytes."""

    bytes: int

    def __len__(self) -> int: ...


def test_byte_lru_keeps_the_bound_and_evicts_the_least_recently_used() -> None:
    cache: ByteLRU[str, bytes] = ByteLRU(1000, len, max_items=8)
    for i in range(50):
        cache.put(f"k{i}", b"x" * 150)
        if i == 10:
            assert cache.get("k5") is not None  # k5 is now recently used
        assert cache.bytes <= 1000
        assert len(cache) <= 8
    assert len(cache) == 6  # 6 * 150 bytes fit in 1000
    assert "k49" in cache
    assert "k0" not in cache
    cache.put("big", b"x" * 5000)  # larger than the bound: kept alone until the next put
    assert (len(cache), cache.get("big")) == (1, b"x" * 5000)
    cache.put("small", b"x")
    assert ("big" in cache, "small" in cache, cache.bytes) == (False, True, 1)


@pytest.mark.parametrize("name", ["trickerion-4p-dark-alley-academy", "penumbra-3p"])
def test_the_estimate_is_above_what_a_folded_game_keeps(name: str) -> None:
    lines = (EXAMPLES / f"{name}.jsonl").read_bytes().splitlines()
    known, kept = kept_by(lambda: Known.of(fold([parse_event_json(line) for line in lines])))
    estimate = state_bytes(known.state)
    print(
        f"\n{name}: {len(lines)} events keep {kept} bytes; estimated {estimate}, "
        f"ratio {estimate / kept:.2f}"
    )
    assert kept <= estimate <= 3 * kept  # an upper bound, not one that wastes the cache


async def test_ingest_state_cache_stays_within_its_bytes() -> None:
    checked = CheckedAppend(MemoryEventLog(MemoryBackend(shards=4)), cache_bytes=BOUND)

    async def fill() -> None:
        for g in range(GAMES):
            await checked.append(f"tr-bound-{g}", game_log(f"tr-bound-{g}", EVENTS))
            assert checked.cache.bytes <= BOUND

    label = f"ingest cache: {GAMES} games of {EVENTS} events"
    await _stays_within_bound(label, fill, checked.cache, checked.cache.clear)


async def test_projector_views_stay_within_their_bytes() -> None:
    backend = MemoryBackend(shards=4)
    log = MemoryEventLog(backend)
    project = Project(
        log, MemoryProjections(backend), MemoryDeadLetters(backend), cache_bytes=BOUND
    )
    for g in range(GAMES):
        await log.append(f"tr-bound-{g}", game_log(f"tr-bound-{g}", EVENTS))

    async def fill() -> None:
        for shard, entries in sorted(backend.feeds.items()):
            for start in range(0, len(entries), 100):
                await project.apply(shard, entries[start : start + 100])
                assert project.views.bytes <= BOUND

    label = f"projector cache: {GAMES} games of {EVENTS} events"
    await _stays_within_bound(label, fill, project.views, project.forget)
    projected = sum(1 for g in range(GAMES) if f"tr-bound-{g}" in backend.projections)
    assert projected == GAMES


async def test_replay_results_stay_within_their_bytes() -> None:
    from concurrent.futures import ThreadPoolExecutor

    from services.usecases.readmodels.offloop import Replays

    log = MemoryEventLog(MemoryBackend(shards=4))
    for g in range(GAMES):
        await log.append(f"tr-bound-{g}", game_log(f"tr-bound-{g}", EVENTS))
    # a thread: the folded states (not picklable) stay in this process, where they are traced
    replays = Replays(log, max_bytes=BOUND, executor=ThreadPoolExecutor(1))

    async def fill() -> None:
        for g in range(GAMES):
            state = await replays.run("fold", f"tr-bound-{g}", EVENTS, fold)
            assert state.seq == EVENTS
            assert replays._results.bytes <= BOUND

    label = f"replay cache: {GAMES} replays of {EVENTS} events"
    await _stays_within_bound(label, fill, replays._results, replays._results.clear)


def test_the_bounds_are_settings() -> None:
    settings = ServiceSettings(
        state_cache_bytes=BOUND, projector_cache_bytes=BOUND, read_cache_bytes=BOUND
    )
    from services.bootstrap import memory_ports, use_cases

    cases = use_cases(memory_ports(), settings)
    assert cases.record.checked.cache._games.max_bytes == BOUND
    assert cases.project.views.max_bytes == BOUND
    assert cases.reads._bodies.max_bytes == BOUND
    assert cases.reads.replays._results.max_bytes == BOUND
