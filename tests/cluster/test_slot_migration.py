"""A shard's slot migrated to another primary while events are appended to its games: every
append is acknowledged once and stored once, in order; the client follows ASK / TRYAGAIN / MOVED
without a restart."""

from __future__ import annotations

import asyncio
import time

from redis.crc import key_slot

from services.adapters.redis.connect import GatedRedisCluster, connect
from services.adapters.redis.eventlog import RedisEventLog as EventStore
from services.adapters.redis.keys import Keys
from tests.pipeline.factory import game_log
from tests.redis_cluster import LocalCluster

KEYS = Keys(16)


async def test_appends_during_a_slot_migration_are_all_stored_once(
    own_cluster: LocalCluster,
) -> None:
    games = [g for g in (f"mig-{i}" for i in range(500)) if KEYS.tag(g) == "{s0}"][:5]
    logs = {g: game_log(g, 40, seed=i) for i, g in enumerate(games)}
    slot = key_slot(KEYS.feed(0).encode())
    client = connect(own_cluster.url, retries=20)
    assert isinstance(client, GatedRedisCluster)
    try:
        store = EventStore(client, KEYS)  # type: ignore[arg-type]
        await client.ping()
        source = client.get_node_from_key(KEYS.feed(0))
        assert source is not None
        target = next(p for p in own_cluster.primaries() if p != int(source.port))
        acked = 0
        for seq in range(10):  # some data in the slot before the move
            for game in games:
                await store.append(game, [logs[game][seq]])
                acked += 1
        moving = asyncio.create_task(
            asyncio.to_thread(own_cluster.migrate_slot, slot, target, 0.03)
        )
        during, slowest = 0, 0.0  # appends acknowledged while the slot was moving
        for seq in range(10, 40):
            for game in games:
                started = time.monotonic()
                result = await store.append(game, [logs[game][seq]])
                slowest = max(slowest, time.monotonic() - started)
                assert not result.events[0].duplicate
                acked += 1
                during += not moving.done()
            await asyncio.sleep(0.01)  # spread the appends over the migration
        await moving
        print(f"appends during the migration: {during} of {acked}; slowest {slowest:.3f} s")
        assert during > 0
        await client.ping()
        assert acked == 200
        assert await client.xlen(KEYS.feed(0)) == 200
        for game in games:
            assert [e.event_id for e in await store.read(game)] == [e.event_id for e in logs[game]]
        moved_to = client.get_node_from_key(KEYS.feed(0))
        assert moved_to is not None
        assert int(moved_to.port) == target
    finally:
        await client.aclose()
