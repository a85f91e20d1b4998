"""Change notices on Redis (`services.ports.notices.ChangeNotices`): `Keys.changes(shard)`
streams (fields `game`, `seq`), written by the projector's apply script. Redis's transient
faults are raised as `StoreUnavailable` (`unavailable`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from redis.exceptions import ResponseError

from services.adapters.redis.connect import RedisClient, is_cluster
from services.adapters.redis.fanout import xread_streams
from services.adapters.redis.keys import Keys, shard_of
from services.adapters.redis.unavailable import unavailable
from services.ports.notices import Notice


class RedisChangeNotices:
    """`client`: `redis.asyncio.Redis` without `decode_responses`."""

    def __init__(self, client: RedisClient, keys: Keys) -> None:
        self.client = client
        self.keys = keys

    async def tail(self, shard: int) -> str:
        """XREVRANGE COUNT 1 of the shard's stream (`0-0` when empty)."""
        with unavailable():
            last: Any = await self.client.xrevrange(self.keys.changes(shard), count=1)
        return last[0][0].decode() if last else "0-0"

    async def tails(self, shards: Sequence[int]) -> list[str]:
        """XREVRANGE COUNT 1 of each shard's stream: one pipeline (split per node)."""
        with unavailable():
            async with self.client.pipeline(transaction=False) as pipe:
                for shard in shards:
                    pipe.xrevrange(self.keys.changes(shard), count=1)
                lasts = await pipe.execute()
        return [last[0][0].decode() if last else "0-0" for last in lasts]

    async def read(
        self, after: Mapping[int, str], count: int = 500, block_ms: int | None = None
    ) -> Sequence[Notice]:
        """One XREAD over the shards in `after`."""
        streams = {self.keys.changes(s): pos for s, pos in after.items()}
        shard_of_stream = {self.keys.changes(s): s for s in after}
        reply: Any
        with unavailable():
            if is_cluster(self.client):  # one read per shard stream, fanned out per node
                reply = await xread_streams(
                    self.client, streams, block_ms=block_ms or 0, count=count
                )
            else:
                reply = await self.client.xread(streams, count=count, block=block_ms)  # type: ignore[arg-type]
        out: list[Notice] = []
        for stream, entries in reply or []:
            shard = shard_of_stream[stream.decode()]
            for eid, fields in entries:
                out.append(
                    Notice(shard, eid.decode(), fields[b"game"].decode(), int(fields[b"seq"]))
                )
        return out

    async def changed_since(
        self, game_id: str, after: str, limit: int | None = None
    ) -> Notice | None:
        """XRANGE (COUNT `limit`) of the game's shard after `after`, the game's newest notice.

        Raises:
            ValueError: `after` is not a stream id (Redis refused it).
        """
        shard = shard_of(game_id, self.keys.shards)
        try:
            with unavailable():
                entries: Any = await self.client.xrange(
                    self.keys.changes(shard), f"({after}", "+", count=limit
                )
        except ResponseError as error:
            raise ValueError(f"not a notice id: {after[:40]!r} ({error})") from error
        hits = [
            Notice(shard, eid.decode(), game_id, int(fields[b"seq"]))
            for eid, fields in entries
            if fields.get(b"game", b"").decode() == game_id
        ]
        return hits[-1] if hits else None
