"""`Memo`: derived values of one game's immutable state, recomputed only when an input changed.

A game's state is a chain of frozen values where an event replaces only what it touches (one
player's book or tableau), so "if the game ended now", a player's details or a standings line
can be kept from the last call while their inputs are the very same objects. One slot per key
(the latest inputs and value), so a memo holds at most one entry per player and part: it is
shared by every state of one game (a `compare=False` field copied along by `values.replace`)
and never grows with the game's length. A miss just recomputes: the result is the same either
way (pure functions of immutable inputs). Source: docs/decisions/0012-hot-reads-and-off-loop-replays.md (standings kept incrementally).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from operator import is_
from typing import Any, TypeVar

V = TypeVar("V")
MISS: Any = object()
"""What `Memo.peek` answers when the inputs are not the kept ones."""


class Memo:
    """Key -> (inputs, value); `get` answers the kept value while the inputs are the same.

    `same` inputs are compared by identity (immutable objects: a replaced book is a new object),
    `equal` inputs by `==` (small values such as totals and ranks). Values handed out are
    shared: callers must not change them.
    """

    __slots__ = ("_slots",)

    def __init__(self) -> None:
        self._slots: dict[Hashable, tuple[tuple[Any, ...], tuple[Any, ...], Any]] = {}

    def get(
        self,
        key: Hashable,
        same: tuple[Any, ...],
        compute: Callable[[], V],
        equal: tuple[Any, ...] = (),
    ) -> V:
        """The value of `compute()` for these inputs, computed at most once while they last."""
        hit = self._slots.get(key)  # `peek` inlined: several lookups an event on the hot path
        if hit is not None and hit[1] == equal:
            kept = hit[0]
            if len(kept) == len(same) and all(map(is_, kept, same)):
                return hit[2]  # type: ignore[no-any-return]
        value = compute()
        self._slots[key] = (same, equal, value)
        return value

    def peek(self, key: Hashable, same: tuple[Any, ...], equal: tuple[Any, ...] = ()) -> Any:
        """The kept value for these inputs, or `MISS`."""
        hit = self._slots.get(key)
        if hit is not None and hit[1] == equal:
            kept = hit[0]
            if len(kept) == len(same) and all(map(is_, kept, same)):
                return hit[2]
        return MISS

    def latest(self, key: Hashable) -> tuple[tuple[Any, ...], Any] | None:
        """The key's kept inputs (`same`) and value whatever they were, None if none kept (for a
        value computed from an earlier one, e.g. only the parts whose inputs changed)."""
        hit = self._slots.get(key)
        return None if hit is None else (hit[0], hit[2])

    def put(
        self, key: Hashable, same: tuple[Any, ...], value: object, equal: tuple[Any, ...] = ()
    ) -> None:
        """Keep `value` for these inputs (replacing the key's slot)."""
        self._slots[key] = (same, equal, value)

    def __len__(self) -> int:
        return len(self._slots)

    def __repr__(self) -> str:
        return f"Memo({len(self._slots)} slots)"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Memo)  # derived data: never part of a state's value

    def __hash__(self) -> int:
        return 0
