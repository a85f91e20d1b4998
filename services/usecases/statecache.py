"""The ingest's cache of folded games (the domain-checked append plans new events on it).

`StateCache`: LRU map game_id -> `Known` (a folded state and its event ids), bounded by games
and by estimated bytes (`sizedcache.state_bytes`). Source: docs/decisions/0011-faults-are-answered-not-crashed.md (caches bounded by size);
split out of services/usecases/check.py (docs/decisions/0012-hot-reads-and-off-loop-replays.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

from domain.fold import GameState
from services.runtime.sizedcache import ByteLRU, state_bytes

DEFAULT_CACHE_BYTES = 256 * 1024 * 1024
"""The state cache's default bound (the `state_cache_bytes` setting)."""


@dataclass(slots=True)
class Known:
    """A folded game and its event ids (`event_id -> seq`, every event of `state.history`)."""

    state: GameState
    ids: dict[UUID, int]

    @classmethod
    def of(cls, state: GameState) -> Known:
        return cls(state, {e.event_id: e.seq for e in state.history})


class StateCache:
    """LRU map game_id -> `Known` (folded state and event ids): at most `capacity` games and
    `max_bytes` estimated bytes (`sizedcache.state_bytes` of each game)."""

    def __init__(self, capacity: int, max_bytes: int = DEFAULT_CACHE_BYTES) -> None:
        self.capacity = capacity
        self._games: ByteLRU[str, Known] = ByteLRU(
            max_bytes, lambda known: state_bytes(known.state), capacity
        )

    def get(self, game_id: str) -> Known | None:
        return self._games.get(game_id)

    def put(self, known: Known) -> None:
        self._games.put(known.state.game_id, known)

    def drop(self, game_id: str) -> None:
        self._games.drop(game_id)

    def clear(self) -> None:
        """Forget every game."""
        self._games.clear()

    def __len__(self) -> int:
        return len(self._games)

    @property
    def bytes(self) -> int:
        """Estimated bytes kept (at most `max_bytes`)."""
        return self._games.bytes
