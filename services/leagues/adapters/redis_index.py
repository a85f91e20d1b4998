"""`LeagueIndex` on Redis: a SET of league ids per tournament,
`sl:tournament-leagues:{<tournament id>}` (in the tournament's slot). Ingest adds (SADD, on a
league's addition of the tournament); the query role reads (SMEMBERS)."""

from __future__ import annotations

from services.adapters.redis.connect import RedisClient
from services.adapters.redis.keys import Keys


class RedisLeagueIndex:
    """`LeagueIndex` on `client` under `keys`."""

    def __init__(self, client: RedisClient, keys: Keys) -> None:
        self.client = client
        self.keys = keys

    async def add(self, tournament_id: str, league_id: str) -> None:
        """See `LeagueIndex.add`."""
        await self.client.sadd(self.keys.tournament_leagues(tournament_id), league_id)

    async def leagues(self, tournament_id: str) -> list[str]:
        """See `LeagueIndex.leagues`."""
        members = await self.client.smembers(self.keys.tournament_leagues(tournament_id))
        return sorted(m.decode() if isinstance(m, bytes) else str(m) for m in members)
