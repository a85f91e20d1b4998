"""Shard ownership over live projectors: balanced assignment, rebalancing on join and leave,
a dead projector's shards taken over once its leases expire; never two owners of a shard."""

from __future__ import annotations

import asyncio
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.adapters.redis.connect import RedisClient
from services.adapters.redis.keys import Keys
from services.adapters.redis.lease import ShardLease, ShardLeases, lease_key
from services.adapters.redis.ownership import MEMBERS_KEY
from services.usecases.ownership import ShardOwnership, assign
from tests.cluster.projectors import holders

KEYS = Keys(16)
names = st.lists(st.text("abcdef", min_size=1, max_size=4), min_size=1, max_size=8, unique=True)


@given(names, st.integers(1, 64))
def test_assign_gives_every_shard_one_owner_and_balances(members: list[str], shards: int) -> None:
    out = assign(members, shards)
    owned = [s for lst in out.values() for s in lst]
    assert sorted(owned) == list(range(shards))
    loads = [len(lst) for lst in out.values()]
    assert max(loads) - min(loads) <= 1
    assert assign(list(reversed(members)), shards) == out


def test_assign_16_shards_over_3() -> None:
    loads = sorted(len(s) for s in assign(["p1", "p2", "p3"], 16).values())
    assert loads == [5, 5, 6]
    assert assign([], 16) == {}


class TimedOwnership(ShardOwnership):
    """`ShardOwnership` that notes when its last completed tick began: every lease it owns was
    renewed or acquired after `ticked_at`, so none has expired before `ticked_at + ttl`."""

    ticked_at = float("-inf")

    async def tick(self) -> None:
        started = time.monotonic()
        await super().tick()
        self.ticked_at = started


class Projector:
    """A stand-in projector: records which shards it reads (started on acquire, stopped on lost)."""

    def __init__(self, client: RedisClient, name: str, ttl_ms: int) -> None:
        self.name = name
        self.reading: dict[int, str] = {}
        self.ownership = TimedOwnership(
            ShardLeases(client, KEYS, name, ttl_ms), self.acquired, self.lost
        )

    async def acquired(self, lease: ShardLease) -> None:
        assert lease.shard not in self.reading
        self.reading[lease.shard] = lease.token

    async def lost(self, shard: int) -> None:
        del self.reading[shard]

    def may_have_lapsed(self, read_at: float) -> bool:
        """True when a lease this projector reads could have expired by `read_at` (its last
        tick began a lease time or more before): a stalled owner that has not noticed yet.
        Fencing refuses its writes (tests/cluster/test_lease.py), so no invariant here
        speaks of it."""
        ttl_s = self.ownership.leases.ttl_ms / 1000
        return read_at >= self.ownership.ticked_at + ttl_s


async def any_leased(client: RedisClient, shards: set[int]) -> bool:
    """True while any of `shards` still has a lease key."""
    return any([await client.exists(lease_key(KEYS, s)) for s in shards])


def assert_consistent(
    projectors: list[Projector], stored: dict[int, str], read_at: float | None = None
) -> int:
    """No shard read by two projectors; each read shard's lease is held by its reader.

    `read_at` is when `stored` began to be read (None: the leases cannot have lapsed, e.g. a
    long ttl). A projector whose leases may have lapsed by then is not checked (a slow machine
    stalled it past its lease time). Returns the number of projectors checked."""
    seen: dict[int, str] = {}
    live = [p for p in projectors if read_at is None or not p.may_have_lapsed(read_at)]
    for p in live:
        for shard in p.reading:
            assert shard not in seen, f"shard {shard} read by {seen.get(shard)} and another"
            seen[shard] = p.ownership.leases.owner
            assert stored.get(shard) == p.ownership.leases.owner
    return len(live)


async def check_now(client: RedisClient, projectors: list[Projector]) -> int:
    """`assert_consistent` against the lease keys as Redis holds them now."""
    read_at = time.monotonic()
    return assert_consistent(projectors, await holders(client, KEYS), read_at)


async def settle(client: RedisClient, projectors: list[Projector], rounds: int = 3) -> None:
    """Tick every projector `rounds` times (a release shows up one tick before the acquire),
    checking the invariant after every tick. A tick the machine stalled past the lease time
    is ticked again (up to 5 times), so every tick is checked with its reader live."""
    for _ in range(rounds):
        for p in projectors:
            for _attempt in range(5):
                await p.ownership.tick()
                read_at = time.monotonic()
                assert_consistent(projectors, await holders(client, KEYS), read_at)
                if not p.may_have_lapsed(read_at):
                    break
            else:
                raise AssertionError("five ticks in a row stalled for a whole lease time")


async def test_join_and_leave_rebalance_without_two_owners(client: RedisClient) -> None:
    ps = [Projector(client, f"p{i}", ttl_ms=5000) for i in range(3)]
    await settle(client, ps)
    assert sorted(len(p.reading) for p in ps) == [5, 5, 6]
    ps.append(Projector(client, "p3", ttl_ms=5000))  # a projector joins
    await settle(client, ps)
    assert sorted(len(p.reading) for p in ps) == [4, 4, 4, 4]
    assert len(await holders(client, KEYS)) == 16
    leaving = ps.pop(0)
    await leaving.ownership.stop()  # graceful: releases now, leaves the members
    assert leaving.reading == {}
    await settle(client, ps)
    assert sorted(len(p.reading) for p in ps) == [5, 5, 6]
    assert set(await client.zrange(MEMBERS_KEY, 0, -1)) == {b"p1", b"p2", b"p3"}


async def test_a_dead_projectors_shards_are_taken_within_the_lease_time(
    client: RedisClient,
) -> None:
    ttl_ms = 1000
    a, b = Projector(client, "a", ttl_ms), Projector(client, "b", ttl_ms)
    await settle(client, [a, b])
    dead = set(a.reading)
    assert len(dead) == 8
    # "a" dies (no release, no more ticks): every lease it held ends within ttl_ms
    read_at = time.monotonic()
    remaining = [await client.pttl(lease_key(KEYS, s)) for s in dead]
    assert all(ms <= ttl_ms for ms in remaining)
    # -2: expired already, which only a stall past the lease time explains
    assert all(ms > 0 or (ms == -2 and a.may_have_lapsed(read_at)) for ms in remaining)
    deadline = time.monotonic() + 10
    while await any_leased(client, dead):
        assert time.monotonic() < deadline
        await asyncio.sleep(0.02)
    await b.ownership.tick()  # the first tick after the expiry takes them all
    assert set(b.reading) == set(range(16))
    await check_now(client, [b])


async def test_a_paused_owner_resumes_as_a_non_owner(client: RedisClient) -> None:
    ttl_ms = 1000
    a, b = Projector(client, "a", ttl_ms), Projector(client, "b", ttl_ms)
    await settle(client, [a, b])
    tokens_a = dict(a.reading)
    while await any_leased(client, set(tokens_a)):  # "a" is paused
        await asyncio.sleep(0.02)
    await b.ownership.tick()
    assert set(b.reading) == set(range(16))
    await a.ownership.tick()  # "a" resumes: its renewals fail, it stops reading
    assert set(a.reading).isdisjoint(b.reading)
    read_at = time.monotonic()
    stored = await holders(client, KEYS)
    if not b.may_have_lapsed(read_at):
        assert all(stored[s] == "b" for s in tokens_a)
    assert_consistent([a, b], stored, read_at)


async def test_run_loop_keeps_the_leases_alive(client: RedisClient) -> None:
    a = Projector(client, "a", ttl_ms=300)
    await a.ownership.start()
    try:
        await asyncio.sleep(1.0)  # more than three lease times: renewed by the loop
        for _attempt in range(40):  # a check while the loop's last tick is under a lease time old
            read_at = time.monotonic()
            stored = await holders(client, KEYS)
            if not a.may_have_lapsed(read_at):
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("the run loop never renewed within its lease time")
        assert len(a.reading) == 16
        assert len(stored) == 16
    finally:
        await a.ownership.stop()
    assert await holders(client, KEYS) == {}


async def test_concurrent_loops_with_joins_and_leaves_never_share_a_shard(
    client: RedisClient,
) -> None:
    ps = [Projector(client, f"p{i}", ttl_ms=300) for i in range(3)]
    for p in ps:
        await p.ownership.start()
    checks = 0

    async def check_for(seconds: float) -> None:
        nonlocal checks
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            # the loops run while `held` reads: check the shards read both before and after
            before = [dict(p.reading) for p in ps]
            read_at = time.monotonic()
            stored = await holders(client, KEYS)
            for p, then in zip(ps, before, strict=True):
                if p.may_have_lapsed(read_at):
                    continue
                for shard, token in then.items():
                    if p.reading.get(shard) == token:
                        assert stored.get(shard) == p.ownership.leases.owner
            readers = {s: p.name for p in ps for s in p.reading}
            checks += assert_consistent(ps, readers, read_at) == len(ps)
            await asyncio.sleep(0.01)

    try:
        await check_for(0.5)
        late = Projector(client, "p3", ttl_ms=300)
        ps.append(late)
        await late.ownership.start()
        await check_for(0.7)
        leaving = ps.pop(0)
        await leaving.ownership.stop()
        await check_for(0.7)
    finally:
        for p in ps:
            await p.ownership.stop()
    assert checks > 10
    assert await holders(client, KEYS) == {}


async def test_a_reader_that_fails_to_start_gives_the_lease_back(client: RedisClient) -> None:
    class Broken(Exception):
        pass

    async def fail(lease: ShardLease) -> None:
        raise Broken(lease.shard)

    async def lost(shard: int) -> None:
        raise AssertionError("never acquired, never lost")

    ownership = ShardOwnership(ShardLeases(client, KEYS, "a", 5000), fail, lost)
    with pytest.raises(Broken):
        await ownership.tick()
    assert ownership.owned == {}
    assert await holders(client, KEYS) == {}


async def test_a_joining_owner_takes_released_shards_without_waiting_a_whole_tick(
    client: RedisClient,
) -> None:
    a = Projector(client, "a", ttl_ms=9000)  # ticks every 3 s
    await a.ownership.tick()
    b = Projector(client, "b", ttl_ms=9000)
    await b.ownership.start()  # its share is still leased by "a": it waits, retrying quickly
    try:
        assert b.reading == {}
        assert b.ownership.waiting
        await a.ownership.tick()  # "a" sees the join and releases the share of "b"
        released = time.monotonic()
        while len(b.reading) < 8:
            assert time.monotonic() - released < 1.5, "b waited for its next whole tick"
            await asyncio.sleep(0.01)
        took = time.monotonic() - released
        assert not b.ownership.waiting
        await check_now(client, [a, b])
        print(f"released shards taken by the joining owner {took * 1000:.0f} ms later (tick 3 s)")
    finally:
        await b.ownership.stop()
