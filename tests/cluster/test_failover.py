"""A cluster primary killed mid-use: its replica is promoted and the same client (no restart)
goes on reading, renewing leases and writing through the fence."""

from __future__ import annotations

import asyncio
import time

import redis

from services.adapters.redis.connect import GatedRedisCluster, connect
from services.adapters.redis.keys import Keys
from services.adapters.redis.lease import ShardLeases
from tests.cluster.helpers import fenced_write
from tests.redis_cluster import LocalCluster

KEYS = Keys(16)


def wait_replicas_caught_up(cluster: LocalCluster, timeout_s: float = 10.0) -> None:
    """Poll every primary until each replica's acknowledged offset equals the primary's, so a
    failover loses nothing written before (replication is asynchronous)."""
    deadline = time.monotonic() + timeout_s
    for port in cluster.primaries():
        client = redis.Redis(port=port, decode_responses=True)
        try:
            while True:
                info = client.info("replication")
                offsets = [v["offset"] for k, v in info.items() if k.startswith("slave")]
                if offsets and all(o == info["master_repl_offset"] for o in offsets):
                    break
                assert time.monotonic() < deadline, f"replicas of {port} behind: {info}"
                time.sleep(0.05)
        finally:
            client.close()


async def test_primary_killed_replica_promoted_client_recovers(ha_cluster: LocalCluster) -> None:
    client = connect(ha_cluster.url, retries=40)
    assert isinstance(client, GatedRedisCluster)
    try:
        leases = ShardLeases(client, KEYS, "p1", ttl_ms=60_000)
        held = {}
        for shard in range(KEYS.shards):
            await client.set(KEYS.checkpoint(shard), f"{shard}-0")
            lease = await leases.acquire(shard)
            assert lease is not None
            held[shard] = lease
        wait_replicas_caught_up(ha_cluster)
        victim = client.get_node_from_key(KEYS.checkpoint(0))
        assert victim is not None
        before = ha_cluster.primaries()
        ha_cluster.kill(int(victim.port))

        # sent while the primary is dead and before the promotion: retried with backoff
        assert await client.get(KEYS.checkpoint(0)) == b"0-0"
        after = ha_cluster.primaries()
        assert int(victim.port) not in after
        assert len(after) == 3
        assert set(after) != set(before)
        for shard, lease in held.items():
            assert await client.get(KEYS.checkpoint(shard)) == f"{shard}-0".encode()
            assert await leases.renew(lease)
            await fenced_write(client, lease, "after failover")
        await asyncio.sleep(0)
    finally:
        await client.aclose()
