"""Caches bounded by size in bytes (an estimate per entry) and by a number of entries.

`ByteLRU` is cachetools' `LRUCache` with `getsizeof`: the least recently used entries are
evicted while the estimated bytes exceed `max_bytes` (or the entries exceed `max_items`). An
entry larger than the whole bound is kept alone (everything else evicted) until the next put,
so a caller can always read back what it just put. Estimates, not measurements, because a
deep size walk per put would cost more than the fold it saves: `game_bytes(n)` is an upper
bound of what a folded game of `n` events retains (measured with tracemalloc on the example
games: 2.7-3.3 kB per event for the state with its history and id index; the test
tests/doors/test_faults_cache_bound.py checks the estimate stays above the measurement).
Text is the exception: a valid event may carry 500-character fields of 4-byte characters, and
a ledger note may copy text of an earlier event (a declared card's name on every performance),
so `state_bytes` adds `TEXT_FACTOR` times the bytes of every string of the events and of the
ledger entries (each counted once, as they are cached; tests/adversarial/test_cache_byte_estimate.py
measures it).
Source: docs/decisions/0011-faults-are-answered-not-crashed.md ("caches bounded by size in bytes with a setting").
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Hashable, Iterable
from datetime import date, datetime
from decimal import Decimal
from operator import attrgetter
from typing import Any, Generic, TypeVar
from uuid import UUID

from cachetools import LRUCache
from pydantic import BaseModel

from domain.fold import GameState
from domain.memo import MISS

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

EVENT_BYTES = 3_500
"""Estimated bytes one folded event keeps alive (envelope in the history, ledger rows, id)."""
GAME_BYTES = 2_000
"""Estimated bytes of a folded game's fixed part (players, sums, the cache entry)."""


TEXT_FACTOR = 2
"""Bytes kept per byte counted of the strings of the events and the ledger entries: those
strings themselves plus headroom for one more derived copy (measured: 10.3 kB kept per event
of two 500-emoji fields, 8.2 kB of them the envelope's strings and the ledger note)."""
_TEXT_KEY = "sizedcache.text_bytes"
_NO_TEXT: frozenset[type] = frozenset({int, float, bool, type(None), UUID, datetime, date, Decimal})
"""Types `text_bytes` answers 0 for at once (the fields of most events)."""


def game_bytes(events: int) -> int:
    """The estimated bytes of a folded game of `events` events of ordinary (short) text."""
    return GAME_BYTES + EVENT_BYTES * max(events, 0)


def text_bytes(value: object) -> int:
    """The bytes of the strings in `value` (an event: pydantic models, lists, dicts), each by
    `sys.getsizeof` (O(1) per string: 1, 2 or 4 bytes a character plus the header).

    A walk with a stack, each type classified once (`_kind_of`): this runs for every event and
    ledger entry a cache keeps (docs/decisions/0012-hot-reads-and-off-loop-replays.md: it was a quarter of the projector's catch-up). A
    container's strings are counted and its scalars skipped where it is opened; only nested
    containers go on the stack."""
    total = 0
    stack: list[Any] = [value]
    pop, push, kinds, skip, size = stack.pop, stack.append, _KINDS, _SKIP, sys.getsizeof
    while stack:
        item = pop()
        kind = kinds.get(type(item))
        if kind is None:
            kind = _kind_of(type(item))
        if kind == _MODEL:
            children: Iterable[Any] = item.__dict__.values()
        elif kind == _ITEMS:
            children = item
        elif kind == _MAP:
            push(list(item))
            children = item.values()
        elif kind == _STR:
            total += size(item)
            continue
        else:
            skip.add(type(item))  # nothing to count in this type: skip it where it is met
            continue
        for child in children:
            if type(child) is str:
                total += size(child)
            elif type(child) not in skip:
                push(child)
    return total


_NONE, _STR, _MODEL, _ITEMS, _MAP = range(5)
_KINDS: dict[type, int] = {}
"""Each type's kind, as `_kind_of` decided it (a type's kind never changes)."""
_SKIP: set[type] = set(_NO_TEXT)
"""Types with nothing to count: `_NO_TEXT` and every type `_kind_of` found to be so."""


def _kind_of(kind: type) -> int:
    """How `text_bytes` walks a value of type `kind`: str (not str enum members: those are
    shared singletons), a pydantic model, a sequence or set, a mapping, or nothing to count."""
    if kind is str:
        found = _STR
    elif kind in _NO_TEXT:
        found = _NONE
    elif issubclass(kind, BaseModel):
        found = _MODEL
    elif issubclass(kind, list | tuple | set | frozenset):
        found = _ITEMS
    elif issubclass(kind, dict):
        found = _MAP
    else:
        found = _NONE
    _KINDS[kind] = found
    return found


def state_bytes(state: GameState[Any]) -> int:
    """The estimated bytes of a folded game: `game_bytes` of its events plus `TEXT_FACTOR`
    times the strings' bytes of its events and ledger entries (`state_text`)."""
    return game_bytes(len(state.history)) + TEXT_FACTOR * state_text(state)


def state_text(state: GameState[Any]) -> int:
    """The bytes of the strings of a folded game's events and ledger entries (`text_bytes`).
    The sum is kept in the game's shared `Memo` (one slot: events and entries counted,
    bytes), so the next state of the game counts only what was added since."""
    items, n = state.history.buffer()
    entries, m = state.ledger.buffer()
    kept = state.cache.peek(_TEXT_KEY, (items, entries))
    if kept is MISS or kept[0] > n or kept[1] > m:
        kept = (0, 0, 0)  # a fork, or an older state than the one counted: count it all
    counted, noted, total = (int(x) for x in kept)
    total += sum(map(text_bytes, items[counted:n])) + sum(map(text_bytes, entries[noted:m]))
    state.cache.put(_TEXT_KEY, (items, entries), (n, m, total))
    return total


_NOTE = attrgetter("note")


def new_notes(state: GameState[Any], noted: int) -> tuple[int, int]:
    """The bytes (`sys.getsizeof`) of the notes of `state`'s ledger entries after the first
    `noted`, and how many entries it has: the counts of `view_bytes`-style estimates that
    count each ledger entry's note once (its other strings are the event's or the ruleset's
    constants, shared). A ledger shorter than `noted` (a void folded it again from a mark)
    has all its notes counted anew: an over-count, never an under-count."""
    entries, m = state.ledger.buffer()
    start = noted if noted <= m else 0
    return sum(map(sys.getsizeof, map(_NOTE, entries[start:m]))), m  # no frame per entry


class ByteLRU(Generic[K, V]):
    """An LRU map bounded by estimated bytes (`size_of(value)`) and by entries.

    Args:
        max_bytes: the bound of the sum of `size_of` over the entries (bytes, >= 1).
        size_of: the estimated bytes of one value (called on every put).
        max_items: also at most this many entries (None: bytes only).
    """

    def __init__(
        self, max_bytes: int, size_of: Callable[[V], int], max_items: int | None = None
    ) -> None:
        self.max_bytes = max_bytes
        self.max_items = max_items
        self._size_of = size_of
        # the LRU reads the size `put` just estimated, not a second `size_of` of the value
        # (a cell, not a bound method: no reference cycle through the LRU back to this map)
        size = self._size = [0]
        self._items: LRUCache[K, V] = LRUCache(maxsize=max_bytes, getsizeof=lambda _: size[0])
        self._big: tuple[K, V, int] | None = None  # the one entry larger than the bound

    def get(self, key: K) -> V | None:
        """The value of `key` (now the most recently used), or None."""
        if self._big is not None and self._big[0] == key:
            return self._big[1]
        return self._items.get(key)

    def put(self, key: K, value: V) -> None:
        """Keep `value` under `key`, evicting the least recently used entries past the bounds
        (a value larger than `max_bytes` evicts everything else)."""
        self._big = None
        size = self._size_of(value)
        if size > self.max_bytes:
            self._items.clear()
            self._big = (key, value, size)
            return
        self._size[0] = size
        self._items[key] = value
        while self.max_items is not None and len(self._items) > self.max_items:
            self._items.popitem()

    def pop(self, key: K, default: V | None = None) -> V | None:
        """Remove and return the value of `key` (`default` when it is not kept)."""
        if self._big is not None and self._big[0] == key:
            value, self._big = self._big[1], None
            return value
        return self._items.pop(key, default)

    def drop(self, key: K) -> None:
        """Forget `key` (nothing happens when it is not kept)."""
        self.pop(key)

    def __getitem__(self, key: K) -> V:
        """The value of `key`. Raises: KeyError (not kept)."""
        value = self.get(key)
        if value is None:
            raise KeyError(key)
        return value

    def __setitem__(self, key: K, value: V) -> None:
        """`put`: also re-estimates a value changed in place when put again."""
        self.put(key, value)

    def clear(self) -> None:
        """Forget every entry."""
        self._items.clear()
        self._big = None

    def __contains__(self, key: object) -> bool:
        return (self._big is not None and self._big[0] == key) or key in self._items

    def __len__(self) -> int:
        return len(self._items) + (self._big is not None)

    def kept_keys(self) -> list[K]:
        """The keys kept now, a copy (so a caller may drop some while going through them)."""
        return [*self._items.keys(), *([self._big[0]] if self._big is not None else [])]

    @property
    def bytes(self) -> int:
        """The estimated bytes of the entries kept (at most `max_bytes`, unless the one entry
        kept is larger by itself)."""
        return int(self._items.currsize) + (self._big[2] if self._big is not None else 0)
