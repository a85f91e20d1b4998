"""A small seeded pseudo-random generator for the pure domain (SplitMix64).

The domain imports no `random` (it must not depend on the interpreter's generator or any global
state); seating draws come from this generator, so the same seed gives the same seating on
every machine and Python version. Source: Steele, Lea, Flood, "Fast splittable pseudorandom
number generators" (OOPSLA 2014), the SplitMix64 finaliser.
"""

from __future__ import annotations

import hashlib
from collections.abc import MutableSequence
from typing import TypeVar

T = TypeVar("T")
_MASK = (1 << 64) - 1


class SplitMix64:
    """Deterministic 64-bit generator; `seed` is any text or integer (hashed to 64 bits)."""

    def __init__(self, seed: str | int) -> None:
        digest = hashlib.sha256(str(seed).encode("utf-8")).digest()
        self._state = int.from_bytes(digest[:8], "big")

    def next_u64(self) -> int:
        """The next 64-bit unsigned integer."""
        self._state = (self._state + 0x9E3779B97F4A7C15) & _MASK
        z = self._state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in `0..n-1` (rejection sampling, no modulo bias).

        Raises:
            ValueError: `n < 1`.
        """
        if n < 1:
            raise ValueError(f"below({n}): n must be at least 1")
        limit = _MASK - (_MASK + 1) % n
        while True:
            value = self.next_u64()
            if value <= limit:
                return value % n

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Fisher-Yates shuffle of `items` in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]
