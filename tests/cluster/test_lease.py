"""Shard leases and fencing on a single node and a cluster: one owner per shard; an owner paused
past its lease is fenced off; the fence only grows."""

from __future__ import annotations

import asyncio
import time

import pytest

from services.adapters.redis.connect import RedisClient
from services.adapters.redis.keys import Keys
from services.adapters.redis.lease import (
    LeaseLost,
    ShardLease,
    ShardLeases,
    fence_key,
    lease_key,
)
from tests.cluster.helpers import fenced_write

KEYS = Keys(16)


async def wait_expired(leases: ShardLeases, shard: int, timeout_s: float = 10.0) -> None:
    """Poll until the shard's lease is gone (its TTL ran out)."""
    deadline = time.monotonic() + timeout_s
    while await leases.holder(shard) is not None:
        assert time.monotonic() < deadline, "the lease never expired"
        await asyncio.sleep(0.02)


async def test_one_owner_per_shard_and_a_growing_fence(client: RedisClient) -> None:
    a, b = ShardLeases(client, KEYS, "a"), ShardLeases(client, KEYS, "b")
    first = await a.acquire(3)
    assert first == ShardLease(3, "a:1")
    assert await b.acquire(3) is None
    assert await a.acquire(3) == first  # re-acquire by the holder extends, same fence
    assert not await b.renew(ShardLease(3, "b:1"))
    assert not await b.release(ShardLease(3, "b:1"))
    assert await a.holder(3) == "a:1"
    assert await a.release(first)
    second = await b.acquire(3)
    assert second is not None
    assert second.fence == 2
    assert await b.renew(second)
    assert await client.pttl(lease_key(KEYS, 3)) > 0


async def test_a_paused_owner_past_its_ttl_is_fenced_off(client: RedisClient) -> None:
    a, b = ShardLeases(client, KEYS, "a", ttl_ms=800), ShardLeases(client, KEYS, "b", ttl_ms=800)
    lease_a = await a.acquire(5)
    assert lease_a is not None
    await fenced_write(client, lease_a, "from a")
    await wait_expired(a, 5)  # "a" pauses past its TTL
    lease_b = await b.acquire(5)
    assert lease_b is not None
    assert lease_b.fence == lease_a.fence + 1
    with pytest.raises(LeaseLost) as refused:
        await fenced_write(client, lease_a, "late write from a")  # "a" resumes
    assert refused.value.why == "lease"
    assert not await a.renew(lease_a)
    await fenced_write(client, lease_b, "from b")
    assert await client.get("sl:data:{s5}") == b"from b"


async def test_an_expired_lease_nobody_took_still_refuses_the_write(client: RedisClient) -> None:
    a = ShardLeases(client, KEYS, "a", ttl_ms=500)
    lease = await a.acquire(6)
    assert lease is not None
    await wait_expired(a, 6)
    with pytest.raises(LeaseLost):
        await fenced_write(client, lease, "x")
    assert await client.get("sl:data:{s6}") is None


async def test_a_token_of_an_older_fence_is_refused(client: RedisClient) -> None:
    """The fence check on its own: the lease says `a:1` but the shard has been acquired again
    since (e.g. a failover restored an old lease value)."""
    await client.set(lease_key(KEYS, 7), "a:1")
    await client.set(fence_key(KEYS, 7), "2")
    with pytest.raises(LeaseLost) as refused:
        await fenced_write(client, ShardLease(7, "a:1"), "x")
    assert refused.value.why == "fence"


def test_owner_ids_with_the_separator_are_refused() -> None:
    with pytest.raises(ValueError, match="owner"):
        ShardLeases(None, KEYS, "a:b")  # type: ignore[arg-type]


def test_lease_keys_share_the_shard_slot() -> None:
    from redis.crc import key_slot

    for shard in range(KEYS.shards):
        slots = {key_slot(k.encode()) for k in (lease_key(KEYS, shard), fence_key(KEYS, shard))}
        slots.add(key_slot(KEYS.checkpoint(shard).encode()))
        assert len(slots) == 1
