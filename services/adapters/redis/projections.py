"""Redis reads of the query service: projections, checkpoints, the event log (via the store) and
the projector's lag. Read-only: nothing here writes.

Key layout: `services.keys.Keys` (projection HASH, shard checkpoint, shard feed).
Source: research/tech.md §3.4 (checkpoint = last applied feed id) and §3.9 (query service).
"""

from __future__ import annotations

import json
from collections import OrderedDict
from dataclasses import dataclass

import redis.asyncio as aioredis

from contracts.envelope import Envelope
from domain.standings import Standings
from services.adapters.redis.eventlog import EventStore
from services.keys import Keys, shard_of
from services.query.models import GameSummary
from services.query.views import standings_view

# Count the feed entries after the checkpoint, at most ARGV[1]: the lag, computed server-side
# so only a number crosses the wire. KEYS share the shard's hash tag (one Cluster slot).
_LAG_LUA = """
local ckpt = redis.call('GET', KEYS[2]) or '0-0'
return #redis.call('XRANGE', KEYS[1], '(' .. ckpt, '+', 'COUNT', tonumber(ARGV[1]))
"""


# The standings read in one command: the projection's standings JSON and updated_at, and the
# shard checkpoint (KEYS share the shard's hash tag).
_STANDINGS_LUA = """
return {redis.call('HGET', KEYS[1], 'standings'), redis.call('HGET', KEYS[1], 'updated_at'),
  redis.call('GET', KEYS[2])}
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

    def __init__(self, client: aioredis.Redis, keys: Keys, cache_games: int = 10_000) -> None:
        self.client = client
        self.keys = keys
        self.store = EventStore(client, keys)
        self.cache_games = cache_games
        self._lag = client.register_script(_LAG_LUA)
        self._standings = client.register_script(_STANDINGS_LUA)
        # game_id -> (stored standings JSON, its rendered body without checkpoint/updated_at)
        self._bodies: OrderedDict[str, tuple[bytes, bytes]] = OrderedDict()

    async def standings_body(self, game_id: str) -> bytes | None:
        """The `GET /games/{id}/standings` JSON body (`StandingsResponse`, source `projection`)
        of the game's projection, or None while there is none. One Redis command; the body is
        rendered once per stored standings value (kept for `cache_games` games) and the shard
        checkpoint and `updated_at` are appended as JSON, so a repeated read validates nothing.
        """
        key = self.keys.projection(game_id)
        ckpt_key = self.keys.checkpoint(shard_of(game_id, self.keys.shards))
        stored, updated_at, ckpt = await self._standings(keys=[key, ckpt_key])
        if not stored:
            return None
        cached = self._bodies.get(game_id)
        if cached is not None and cached[0] == stored:
            head = cached[1]
            self._bodies.move_to_end(game_id)
        else:
            view = standings_view(Standings.model_validate_json(stored), "projection")
            head = view.model_dump_json(exclude={"checkpoint", "updated_at"}).encode()
            self._bodies[game_id] = (stored, head)
            if len(self._bodies) > self.cache_games:
                self._bodies.popitem(last=False)
        tail = json.dumps(
            {
                "checkpoint": ckpt.decode() if ckpt is not None else None,
                "updated_at": updated_at.decode() if updated_at is not None else None,
            }
        ).encode()
        return head[:-1] + b"," + tail[1:]  # the two last fields of StandingsResponse

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
