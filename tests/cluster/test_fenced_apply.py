"""The projector's real apply script behind the lease guard (`FENCED_APPLY_LUA`), on a single
node and a cluster: `RedisProjections.hold_lease` appends the lease and fence keys to its KEYS
and the token to its ARGV. The holder's batch applies; a former owner's changes nothing and is
told so (`LeaseLost`)."""

from __future__ import annotations

from typing import Any

import pytest

from services.adapters.redis.connect import RedisClient
from services.adapters.redis.deadletters import RedisDeadLetters
from services.adapters.redis.eventlog import RedisEventLog
from services.adapters.redis.feed import feed_entries
from services.adapters.redis.keys import Keys, shard_of
from services.adapters.redis.lease import LeaseLost, ShardLeases, lease_key
from services.adapters.redis.projections import RedisProjections
from services.ports.eventlog import FeedEntry
from services.usecases.project import Project
from tests.pipeline.factory import game_log
from tests.pipeline.helpers import offline_standings, projected_standings

KEYS = Keys(16)


def projector(client: RedisClient) -> tuple[Project, RedisProjections]:
    """A project use case on Redis, with its projections adapter (to hold leases on)."""
    projections = RedisProjections(client, KEYS)
    letters = RedisDeadLetters(client, KEYS)  # type: ignore[arg-type]
    return Project(RedisEventLog(client, KEYS), projections, letters), projections


async def feed_batch(client: RedisClient, shard: int, after: str = "-") -> list[FeedEntry]:
    entries: Any = await client.xrange(KEYS.feed(shard), min=after)
    return feed_entries(entries, shard, KEYS.shards)[0]


async def test_holder_applies_and_a_former_owner_changes_nothing(client: RedisClient) -> None:
    game = "fenced-1"
    shard = shard_of(game, KEYS.shards)
    events = game_log(game, 20, seed=3)
    log = RedisEventLog(client, KEYS)
    await log.append(game, events[:10])
    old = await ShardLeases(client, KEYS, "old", ttl_ms=60_000).acquire(shard)
    assert old is not None
    former, former_projections = projector(client)
    former_projections.hold_lease(old)
    await former.apply(shard, await feed_batch(client, shard))
    assert await projected_standings(client, KEYS, game) == offline_standings(events[:10])  # type: ignore[arg-type]
    checkpoint = await client.get(KEYS.checkpoint(shard))

    await client.delete(lease_key(KEYS, shard))  # "old" paused past its lease
    new = await ShardLeases(client, KEYS, "new", ttl_ms=60_000).acquire(shard)
    assert new is not None
    assert new.fence > old.fence
    await log.append(game, events[10:])
    with pytest.raises(LeaseLost) as refused:
        await former.apply(shard, await feed_batch(client, shard))
    assert refused.value.why == "lease"
    assert await client.get(KEYS.checkpoint(shard)) == checkpoint
    assert await client.hget(KEYS.projection(game), "seq") == b"10"

    successor, successor_projections = projector(client)
    successor_projections.hold_lease(new)
    assert (await successor.apply(shard, await feed_batch(client, shard))).events == 10
    assert await projected_standings(client, KEYS, game) == offline_standings(events)  # type: ignore[arg-type]
