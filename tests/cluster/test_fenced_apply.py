"""The projector's real apply script behind the lease guard (`fenced_script`), on a single node
and a cluster: the lease and fence keys appended to its KEYS and the token to its ARGV, so the
script body keeps its indexes. The holder's batch applies; a former owner's changes nothing."""

from __future__ import annotations

from typing import Any

from redis.exceptions import ResponseError
from services.projector.projector import Projector
from services.projector.scripts import APPLY_LUA
from services.store import EventStore

from services.adapters.redis.connect import RedisClient
from services.adapters.redis.lease import (
    ShardLease,
    ShardLeases,
    fence_key,
    fenced_script,
    lease_key,
)
from services.keys import Keys, shard_of
from tests.pipeline.factory import game_log
from tests.pipeline.helpers import offline_standings, projected_standings

KEYS = Keys(16)
FENCED_APPLY_LUA = fenced_script(APPLY_LUA, "KEYS[#KEYS - 1]", "KEYS[#KEYS]", "ARGV[#ARGV]")


def fence_projector(projector: Projector, client: RedisClient, lease: ShardLease) -> list[str]:
    """Route the projector's apply calls through the fenced script with `lease`'s token; the
    returned list collects the error replies."""
    script = client.register_script(FENCED_APPLY_LUA)
    errors: list[str] = []

    async def apply(keys: list[str], args: list[Any]) -> Any:
        guard = [lease_key(KEYS, lease.shard), fence_key(KEYS, lease.shard)]
        try:
            return await script(keys=[*keys, *guard], args=[*args, lease.token])
        except ResponseError as error:
            errors.append(str(error))
            raise

    projector._apply = apply  # type: ignore[assignment]
    return errors


async def feed_batch(client: RedisClient, shard: int, after: str = "-") -> tuple[list[str], Any]:
    entries: Any = await client.xrange(KEYS.feed(shard), min=after)
    return [i.decode() for i, _ in entries], [fields for _, fields in entries]


async def test_holder_applies_and_a_former_owner_changes_nothing(client: RedisClient) -> None:
    game = "fenced-1"
    shard = shard_of(game, KEYS.shards)
    events = game_log(game, 20, seed=3)
    store = EventStore(client, KEYS)  # type: ignore[arg-type]
    await store.append(game, events[:10])
    old = await ShardLeases(client, KEYS, "old", ttl_ms=60_000).acquire(shard)
    assert old is not None
    projector = Projector(client, KEYS)  # type: ignore[arg-type]
    refused = fence_projector(projector, client, old)
    await projector.handle(shard, *await feed_batch(client, shard))
    assert await projected_standings(client, KEYS, game) == offline_standings(events[:10])  # type: ignore[arg-type]
    checkpoint = await client.get(KEYS.checkpoint(shard))

    await client.delete(lease_key(KEYS, shard))  # "old" paused past its lease
    new = await ShardLeases(client, KEYS, "new", ttl_ms=60_000).acquire(shard)
    assert new is not None
    await store.append(game, events[10:])
    ids, entries = await feed_batch(client, shard, after=f"({checkpoint.decode()}")  # type: ignore[union-attr]
    await projector.handle(shard, ids, entries)  # refused: FENCED, logged, nothing written
    assert refused == ["FENCED lease"]
    assert await client.get(KEYS.checkpoint(shard)) == checkpoint
    assert await client.hget(KEYS.projection(game), "seq") == b"10"

    successor = Projector(client, KEYS)  # type: ignore[arg-type]
    successor_errors = fence_projector(successor, client, new)
    await successor.handle(shard, *await feed_batch(client, shard, after=f"({checkpoint.decode()}"))  # type: ignore[union-attr]
    assert successor_errors == []
    assert await projected_standings(client, KEYS, game) == offline_standings(events)  # type: ignore[arg-type]
