"""Attacks on the projector's checkpoint-only write of a batch the appends projected
(`Projections.advance`, docs/profiles/projector-round-trips.md): memory and Redis answer
alike on any heads; appends with and without live projection of several games of one shard,
read in batches of any size, end as the projector alone would write them (replay = live),
the checkpoint at the feed's end; a batch applied again (a crash before the reply, a
restart) folds nothing twice; a former lease holder's advance writes nothing; a read that was
not full is followed by a read that still gets what came meanwhile (no stall)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from redis.asyncio import Redis
from redis.crc import key_slot

from contracts.envelope import Envelope
from services.adapters.memory.projections import MemoryProjections
from services.adapters.memory.store import MemoryBackend
from services.adapters.redis.connect import is_cluster
from services.adapters.redis.keys import Keys, shard_of
from services.adapters.redis.projections import RedisProjections
from services.bootstrap import Service, memory_ports, use_cases
from services.bootstrap.backends import Ports
from services.doors.projector.loop import ProjectorLoop
from services.platform.settings import ServiceSettings
from services.ports.errors import LeaseLost
from services.ports.leases import ShardLease
from services.ports.projections import Advanced, Projections
from services.simulator.tables import simulate_game
from services.usecases.check import CheckedAppend
from services.usecases.project import Project
from tests.pipeline.single_node import single_node

SHARDS = 4
KEYS = Keys(SHARDS)
FIELDS = ("seq", "status", "game", "standings", "view", "view_seq")


def games_of_one_shard(n: int, seed: int = 7) -> tuple[int, list[list[Envelope]]]:
    """`n` simulated games whose ids fall in one shard, and that shard."""
    by_shard: dict[int, list[list[Envelope]]] = {}
    for table in range(200):
        events = list(simulate_game("mixed", seed, table))
        shard = shard_of(events[0].game_id, SHARDS)
        by_shard.setdefault(shard, []).append(events)
        if len(by_shard[shard]) == n:
            return shard, by_shard[shard]
    raise AssertionError("no shard got enough games")


def answer(got: Advanced) -> tuple[Any, ...]:
    """`got` with its heads as plain values (`reason_json` and `live` compare too)."""
    heads = {g: (h.seq, h.held, h.reason_json, h.live) for g, h in got.heads.items()}
    return got.moved, got.stale, heads


@pytest.mark.redis
async def test_memory_and_redis_advance_alike_on_any_heads(redis_client: Any) -> None:
    if is_cluster(redis_client):
        pytest.skip("the games' keys are of several slots here")
    rng = random.Random(11)
    redis, backend = RedisProjections(redis_client, KEYS), MemoryBackend(shards=SHARDS)
    memory = MemoryProjections(backend)
    for case in range(150):
        games = [f"g{case}-{i}" for i in range(rng.randint(1, 3))]
        for game_id in games:
            values: dict[str, str] = {}
            if rng.random() < 0.85:
                values["seq"] = str(rng.randint(0, 6))
            if rng.random() < 0.7:
                values["live"] = rng.choice(["1", "0"])
            if rng.random() < 0.25:
                values["held"] = str(rng.randint(1, 7))
                values["held_reason"] = rng.choice(['{"kind":"rule"}', ""])
            backend.projections[game_id] = dict(values)
            if values:
                await redis_client.hset(KEYS.projection(game_id), mapping=values)
        stored = rng.choice([None, "5-0", "9-3", "10-0"])
        if stored is None:
            backend.checkpoints.pop(0, None)
            await redis_client.delete(KEYS.checkpoint(0))
        else:
            backend.checkpoints[0] = stored
            await redis_client.set(KEYS.checkpoint(0), stored)
        last = rng.choice(["9-3", "10-0", "10-1", "11-0"])
        reached = {g: rng.randint(1, 6) for g in games}
        on_redis = await redis.advance(0, last, reached)
        on_memory = await memory.advance(0, last, reached)
        assert answer(on_redis) == answer(on_memory), (case, reached, stored, last)
        assert await redis.checkpoint(0) == await memory.checkpoint(0)


def memory_project() -> tuple[Ports, Project]:
    ports = memory_ports(SHARDS)
    return ports, use_cases(ports, ServiceSettings(shards=SHARDS)).project


async def catch_up(ports: Ports, project: Project, shard: int, after: str, count: int) -> str:
    """Apply `shard`'s feed after `after` in reads of `count`; returns the last id read."""
    assert ports.pipeline is not None
    while True:
        batches = await ports.pipeline.feeds.read({shard: after}, count, 0)
        if not batches:
            return after
        for batch in batches:
            await project.apply(shard, batch.entries, batch.malformed, batch.live)
            after = batch.last_id


async def fields_of(ports: Ports, game_id: str) -> dict[str, str]:
    store: Any = ports.projections  # both stores' `fields` (a test reader)
    (raw,) = await store.fields([game_id])
    return {k: raw[k] for k in FIELDS if k in raw}


async def interleave(
    plan: list[tuple[int, int, bool, int]], on: tuple[Ports, Project] | None = None, seed: int = 7
) -> None:
    """Appends to three games of one shard (game, size, live) with a projector reading after
    each in batches of the plan's count, on `on` (None: memory); at the end every projection
    equals the one the projector alone writes, and the checkpoint is the feed's last entry."""
    shard, games = games_of_one_shard(3, seed)
    ports, project = on or memory_project()
    ref_ports, ref_project = memory_project()
    log, ref_log = ports.named_log(), ref_ports.named_log()
    live, plain = CheckedAppend(log, live_changes_maxlen=10_000), CheckedAppend(log)
    ref = CheckedAppend(ref_log)
    at, after = [0, 0, 0], "0-0"
    for game, size, is_live, count in plan:
        events = games[game][at[game] : at[game] + size]
        if not events:
            continue
        at[game] += len(events)
        await (live if is_live else plain).append(events[0].game_id, events)
        await ref.append(events[0].game_id, events)
        if count:
            after = await catch_up(ports, project, shard, after, count)
    after = await catch_up(ports, project, shard, after, 7)
    await catch_up(ref_ports, ref_project, shard, "0-0", 1000)
    assert ports.pipeline is not None
    (tail,) = await ports.pipeline.feeds.read({shard: "0-0"}, 100_000, 0)
    assert await ports.projections.checkpoint(shard) == tail.last_id == after
    for events in games:
        game_id = events[0].game_id
        assert await fields_of(ports, game_id) == await fields_of(ref_ports, game_id)


LIVE_THEN_PLAIN = [(0, 1, False, 1), (0, 1, True, 0), (0, 1, False, 0)]
"""A game the projector folded and cached, then one append projected (live) and one it did not
(a player forgotten meanwhile, or a writer with live projection off), read in one batch: the
projector must fold the second from the appended projection, not from its cached view (it did:
its write was refused as based on a stale seq while the checkpoint moved past the event, and the
projection stayed one event behind)."""


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@example(plan=LIVE_THEN_PLAIN)
@given(
    plan=st.lists(
        st.tuples(
            st.integers(0, 2), st.integers(1, 12), st.booleans(), st.sampled_from([0, 1, 2, 5])
        ),
        min_size=1,
        max_size=25,
    )
)
def test_live_and_plain_appends_of_one_shard_fold_as_the_projector_alone(
    plan: list[tuple[int, int, bool, int]],
) -> None:
    asyncio.run(interleave(plan))


@pytest.mark.redis
async def test_on_redis_live_and_plain_appends_fold_as_the_projector_alone(
    service: Service,
) -> None:
    await interleave(LIVE_THEN_PLAIN, (service.ports, service.cases.project))
    rng = random.Random(5)
    for seed in range(6):
        plan = [
            (rng.randint(0, 2), rng.randint(1, 12), rng.random() < 0.7, rng.choice([0, 1, 2, 5]))
            for _ in range(rng.randint(5, 25))
        ]
        await interleave(plan, (service.ports, service.cases.project), seed)


async def test_a_batch_applied_again_folds_nothing_twice() -> None:
    """A batch whose advance moved the checkpoint but whose reply was lost is read again
    (restart): stale, nothing folded or written; mixed with a plain game it folds once."""
    shard, (first, second) = games_of_one_shard(2)
    ports, project = memory_project()
    log = ports.named_log()
    await CheckedAppend(log, live_changes_maxlen=1000).append(first[0].game_id, first[:8])
    assert ports.pipeline is not None
    (batch,) = await ports.pipeline.feeds.read({shard: "0-0"}, 100, 0)
    assert all(e.live for e in batch.entries)
    done = await project.apply(shard, batch.entries)
    assert (done.events, done.last_feed_id) == (0, batch.last_id)
    again = await project.apply(shard, batch.entries)  # the restart's read of the same batch
    assert again.events == 0
    await CheckedAppend(log).append(second[0].game_id, second[:5])
    await CheckedAppend(log, live_changes_maxlen=1000).append(first[0].game_id, first[8:12])
    (batch,) = await ports.pipeline.feeds.read({shard: batch.last_id}, 100, 0)
    assert (await project.apply(shard, batch.entries)).events == 5
    assert (await project.apply(shard, batch.entries)).events == 0
    assert (await fields_of(ports, first[0].game_id))["seq"] == "12"
    assert (await fields_of(ports, second[0].game_id))["seq"] == "5"


async def test_a_former_holders_advance_on_memory_writes_nothing() -> None:
    shard, (events,) = games_of_one_shard(1)
    ports, _ = memory_project()
    pipe = ports.pipeline
    assert pipe is not None
    await CheckedAppend(ports.named_log(), live_changes_maxlen=1000).append(
        events[0].game_id, events[:5]
    )
    old = await pipe.leases("old", 100).acquire(shard)
    assert old is not None
    pipe.projections.hold_lease(old)
    await asyncio.sleep(0.15)  # expired (no assertion on time)
    assert await pipe.leases("new", 10_000).acquire(shard) is not None
    with pytest.raises(LeaseLost):
        await pipe.projections.advance(shard, "9999999999999-0", {events[0].game_id: 5})
    assert await pipe.projections.checkpoint(shard) == "0-0"


@pytest.fixture
async def service(clean_redis_url: str) -> AsyncIterator[Service]:
    async for built in single_node(clean_redis_url, SHARDS, "one node's read-ahead"):
        yield built


@pytest.mark.redis
async def test_after_a_short_read_the_next_read_gets_what_came_meanwhile(
    service: Service,
) -> None:
    shard, (events,) = games_of_one_shard(1)
    pipe = service.ports.pipeline
    assert pipe is not None
    loop = ProjectorLoop(pipe.feeds, SHARDS, service.cases.project, pipe.projections, batch=4)
    loop.block_ms = 50
    lease = await pipe.leases("rt", 10_000).acquire(shard)
    assert lease is not None
    await loop.acquire(lease)
    live = CheckedAppend(service.ports.named_log(), live_changes_maxlen=1000)
    plain = CheckedAppend(service.ports.named_log())
    game_id = events[0].game_id
    await plain.append(game_id, events[:2])
    assert await loop.step() == 2  # a short read: no read-ahead queued
    await plain.append(game_id, events[2:9])  # came after it
    assert await loop.step() == 4  # a full read: the rest read with its write
    assert await loop.step() == 3
    await live.append(game_id, events[9:10])  # the projection just behind: stored
    assert await loop.step() == 0  # the live entry: advanced
    tail: Any = await service.client.xrevrange(KEYS.feed(shard), count=1)
    last = tail[0][0]
    assert await service.client.get(KEYS.checkpoint(shard)) == last
    assert (await service.client.hget(KEYS.projection(game_id), "seq")) == b"10"
    projections: Projections = pipe.projections
    assert (await projections.heads([game_id]))[0].live


class _Recorder:
    """Stands for the script coalescer: records each call's KEYS, answers `reply`."""

    def __init__(self, reply: Any) -> None:
        self.reply = reply
        self.keys: list[list[str]] = []

    async def call(self, script: Any, keys: list[str], args: list[Any]) -> Any:
        self.keys.append(list(keys))
        return self.reply


async def test_the_advance_call_sites_keys_share_one_slot() -> None:
    """docs/operating/cluster.md: every script's KEYS in one slot, as the call site builds
    them (checkpoint, the batch's games' projections, lease and fence)."""
    shard, games = games_of_one_shard(5)
    client = Redis()  # never connected: the recorder answers
    try:
        projections = RedisProjections(client, KEYS)
        recorder = _Recorder(1)
        projections._writes = recorder  # type: ignore[assignment]
        reached = {events[0].game_id: 3 for events in games}
        assert (await projections.advance(shard, "5-0", reached)).moved  # unfenced
        projections.hold_lease(ShardLease(shard, "rt:7"))
        assert (await projections.advance(shard, "6-0", reached)).moved  # fenced
        plain, fenced = recorder.keys
        assert len(plain) == 1 + len(games)
        assert len(fenced) == 3 + len(games)
        for keys in (plain, fenced):
            assert len({key_slot(k.encode()) for k in keys}) == 1, keys
    finally:
        await client.aclose()


async def _no_reseed(shard: int, point: str) -> None:
    raise AssertionError("no reseed here")


class _AppendingFirst:
    """A feed retention that runs `before` once, then trims: entries appended between the
    advance and its trim."""

    def __init__(self, real: Any, before: Any) -> None:
        self.real, self.before = real, before

    async def advanced(self, shard: int, checkpoint: str | None = None) -> int:
        if self.before is not None:
            before, self.before = self.before, None
            await before()
        trimmed: int = await self.real.advanced(shard, checkpoint)
        return trimmed

    async def resume(self, shard: int, checkpoint: str) -> str:
        resumed: str = await self.real.resume(shard, checkpoint)
        return resumed


@pytest.mark.redis
async def test_the_trim_behind_an_advance_keeps_every_entry_after_it(service: Service) -> None:
    """The trim after an advance (given the checkpoint just written, not read again) removes
    the entries the checkpoint passed and none that came after it, even between the advance
    and the trim (docs/operating/security.md: feed retention; `keep_s` 0)."""
    shard, (first, second) = games_of_one_shard(2)
    pipe = service.ports.pipeline
    assert pipe is not None
    log = service.ports.named_log()

    async def plain_append() -> None:
        await CheckedAppend(log).append(second[0].game_id, second[:4])

    retention = _AppendingFirst(pipe.trimming(0, 0, _no_reseed), plain_append)
    loop = ProjectorLoop(
        pipe.feeds, SHARDS, service.cases.project, pipe.projections, retention=retention
    )
    lease = await pipe.leases("rt", 10_000).acquire(shard)
    assert lease is not None
    await loop.acquire(lease)
    await CheckedAppend(log, live_changes_maxlen=1000).append(first[0].game_id, first[:6])
    assert await loop.step() == 0  # advanced; the plain append came before the trim
    feed: Any = await service.client.xrange(KEYS.feed(shard))
    assert [(f[b"game"].decode(), int(f[b"seq"])) for _, f in feed] == [
        (second[0].game_id, seq) for seq in (1, 2, 3, 4)
    ]
    assert await loop.step() == 4
    assert await service.client.xlen(KEYS.feed(shard)) == 0
