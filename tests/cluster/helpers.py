"""Helpers of the cluster suite."""

from __future__ import annotations

from redis.exceptions import ResponseError

from services.adapters.redis.connect import RedisClient
from services.adapters.redis.keys import Keys
from services.adapters.redis.lease import (
    ShardLease,
    fence_key,
    fenced_script,
    lease_key,
    raise_if_fenced,
)

KEYS = Keys(16)

# A projection-style write: KEYS 1 data (shard slot), 2 lease, 3 fence; ARGV 1 token, 2 value.
WRITE_LUA = fenced_script(
    "redis.call('SET', KEYS[1], ARGV[2])\nreturn 1", "KEYS[2]", "KEYS[3]", "ARGV[1]"
)


async def fenced_write(client: RedisClient, lease: ShardLease, value: str) -> None:
    """SET the shard's data key through the fenced script; LeaseLost when refused."""
    script = client.register_script(WRITE_LUA)
    data = f"sl:data:{KEYS.shard_tag(lease.shard)}"
    try:
        await script(
            keys=[data, lease_key(KEYS, lease.shard), fence_key(KEYS, lease.shard)],
            args=[lease.token, value],
        )
    except ResponseError as error:
        raise_if_fenced(error, lease.shard)
        raise
