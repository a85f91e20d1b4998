"""Redis reads of the query service: projections, checkpoints, the event log (via the store) and
the projector's lag. Read-only: nothing here writes.

Key layout: `services.keys.Keys` (projection HASH, shard checkpoint, shard feed).
Source: research/tech.md §3.4 (checkpoint = last applied feed id) and §3.9 (query service).
"""

from __future__ import annotations

from dataclasses import dataclass

import redis.asyncio as aioredis

from contracts.envelope import Envelope
from services.keys import Keys, shard_of
from services.query.models import GameSummary
from services.store import EventStore

# Count the feed entries after the checkpoint, at most ARGV[1]: the lag, computed server-side
# so only a number crosses the wire. KEYS share the shard's hash tag (one Cluster slot).
_LAG_LUA = """
local ckpt = redis.call('GET', KEYS[2]) or '0-0'
return #redis.call('XRANGE', KEYS[1], '(' .. ckpt, '+', 'COUNT', tonumber(ARGV[1]))
"""


class GameNotFound(LookupError):
    """No event was ever stored for the game id."""

    def __init__(self, game_id: str) -> None:
        super().__init__(f"no game {game_id!r}")
        self.game_id = game_id


@dataclass(frozen=True, slots=True)
class Projection:
    """The projector's HASH for one game (`Keys.projection`): seq, status, game, standings JSON."""

    seq: int
    status: str
    game: str
    standings_json: str
    updated_at: str | None


class QueryReader:
    """Reads for the query endpoints; `client`: `redis.asyncio.Redis` without `decode_responses`."""

    def __init__(self, client: aioredis.Redis, keys: Keys) -> None:
        self.client = client
        self.keys = keys
        self.store = EventStore(client, keys)
        self._lag = client.register_script(_LAG_LUA)

    async def projection(self, game_id: str) -> Projection | None:
        """The game's projection, or None while the projector has not written it."""
        raw = await self.client.hgetall(self.keys.projection(game_id))
        return _projection(raw) if raw else None

    async def checkpoint(self, game_id: str) -> str | None:
        """The projector checkpoint (last applied feed entry id) of the game's shard."""
        value = await self.client.get(self.keys.checkpoint(shard_of(game_id, self.keys.shards)))
        return value.decode() if value is not None else None

    async def version(self, game_id: str) -> int:
        """Events stored for the game (0 for an unknown game)."""
        return await self.store.version(game_id)

    async def require_version(self, game_id: str) -> int:
        """The game's version.

        Raises:
            GameNotFound: the game has no events.
        """
        version = await self.version(game_id)
        if version == 0:
            raise GameNotFound(game_id)
        return version

    async def events(
        self, game_id: str, from_seq: int = 1, to_seq: int | None = None
    ) -> list[Envelope]:
        """Events `from_seq..to_seq` (inclusive) of the game, upcast to current schemas."""
        return await self.store.read(game_id, from_seq, to_seq)

    async def games(self) -> list[GameSummary]:
        """Every stored game with its projection's status; live games first, then by update time."""
        ids = await self.store.list_games()
        async with self.client.pipeline(transaction=False) as pipe:
            for game_id in ids:
                pipe.hgetall(self.keys.projection(game_id))
                pipe.xlen(self.keys.game_stream(game_id))
            replies = await pipe.execute()
        summaries = []
        for i, game_id in enumerate(ids):
            proj = _projection(replies[2 * i]) if replies[2 * i] else None
            summaries.append(
                GameSummary(
                    game_id=game_id,
                    game=proj.game if proj else None,
                    status=proj.status if proj else "pending",  # type: ignore[arg-type]
                    seq=proj.seq if proj else 0,
                    version=int(replies[2 * i + 1]),
                    updated_at=proj.updated_at if proj else None,
                )
            )
        order = {"in_progress": 0, "pending": 1, "final": 2}
        summaries.sort(key=lambda g: g.updated_at or "", reverse=True)  # stable: then by status
        summaries.sort(key=lambda g: order[g.status])
        return summaries

    async def lag_events(self, cap: int) -> int:
        """Feed entries not yet applied by the projector, summed over shards; each shard's count
        stops at `cap + 1` (enough to tell "over the limit" without scanning a huge backlog)."""
        async with self.client.pipeline(transaction=False) as pipe:
            for shard in range(self.keys.shards):
                await self._lag(
                    keys=[self.keys.feed(shard), self.keys.checkpoint(shard)],
                    args=[cap + 1],
                    client=pipe,
                )
            counts = await pipe.execute()
        return sum(int(c) for c in counts)


def _projection(raw: dict[bytes, bytes]) -> Projection:
    fields = {k.decode(): v.decode() for k, v in raw.items()}
    return Projection(
        seq=int(fields.get("seq", 0)),
        status=fields.get("status", "in_progress"),
        game=fields.get("game", ""),
        standings_json=fields.get("standings", ""),
        updated_at=fields.get("updated_at"),
    )
