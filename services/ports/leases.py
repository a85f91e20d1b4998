"""The shard-lease port: one projector owns a shard at a time, and a former owner (paused,
partitioned) cannot write after losing it.

A lease is taken with a fencing token `<owner>:<fence>`, the fence growing with every new
owner of the shard; it lapses `ttl_ms` after its last renewal. The projections a projector
writes are fenced by the token it holds (`FencedProjections.hold_lease`): a write under a token
that is not the current lease, or not of the newest fence, is refused whole (`LeaseLost`).
Live owners register themselves (`members`) so each can compute the same shard assignment.
Source: docs/decisions/0005-leases-with-fencing.md; Kleppmann, "How to do distributed locking".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from services.ports.projections import Projections


@dataclass(frozen=True, slots=True)
class ShardLease:
    """A held lease: `token` is `<owner>:<fence>`, the value a fenced write is checked with."""

    shard: int
    token: str

    @property
    def fence(self) -> int:
        """The fencing number of this acquisition (grows with every new owner of the shard)."""
        return int(self.token.rpartition(":")[2])


class ShardLeases(Protocol):
    """One owner's leases. Implementations: `adapters.redis.lease.ShardLeases`,
    `adapters.memory.leases.MemoryShardLeases`. Every call may raise `StoreUnavailable`."""

    owner: str
    """This process's id, unique among live owners; no `:`."""
    ttl_ms: int
    """Lease time: a silent owner loses its shards and its membership this long after."""
    shards: int
    """How many shards there are (0 .. shards-1)."""

    async def acquire(self, shard: int) -> ShardLease | None:
        """Take the shard's lease if nobody holds it (a new fence), or extend it if this owner
        already does (same token); None while another owner holds it."""
        ...

    async def renew(self, lease: ShardLease) -> bool:
        """Extend the lease by `ttl_ms` if `lease.token` still holds it (compare-and-set)."""
        ...

    async def release(self, lease: ShardLease) -> bool:
        """Give the lease up now if `lease.token` holds it, so the next owner need not wait."""
        ...

    async def holder(self, shard: int) -> str | None:
        """The token holding the shard's lease now, or None."""
        ...

    async def members(self) -> list[str]:
        """Register this owner as live for `ttl_ms` more, drop the lapsed ones, and return the
        live owners (this one included), by the store's clock."""
        ...

    async def leave(self) -> None:
        """Remove this owner from the live owners now."""
        ...


class FencedProjections(Projections, Protocol):
    """Projections whose writes of a held shard are fenced by its lease (the projector's)."""

    async def prepare(self) -> None:
        """Make sure fenced writes can run (Redis: their script loads). Raises: the store's
        refusal (a start-up failure)."""
        ...

    def hold_lease(self, lease: ShardLease) -> None:
        """Fence the writes of `lease.shard` with its token from now on: `write` raises
        `LeaseLost` (nothing written) once the token is not the shard's current lease."""
        ...

    def drop_lease(self, shard: int) -> None:
        """Forget the shard's lease (its writes are unfenced again)."""
        ...
