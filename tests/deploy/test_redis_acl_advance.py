"""The projector's checkpoint-only write of a batch the appends projected
(`Projections.advance`, docs/profiles/projector-round-trips.md) under the projector's Redis
user (docs/operating/security.md): the fenced advance script loads and runs, reads the heads,
moves the checkpoint, folds nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import redis.asyncio as aioredis

from services.adapters.redis.feed import feed_entries
from services.adapters.redis.lease import ShardLease, ShardLeases
from services.adapters.redis.projections import RedisProjections
from services.bootstrap import redis_ports
from services.usecases.ownership import ShardOwnership
from services.usecases.project import Project
from tests.deploy.test_redis_acl import KEYS, SHARD, _append


async def _held(lease: ShardLease) -> None:
    return None


async def _dropped(shard: int) -> None:
    return None


async def test_the_projector_advances_a_live_batch_under_its_user(
    role: Callable[[str], aioredis.Redis],
) -> None:
    await _append(role("ingest"), live=True)
    client = role("projector")
    ports = redis_ports(client, KEYS)
    projections = ports.projections
    assert isinstance(projections, RedisProjections)
    await projections.prepare()  # loads the fenced advance script too
    ownership = ShardOwnership(ShardLeases(client, KEYS, "acl-p2", 5000), _held, _dropped)
    await ownership.tick()
    projections.hold_lease(ownership.owned[SHARD])
    feed: Any = await client.xread({KEYS.feed(SHARD): "0-0"}, count=10)
    entries, malformed = feed_entries(feed[0][1], SHARD, KEYS.shards)
    assert entries
    assert all(e.live for e in entries)
    applied = await Project(ports.log, projections, ports.letters).apply(SHARD, entries, malformed)
    assert (applied.events, applied.last_feed_id) == (0, entries[-1].feed_id)
    assert await client.get(KEYS.checkpoint(SHARD)) == entries[-1].feed_id.encode()
    await ownership.stop()
