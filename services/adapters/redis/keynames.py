"""A game's key names kept for its next write: a write request built the same eight key
strings (a CRC-32 shard and an f-string each) for its lookup and its append every time
(docs/profiles/request-cost.md). Key names are a pure function of the game id and the
deployment's `Keys`, so a kept name is the name built again."""

from __future__ import annotations

from typing import Generic, TypeVar

V = TypeVar("V")

MAX_GAMES = 4096
"""Games whose names are kept (about 0.5 kB a game); past it all are dropped at once and the
next writes build theirs again."""


class KeyNames(Generic[V]):
    """Game id -> its key names (`V`, a tuple of str), at most `limit` games."""

    __slots__ = ("_kept", "limit")

    def __init__(self, limit: int = MAX_GAMES) -> None:
        self._kept: dict[str, V] = {}
        self.limit = limit

    def get(self, game_id: str) -> V | None:
        """The names kept for `game_id`, or None."""
        return self._kept.get(game_id)

    def put(self, game_id: str, names: V) -> V:
        """Keep `names` for `game_id` (all kept names dropped first when `limit` games are
        kept); returns `names`."""
        kept = self._kept
        if len(kept) >= self.limit:
            kept.clear()
        kept[game_id] = names
        return names
