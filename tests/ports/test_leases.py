"""The shard-lease contract (`ShardLeases`, `FencedProjections`), for every backend: one holder
per shard with a growing fence, renew and release by the token only, lapse after `ttl_ms`,
membership, fenced writes refused once the lease is gone; and the ownership use case on top
(`usecases.ownership.ShardOwnership`) splitting the shards between two owners."""

from __future__ import annotations

import asyncio

import pytest

from services.ports.errors import LeaseLost
from services.ports.leases import FencedProjections, ShardLease
from services.ports.projections import ProjectionBatch
from services.usecases.ownership import ShardOwnership
from tests.ports.conftest import SHARDS, Backend

DEADLINE_S = 30.0


def fenced(backend: Backend) -> FencedProjections:
    return backend.pipeline.projections


async def test_one_holder_per_shard_and_the_fence_grows(backend: Backend) -> None:
    a = backend.pipeline.leases("a", 60_000)
    b = backend.pipeline.leases("b", 60_000)
    first = await a.acquire(1)
    assert first == ShardLease(1, "a:1")
    assert first.fence == 1
    assert await b.acquire(1) is None  # held by a
    assert await a.acquire(1) == first  # a again: extended, same token
    assert await b.acquire(2) == ShardLease(2, "b:1")  # fences count per shard
    assert await a.holder(1) == "a:1"
    assert not await b.release(ShardLease(1, "b:1"))  # not b's
    assert await a.release(first)
    assert await a.holder(1) is None
    assert await b.acquire(1) == ShardLease(1, "b:2")
    assert not await a.renew(first)  # a's token no longer holds it
    assert await b.renew(ShardLease(1, "b:2"))


async def test_a_lease_lapses_ttl_after_its_last_renewal(backend: Backend) -> None:
    a = backend.pipeline.leases("a", 300)
    b = backend.pipeline.leases("b", 300)
    lease = await a.acquire(0)
    assert lease is not None
    async with asyncio.timeout(DEADLINE_S):
        while await a.holder(0) is not None:  # a condition, not a fixed sleep
            await asyncio.sleep(0.05)
    assert not await a.renew(lease)
    assert await b.acquire(0) == ShardLease(0, "b:2")


async def test_members_are_the_live_owners(backend: Backend) -> None:
    a = backend.pipeline.leases("a", 60_000)
    b = backend.pipeline.leases("b", 60_000)
    assert await a.members() == ["a"]
    assert sorted(await b.members()) == ["a", "b"]
    await a.leave()
    assert await b.members() == ["b"]


def test_an_owner_id_with_a_colon_is_refused(backend: Backend) -> None:
    with pytest.raises(ValueError, match="owner"):
        backend.pipeline.leases("a:b", 60_000)


async def test_a_former_holders_fenced_write_is_refused_whole(backend: Backend) -> None:
    projections = fenced(backend)
    await projections.prepare()
    a = backend.pipeline.leases("a", 60_000)
    b = backend.pipeline.leases("b", 60_000)
    lease = await a.acquire(3)
    assert lease is not None
    projections.hold_lease(lease)
    out = await projections.write(ProjectionBatch(3, "5-1", (), "T"), 100)
    assert not out.stale
    assert await a.release(lease)
    assert await b.acquire(3) == ShardLease(3, "b:2")
    with pytest.raises(LeaseLost) as lost:
        await projections.write(ProjectionBatch(3, "6-1", (), "T"), 100)
    assert (lost.value.shard, lost.value.why) == (3, "lease")
    assert await projections.checkpoint(3) == "5-1"  # nothing written
    projections.drop_lease(3)  # unfenced again (a single projector, tests)
    assert not (await projections.write(ProjectionBatch(3, "6-1", (), "T"), 100)).stale
    assert await projections.checkpoint(3) == "6-1"


class Reader:
    """A stand-in projector loop: the shards it reads."""

    def __init__(self) -> None:
        self.reading: set[int] = set()

    async def acquired(self, lease: ShardLease) -> None:
        self.reading.add(lease.shard)

    async def lost(self, shard: int) -> None:
        self.reading.discard(shard)


async def test_two_owners_split_the_shards(backend: Backend) -> None:
    readers = {name: Reader() for name in ("p1", "p2")}
    owners = {
        name: ShardOwnership(backend.pipeline.leases(name, 60_000), reader.acquired, reader.lost)
        for name, reader in readers.items()
    }
    await owners["p1"].tick()
    assert readers["p1"].reading == set(range(SHARDS))  # alone: every shard
    for _ in range(2):  # p2 joins; p1 gives p2's shards back; p2 takes them
        await owners["p2"].tick()
        await owners["p1"].tick()
    await owners["p2"].tick()
    one, two = readers["p1"].reading, readers["p2"].reading
    print(f"p1 reads {sorted(one)}, p2 reads {sorted(two)}")
    assert (len(one), len(two)) == (SHARDS // 2, SHARDS // 2)
    assert one | two == set(range(SHARDS))
    assert set(owners["p1"].owned) == one
    assert set(owners["p2"].owned) == two
    await owners["p1"].stop()  # released at once: p2 takes every shard on its next tick
    await owners["p2"].tick()
    assert readers["p2"].reading == set(range(SHARDS))
    await owners["p2"].stop()
    assert await backend.pipeline.leases("p3", 60_000).members() == ["p3"]
