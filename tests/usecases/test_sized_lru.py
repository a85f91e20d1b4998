"""`ByteLRU` estimates each value once per put (its `size_of` may be O(new text), as the state
cache's `known_bytes` is), and bounds and evicts by that estimate; a map no longer used is
freed by its reference count, without the cycle collector.
Source: docs/decisions/0011-faults-are-answered-not-crashed.md (caches bounded by size)."""

from __future__ import annotations

import gc
import weakref

from services.runtime.sizedcache import ByteLRU


def test_each_put_estimates_its_value_once_and_keeps_that_estimate() -> None:
    calls: list[str] = []

    def size_of(value: str) -> int:
        calls.append(value)
        return 100 * len(calls)  # a second estimate of the same value would differ

    cache: ByteLRU[str, str] = ByteLRU(1000, size_of, max_items=8)
    cache.put("a", "va")
    cache.put("b", "vb")
    assert (calls, cache.bytes) == (["va", "vb"], 300)
    cache.put("a", "va2")  # replaced: its new estimate (300) stands for it
    assert (calls, cache.bytes) == (["va", "vb", "va2"], 500)
    cache.put("c", "vc")  # 400 more: 900, within the bound
    assert (len(cache), cache.bytes) == (3, 900)
    cache.put("d", "vd")  # 500 more: "b" then "a" (least recently used) go
    assert (sorted(cache.kept_keys()), cache.bytes) == (["c", "d"], 900)
    assert calls == ["va", "vb", "va2", "vc", "vd"]
    cache.put("e", "ve")  # 600: larger than what is left, "c" and "d" go
    assert (cache.kept_keys(), cache.bytes) == (["e"], 600)
    cache.put("big", "vbig")  # 700 ... still within 1000: kept with nothing else
    assert sorted(cache.kept_keys()) == ["big"]
    assert len(calls) == 7


def test_a_dropped_map_is_freed_without_the_cycle_collector() -> None:
    cache: ByteLRU[str, str] = ByteLRU(1000, len)
    cache.put("a", "va")
    gone = weakref.ref(cache)
    gc.disable()
    try:
        del cache
        assert gone() is None  # no reference cycle through the LRU's size function
    finally:
        gc.enable()
