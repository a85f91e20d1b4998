"""Which projector owns which shard: live members in the store, a balanced deterministic
assignment, and a loop that holds exactly the assigned shards' leases (`ports.leases.ShardLeases`).

* Membership (`ShardLeases.members`): every tick re-registers this owner for `ttl_ms` and
  drops the lapsed ones, by the store's clock.
* Assignment (`assign`): rendezvous hashing with quotas: each member takes shards // members
  or one more (the quotas sum to the shard count), each shard going to its highest-ranked
  member with room left.
  Every member computes the same answer from the same member list; a join or leave moves few
  shards; loads differ by at most one shard.
* The loop (`ShardOwnership.tick`, every `ttl_ms / 3`): release shards no longer assigned to
  this owner (after `on_lost`), renew the kept ones (a failed renewal is `on_lost`), try to
  acquire newly assigned ones (`on_acquired` with the lease; a shard still leased by its former
  owner is taken on a later tick, once that owner released it or its lease expired; while such
  a shard waits the loop ticks every `RETRY_S`).

Takeover: a dead owner's membership and leases expire `ttl_ms` after its last tick; the next
tick of the owner the shard is reassigned to acquires it, so within `ttl_ms` + one tick.
A tick that fails (the store unreachable) keeps the leases it renewed less than `ttl_ms` ago and calls
`on_lost` for the rest (the server has expired them; fenced writes are refused anyway).
Source: docs/decisions/0005-leases-with-fencing.md; Thaler & Ravishankar, rendezvous (HRW) hashing.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import secrets
import socket
import time
from collections.abc import Awaitable, Callable, Sequence

import structlog

from services.ports.leases import ShardLease, ShardLeases

log = structlog.get_logger(__name__)

OnAcquired = Callable[[ShardLease], Awaitable[None]]
OnLost = Callable[[int], Awaitable[None]]


def owner_id() -> str:
    """This process's owner id, `<hostname>-<pid>-<6 hex>` (no `:`): unique among live
    projectors, and a restarted process (same host, maybe the same pid) is a new owner."""
    host = socket.gethostname().replace(":", "_") or "host"
    return f"{host}-{os.getpid()}-{secrets.token_hex(3)}"


def _rank(member: str, shard: int) -> bytes:
    return hashlib.blake2b(f"{member}/{shard}".encode(), digest_size=8).digest()


def assign(members: Sequence[str], shards: int) -> dict[str, list[int]]:
    """Shards 0..shards-1 over `members`: every shard to exactly one member, loads within one
    of each other, the same result for any order of `members`. Empty members: empty dict."""
    live = sorted(set(members))
    if not live:
        return {}
    base, extra = divmod(shards, len(live))
    # exact quotas (they sum to `shards`): the `extra` members first by their own hash get one more
    by_hash = sorted(live, key=lambda m: _rank(m, -1))
    quota = {m: base + (1 if i < extra else 0) for i, m in enumerate(by_hash)}
    out: dict[str, list[int]] = {m: [] for m in live}
    for shard in range(shards):
        for member in sorted(live, key=lambda m: _rank(m, shard), reverse=True):
            if len(out[member]) < quota[member]:
                out[member].append(shard)
                break
    return out


class ShardOwnership:
    """Holds the leases of the shards `assign` gives this owner; see the module docstring.

    Args:
        leases: this owner's `ShardLeases` (its `owner` and `ttl_ms` are used here too).
        on_acquired: awaited with the lease after a shard is taken (start its reader from the
            checkpoint; pass `lease.token` to the fenced apply script). If it raises, the
            lease is released and the error propagates out of `tick`.
        on_lost: awaited with the shard when it is released or lost (stop its reader first).
    """

    def __init__(self, leases: ShardLeases, on_acquired: OnAcquired, on_lost: OnLost) -> None:
        self.leases = leases
        self.on_acquired, self.on_lost = on_acquired, on_lost
        self.owned: dict[int, ShardLease] = {}
        self._renewed_at: dict[int, float] = {}
        self._task: asyncio.Task[None] | None = None
        self._stopping = False
        self.waiting = False  # assigned shards still leased by their former owner

    RETRY_S = 0.1
    """Seconds to the next tick while `waiting`: a shard the former owner released is taken
    within this, not a whole `tick_s` later (a join rebalances without a gap)."""

    @property
    def tick_s(self) -> float:
        """Seconds between ticks: a third of the lease time."""
        return self.leases.ttl_ms / 3000

    async def members(self) -> list[str]:
        """The live owners, this one included (registers it as a side effect)."""
        return await self.leases.members()

    async def tick(self) -> None:
        """One round: heartbeat, assignment, release / renew / acquire (module docstring).

        Raises:
            StoreUnavailable: the store unreachable; any error of `on_acquired` (after
                `_lose_stale` dropped the leases not renewed within `ttl_ms`: the store has
                expired them, so dropping them is right whatever the error).
        """
        try:
            members = await self.members()
            wanted = set(assign(members, self.leases.shards).get(self.leases.owner, []))
            for shard in sorted(set(self.owned) - wanted):
                await self._drop(shard, release=True)
            for shard in sorted(set(self.owned) & wanted):
                if await self.leases.renew(self.owned[shard]):
                    self._renewed_at[shard] = time.monotonic()
                else:
                    await self._drop(shard, release=False)
            for shard in sorted(wanted - set(self.owned)):
                lease = await self.leases.acquire(shard)
                if lease is not None:
                    try:
                        await self.on_acquired(lease)
                    except BaseException:
                        await self.leases.release(lease)  # a shard nobody reads: give it back
                        raise
                    self.owned[shard] = lease
                    self._renewed_at[shard] = time.monotonic()
            self.waiting = bool(wanted - set(self.owned))
        except Exception:
            await self._lose_stale()
            raise

    async def _drop(self, shard: int, *, release: bool) -> None:
        lease = self.owned.pop(shard)
        self._renewed_at.pop(shard, None)
        try:
            await self.on_lost(shard)
        finally:
            if release:  # safe even if the reader did not stop: its writes are fenced off now
                await self.leases.release(lease)

    async def _lose_stale(self) -> None:
        deadline = time.monotonic() - self.leases.ttl_ms / 1000
        for shard in [s for s, at in self._renewed_at.items() if at < deadline]:
            self.owned.pop(shard, None)
            self._renewed_at.pop(shard, None)
            await self.on_lost(shard)

    async def run(self) -> None:
        """Tick every `tick_s` (every `RETRY_S` while `waiting`) until cancelled; a failed tick
        is logged and retried next tick."""
        while not self._stopping:  # the flag, too: a cancel that a client turned into an error
            await asyncio.sleep(min(self.tick_s, self.RETRY_S) if self.waiting else self.tick_s)
            try:
                await self.tick()
            except Exception:  # store down, a reader that failed to start: retried next tick
                log.warning("lease.tick_failed", owner=self.leases.owner, exc_info=True)

    async def start(self) -> None:
        """First tick now (so this owner is a member; its errors propagate: start-up fails
        fast), then `run` in a task."""
        self._stopping = False
        await self.tick()
        self._task = asyncio.create_task(self.run(), name=f"leases-{self.leases.owner}")

    async def stop(self) -> None:
        """Stop ticking, release every owned shard (after `on_lost`) and leave the members, so
        the others take the shards over on their next tick instead of after `ttl_ms`."""
        self._stopping = True
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        for shard in sorted(self.owned):
            await self._drop(shard, release=True)
        await self.leases.leave()
