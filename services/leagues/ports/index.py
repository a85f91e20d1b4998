"""The league-index port: which leagues hold a tournament, kept when a league adds one (so a
tournament's pages name its leagues without reading every league). Entries are only added: a
league never removes a tournament it added.
"""

from __future__ import annotations

from typing import Protocol


class LeagueIndex(Protocol):
    """Tournament id -> the ids of the leagues that added it.
    Implementations: `adapters.memory_index`, `adapters.redis_index`."""

    async def add(self, tournament_id: str, league_id: str) -> None:
        """Record that `league_id` holds `tournament_id` (idempotent)."""
        ...

    async def leagues(self, tournament_id: str) -> list[str]:
        """The ids of the leagues holding `tournament_id`, sorted; [] for none."""
        ...
