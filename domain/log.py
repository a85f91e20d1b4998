"""`Log`: an immutable view of the first `n` items of an append-only list, shared without copying.

The fold's ledger and history only ever grow, so a snapshot of them is a (list, length) pair: the
items a snapshot sees are never changed later (writers append past its end, or copy first when
the list has already grown past their own length, see `own`). That makes handing out a frozen
state O(1) instead of O(n) per event. Source: docs/decisions/0012-hot-reads-and-off-loop-replays.md (a fold whose cost per event does not
grow with the game).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import islice
from typing import Generic, TypeVar, overload

T = TypeVar("T")


class Log(Sequence[T], Generic[T]):
    """Read-only view of `items[:n]`; equal to any sequence with the same items in order.

    Slicing returns a tuple; indexes past `n` raise IndexError like a tuple's would.
    """

    __slots__ = ("_items", "_n")

    def __init__(self, items: list[T] | None = None, n: int | None = None) -> None:
        self._items: list[T] = [] if items is None else items
        self._n = len(self._items) if n is None else n

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, index: int) -> T: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[T, ...]: ...
    def __getitem__(self, index: int | slice) -> T | tuple[T, ...]:
        if isinstance(index, slice):
            start, stop, step = index.indices(self._n)
            if step > 0:
                return tuple(self._items[start:stop:step])
            return tuple(self._items[i] for i in range(start, stop, step))
        if index < 0:
            index += self._n
        if not 0 <= index < self._n:
            raise IndexError("Log index out of range")
        return self._items[index]

    def __iter__(self) -> Iterator[T]:
        if self._n == len(self._items):
            return iter(self._items[: self._n])  # a copy of references: safe if a writer appends
        return islice(self._items, self._n)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(other) == self._n and all(a == b for a, b in zip(self, other, strict=True))

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"Log({list(self)!r})"

    def buffer(self) -> tuple[list[T], int]:
        """The shared list and this view's length (for a writer that continues it, see `own`)."""
        return self._items, self._n


def own(items: list[T], n: int) -> list[T]:
    """A list a writer at length `n` may append to: `items` itself while nobody has appended past
    `n` (the usual case, O(1)), else a copy of its first `n` items (a fork, O(n))."""
    return items if len(items) == n else items[:n]
