"""Shard leases and projector membership in memory (`ports.leases.ShardLeases`) on a
`MemoryBackend`, with the Redis adapter's behaviour: a token `<owner>:<fence>` per acquisition,
the fence counting acquisitions per shard; a lease and a membership lapse `ttl_ms` after their
last renewal (`time.monotonic`); renew and release only by the holder of exactly that token.
Several owners on one backend stand for several projector processes (tests)."""

from __future__ import annotations

import time

from services.adapters.memory.store import MemoryBackend
from services.ports.leases import ShardLease


class MemoryShardLeases:
    """One owner's leases on `backend`. Raises ValueError: `owner` empty or with `:`,
    `ttl_ms` under 100."""

    def __init__(self, backend: MemoryBackend, owner: str, ttl_ms: int = 10_000) -> None:
        if not owner or ":" in owner:
            raise ValueError(f"owner: {owner!r} must be non-empty and without ':'")
        if ttl_ms < 100:
            raise ValueError(f"ttl_ms: {ttl_ms} is under 100 ms")
        self.b, self.owner, self.ttl_ms = backend, owner, ttl_ms
        self.shards = backend.shards

    def _until(self) -> float:
        return time.monotonic() + self.ttl_ms / 1000

    async def acquire(self, shard: int) -> ShardLease | None:
        current = self.b.lease_token(shard)
        if current is not None:
            if not current.startswith(f"{self.owner}:"):
                return None
            token = current
        else:
            fence = self.b.fences[shard] = self.b.fences.get(shard, 0) + 1
            token = f"{self.owner}:{fence}"
        self.b.leases[shard] = (token, self._until())
        return ShardLease(shard, token)

    async def renew(self, lease: ShardLease) -> bool:
        if self.b.lease_token(lease.shard) != lease.token:
            return False
        self.b.leases[lease.shard] = (lease.token, self._until())
        return True

    async def release(self, lease: ShardLease) -> bool:
        if self.b.lease_token(lease.shard) != lease.token:
            return False
        del self.b.leases[lease.shard]
        return True

    async def holder(self, shard: int) -> str | None:
        return self.b.lease_token(shard)

    async def members(self) -> list[str]:
        now = time.monotonic()
        for owner in [o for o, until in self.b.members.items() if until <= now]:
            del self.b.members[owner]
        self.b.members[self.owner] = self._until()
        return sorted(self.b.members)

    async def leave(self) -> None:
        self.b.members.pop(self.owner, None)
