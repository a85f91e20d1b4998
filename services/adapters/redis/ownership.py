"""Projector membership on Redis (`ShardLeases.members` / `leave`): ZSET `sl:projectors`,
member = owner id, score = expiry (Redis server time, ms). A heartbeat re-adds the owner with
`now + ttl_ms` and drops expired members, in one script. The assignment and the lease loop on
top of it: `services.usecases.ownership`.
"""

from __future__ import annotations

from services.adapters.redis.connect import RedisClient
from services.adapters.redis.keys import PREFIX
from services.adapters.redis.unavailable import unavailable

MEMBERS_KEY = f"{PREFIX}:projectors"

_HEARTBEAT_LUA = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if ARGV[1] ~= '' then redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1]) end
return redis.call('ZRANGE', KEYS[1], 0, -1)
"""


class Membership:
    """The live projectors in `MEMBERS_KEY` on `client`."""

    def __init__(self, client: RedisClient) -> None:
        self.client = client
        self._heartbeat = client.register_script(_HEARTBEAT_LUA)

    async def heartbeat(self, owner: str, ttl_ms: int) -> list[str]:
        """Register `owner` for `ttl_ms` more, drop the expired members; the live ones.
        Raises: StoreUnavailable."""
        with unavailable():
            raw = await self._heartbeat(keys=[MEMBERS_KEY], args=[owner, ttl_ms])
        return [m.decode() for m in raw]

    async def leave(self, owner: str) -> None:
        """Remove `owner` now. Raises: StoreUnavailable."""
        with unavailable():
            await self.client.zrem(MEMBERS_KEY, owner)
