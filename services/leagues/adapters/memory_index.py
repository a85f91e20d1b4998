"""`LeagueIndex` in memory (tests, the simulator)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class MemoryLeagueIndex:
    """Tournament id -> the set of league ids holding it."""

    held: dict[str, set[str]] = field(default_factory=dict)

    async def add(self, tournament_id: str, league_id: str) -> None:
        """See `LeagueIndex.add`."""
        self.held.setdefault(tournament_id, set()).add(league_id)

    async def leagues(self, tournament_id: str) -> list[str]:
        """See `LeagueIndex.leagues`."""
        return sorted(self.held.get(tournament_id, ()))
