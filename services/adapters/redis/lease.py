"""Shard leases with fencing tokens: one projector owns a shard at a time, and a former owner
(paused, partitioned) cannot write after losing it.

Keys, all in the shard's slot `{sK}` so a projection script can check them atomically:

* `sl:lease:{sK}` STRING `<owner>:<fence>`, `PX ttl_ms`: the owner's lease. Acquired with
  `SET ... NX PX` semantics (in Lua, so the fence is taken in the same step), renewed and
  released by compare-and-set Lua (only the holder of exactly that token may).
* `sl:fence:{sK}` STRING: the fencing counter, `INCR` on every acquisition (monotonic per
  shard). The token carries it; `FENCE_CHECK_LUA` refuses a write whose token is not the
  current lease or whose fence is not the newest.

A write script includes the check (see `fenced_script`): KEYS `lease_key`, `fence_key` and ARGV
token; it answers `FENCED ...` (raised as `LeaseLost` by `raise_if_fenced`) and writes nothing.
Source: docs/decisions/0005-leases-with-fencing.md (leases, fencing); Kleppmann, "How to do distributed locking".
"""

from __future__ import annotations

from redis.exceptions import ResponseError

from services.adapters.redis.connect import RedisClient
from services.adapters.redis.keys import PREFIX, Keys
from services.adapters.redis.ownership import Membership
from services.adapters.redis.unavailable import unavailable
from services.ports.errors import LeaseLost
from services.ports.leases import ShardLease

__all__ = ["LeaseLost", "ShardLease", "ShardLeases", "fence_key", "fenced_script", "lease_key"]


def lease_key(keys: Keys, shard: int) -> str:
    """The shard's lease STRING (`<owner>:<fence>`, with a TTL)."""
    return f"{PREFIX}:lease:{keys.shard_tag(shard)}"


def fence_key(keys: Keys, shard: int) -> str:
    """The shard's fencing counter (INCR on every acquisition; never decreases)."""
    return f"{PREFIX}:fence:{keys.shard_tag(shard)}"


FENCE_CHECK_LUA = """
local function lease_fenced_off(lease_key, fence_key, token)
  if redis.call('GET', lease_key) ~= token then return 'lease' end
  local fence = string.match(token, ':(%d+)$')
  if fence == nil or redis.call('GET', fence_key) ~= fence then return 'fence' end
  return false
end
"""
"""Lua function `lease_fenced_off(lease_key, fence_key, token)`: false when `token` holds the
lease with the newest fence; else why not (`'lease'`: expired or taken over; `'fence'`: an
older fence). Include it at the top of a script with `fenced_script`."""

FENCED_PREFIX = "FENCED"


def fenced_script(body: str, lease_key_ref: str, fence_key_ref: str, token_ref: str) -> str:
    """A Lua script that runs `body` only while the caller holds the lease: `FENCE_CHECK_LUA`,
    then a guard answering `FENCED <why>` (nothing written) when the check fails.

    Args:
        body: the script's own Lua.
        lease_key_ref / fence_key_ref / token_ref: Lua expressions for the lease key, the fence
            key and the token, e.g. `"KEYS[3]"`, `"KEYS[4]"`, `"ARGV[5]"`.

    For the projection apply script: add `lease_key(keys, shard)` and `fence_key(keys, shard)`
    to its KEYS (same `{sK}` slot as the checkpoint) and the `ShardLease.token` to its ARGV.
    """
    guard = (
        f"local fenced_why = lease_fenced_off({lease_key_ref}, {fence_key_ref}, {token_ref})\n"
        f"if fenced_why then return redis.error_reply('{FENCED_PREFIX} ' .. fenced_why) end\n"
    )
    return FENCE_CHECK_LUA + guard + body


def raise_if_fenced(error: ResponseError, shard: int) -> None:
    """Raise `LeaseLost` when `error` is a `FENCED` reply of a fenced script; else return."""
    text = str(error)
    if text.startswith(FENCED_PREFIX):
        raise LeaseLost(shard, text.removeprefix(FENCED_PREFIX).strip()) from None


_ACQUIRE_LUA = """
local cur = redis.call('GET', KEYS[1])
if cur then
  if string.sub(cur, 1, #ARGV[1] + 1) == ARGV[1] .. ':' then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    return cur
  end
  return false
end
local fence = redis.call('INCR', KEYS[2])
local token = ARGV[1] .. ':' .. fence
redis.call('SET', KEYS[1], token, 'PX', ARGV[2])
return token
"""

_RENEW_LUA = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""

_RELEASE_LUA = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class ShardLeases:
    """`ports.leases.ShardLeases` on Redis: acquire, renew and release shard leases for one
    owner (a projector process), and its membership (`ownership.Membership`). Every call
    raises `StoreUnavailable` for Redis's transient faults.

    Args:
        client: the process's client (`connect`); single node or cluster.
        keys: the deployment's key layout.
        owner: this process's id, unique among live projectors; no `:`.
        ttl_ms: lease time: a silent owner loses the shard this long after its last renewal.
    """

    def __init__(self, client: RedisClient, keys: Keys, owner: str, ttl_ms: int = 10_000) -> None:
        if not owner or ":" in owner:
            raise ValueError(f"owner: {owner!r} must be non-empty and without ':'")
        if ttl_ms < 100:
            raise ValueError(f"ttl_ms: {ttl_ms} is under 100 ms")
        self.client, self.keys, self.owner, self.ttl_ms = client, keys, owner, ttl_ms
        self.shards = keys.shards
        self._members = Membership(client)
        self._acquire = client.register_script(_ACQUIRE_LUA)
        self._renew = client.register_script(_RENEW_LUA)
        self._release = client.register_script(_RELEASE_LUA)

    def _keys(self, shard: int) -> list[str]:
        return [lease_key(self.keys, shard), fence_key(self.keys, shard)]

    async def acquire(self, shard: int) -> ShardLease | None:
        """Take the shard's lease if nobody holds it (a new fence), or extend it if this owner
        already does (same token); None while another owner holds it."""
        with unavailable():
            token = await self._acquire(keys=self._keys(shard), args=[self.owner, self.ttl_ms])
        return ShardLease(shard, token.decode()) if token else None

    async def renew(self, lease: ShardLease) -> bool:
        """Extend the lease by `ttl_ms` if `lease.token` still holds it (compare-and-set)."""
        keys = self._keys(lease.shard)[:1]
        with unavailable():
            return bool(await self._renew(keys=keys, args=[lease.token, self.ttl_ms]))

    async def release(self, lease: ShardLease) -> bool:
        """Give the lease up now (compare-and-delete), so the next owner need not wait."""
        with unavailable():
            return bool(await self._release(keys=self._keys(lease.shard)[:1], args=[lease.token]))

    async def holder(self, shard: int) -> str | None:
        """The token holding the shard's lease now, or None."""
        with unavailable():
            value = await self.client.get(lease_key(self.keys, shard))
        return value.decode() if isinstance(value, bytes) else value

    async def members(self) -> list[str]:
        """The live owners, this one included (registers it for `ttl_ms` more)."""
        return await self._members.heartbeat(self.owner, self.ttl_ms)

    async def leave(self) -> None:
        """Remove this owner from the live owners now."""
        await self._members.leave(self.owner)
