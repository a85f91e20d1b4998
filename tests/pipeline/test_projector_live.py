"""The live projector's round trips (docs/decisions/0012-hot-reads-and-off-loop-replays.md: append -> visible p99 at 1,000 events/s): the
shards of one read are applied together, a checkpoint this process wrote under its lease
is not read back before every batch, and what arrived during a batch is read with its writes. Behaviour only; the speed is measured in `make bench`."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import redis.asyncio as aioredis

from services.adapters.redis import feeds as feeds_module
from services.adapters.redis.connect import is_cluster
from services.adapters.redis.feeds import RedisShardFeeds
from services.adapters.redis.keys import Keys, shard_of
from services.adapters.redis.lease import ShardLeases
from services.adapters.redis.projections import RedisProjections
from services.doors.projector.loop import ProjectorLoop
from services.ports.projections import START_ID, ProjectionBatch
from services.usecases.project import Applied

SHARDS = 4
KEYS = Keys(SHARDS)


class Together:
    """A project use case whose applies wait until `width` of them have started."""

    def __init__(self, width: int) -> None:
        self.width = width
        self.started: list[int] = []
        self.all_in = asyncio.Event()
        self.views: dict[str, Any] = {}

    async def apply(
        self, shard: int, entries: Any, malformed: Any = (), live: Any = None
    ) -> Applied:
        self.started.append(shard)
        if len(self.started) >= self.width:
            self.all_in.set()
        await asyncio.wait_for(self.all_in.wait(), timeout=2.0)  # sequential applies time out
        last = (entries or malformed)[-1].feed_id
        return Applied(len(entries), last)


def games_on_distinct_shards(n: int) -> list[str]:
    by_shard: dict[int, str] = {}
    i = 0
    while len(by_shard) < n:
        by_shard.setdefault(shard_of(f"g{i}", SHARDS), f"g{i}")
        i += 1
    return list(by_shard.values())


async def test_shards_of_one_read_are_applied_together(redis_client: aioredis.Redis) -> None:
    games = games_on_distinct_shards(3)
    for game in games:
        await redis_client.xadd(
            KEYS.feed(shard_of(game, SHARDS)), {"game": game, "seq": 1, "data": "{}"}
        )
    project = Together(len(games))
    projections = RedisProjections(redis_client, KEYS)
    loop = ProjectorLoop(RedisShardFeeds(redis_client, KEYS), SHARDS, project, projections)  # type: ignore[arg-type]
    for game in games:
        loop.positions[shard_of(game, SHARDS)] = START_ID
    applied = await loop.step()
    print(f"shards read {len(games)}, applies in flight together {len(project.started)}")
    assert sorted(project.started) == sorted(shard_of(g, SHARDS) for g in games)
    assert applied == len(games)
    assert all(p != START_ID for p in loop.positions.values())  # every shard moved on


async def test_written_checkpoint_is_not_read_back(
    redis_client: aioredis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    leases = ShardLeases(redis_client, KEYS, "live-test")
    lease = await leases.acquire(1)
    assert lease is not None
    projections = RedisProjections(redis_client, KEYS)
    projections.hold_lease(lease)
    await projections.write(ProjectionBatch(1, "5-1", (), "now"), 100)
    gets = _counted_gets(redis_client, monkeypatch)
    seen = [await projections.checkpoint(1) for _ in range(3)]
    print(f"checkpoint reads 3, round trips {gets.count}")
    assert seen == ["5-1"] * 3
    assert gets.count == 0
    # Not cached: an empty id (the checkpoint stays), a shard without a lease, a new lease.
    await projections.write(ProjectionBatch(1, "", (), "now"), 100)
    assert await projections.checkpoint(1) == "5-1"
    assert gets.count == 1
    await redis_client.set(KEYS.checkpoint(1), "7-1")  # as a former owner would have left it
    await projections.write(ProjectionBatch(1, "8-1", (), "now"), 100)
    projections.hold_lease(lease)  # (re)taken: read the stored one again
    assert await projections.checkpoint(1) == "8-1"
    assert gets.count == 2
    unleased = RedisProjections(redis_client, KEYS)
    await unleased.write(ProjectionBatch(2, "3-1", (), "now"), 100)
    assert await unleased.checkpoint(2) == "3-1"
    assert gets.count == 3


async def test_a_checkpoint_read_under_a_held_lease_is_read_once(
    redis_client: aioredis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    leases = ShardLeases(redis_client, KEYS, "read-test")
    lease = await leases.acquire(1)
    assert lease is not None
    await redis_client.set(KEYS.checkpoint(1), "4-1")  # as a former owner left it
    projections = RedisProjections(redis_client, KEYS)
    projections.hold_lease(lease)
    real_get = redis_client.get  # the uncounted client's, for the overtaken read below
    gets = _counted_gets(redis_client, monkeypatch)
    seen = [await projections.checkpoint(1) for _ in range(3)]
    print(f"checkpoint reads 3 under a held lease, round trips {gets.count}")
    assert seen == ["4-1"] * 3
    assert gets.count == 1
    # Not kept: a read without the lease, a read while a write of the shard is unanswered.
    assert await RedisProjections(redis_client, KEYS).checkpoint(1) == "4-1"
    assert gets.count == 2
    # Nor a read a write of the shard overtook (its answer, read before, arriving after).
    projections.drop_lease(1)
    projections.hold_lease(lease)
    answered = asyncio.Event()

    async def overtaken_get(*args: Any, **kwargs: Any) -> Any:
        stored = await real_get(*args, **kwargs)
        await answered.wait()
        return stored

    monkeypatch.setattr(redis_client, "get", overtaken_get)
    read = asyncio.ensure_future(projections.checkpoint(1))
    await asyncio.sleep(0.05)  # the GET answered "4-1", held back
    await projections.write(ProjectionBatch(1, "6-1", (), "now"), 100)
    answered.set()
    assert await read == "4-1"
    assert await projections.checkpoint(1) == "6-1"  # the write's, not the read's


class Recording:
    """A project use case that records the feed ids it was given."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        self.views: dict[str, Any] = {}

    async def apply(
        self, shard: int, entries: Any, malformed: Any = (), live: Any = None
    ) -> Applied:
        self.seen += [e.feed_id for e in entries]
        return Applied(len(entries), entries[-1].feed_id)


async def looping_over_one_feed(
    client: aioredis.Redis, monkeypatch: pytest.MonkeyPatch, entries: int
) -> tuple[ProjectorLoop, Recording, list[bytes], list[int]]:
    """A loop reading one entry per read from a feed holding `entries`; the blocking reads it
    makes are counted in the returned list."""
    game = games_on_distinct_shards(1)[0]
    feed = KEYS.feed(shard_of(game, SHARDS))
    ids = [
        await client.xadd(feed, {"game": game, "seq": i + 1, "data": "{}"}) for i in range(entries)
    ]
    project = Recording()
    feeds = RedisShardFeeds(client, KEYS)
    loop = ProjectorLoop(feeds, SHARDS, project, RedisProjections(client, KEYS), batch=1)  # type: ignore[arg-type]
    loop.positions[shard_of(game, SHARDS)] = START_ID
    reads = [0]
    real = feeds_module.read_feeds

    async def counting(*args: Any, **kwargs: Any) -> Any:
        reads[0] += 1
        return await real(*args, **kwargs)

    monkeypatch.setattr(feeds_module, "read_feeds", counting)
    return loop, project, ids, reads


async def test_what_arrived_during_a_batch_is_read_with_its_writes(
    redis_client: aioredis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    loop, project, ids, reads = await looping_over_one_feed(redis_client, monkeypatch, 3)
    for _ in range(3):
        assert await loop.step() == 1
    print(f"entries 3, reads of their own {reads[0]}")
    assert project.seen == [i.decode() for i in ids]  # each once, in feed order
    # the 2nd and 3rd came with the writes before them; a cluster reads each on its own
    assert reads[0] == (3 if is_cluster(redis_client) else 1)


async def test_a_read_of_the_feeds_reads_the_append_scripts_fields_by_place(
    redis_client: aioredis.Redis,
) -> None:
    game = games_on_distinct_shards(1)[0]
    shard = shard_of(game, SHARDS)
    fields = {"game": game, "seq": 7, "data": '{"x":1}', "live": "1"}
    await redis_client.xadd(KEYS.feed(shard), fields)
    await redis_client.xadd(KEYS.feed(shard), {**fields, "seq": 8, "live": "0"})
    reply = await feeds_module.read_feeds(redis_client, {KEYS.feed(shard): START_ID}, 10, 0)
    if not is_cluster(redis_client):  # as Redis sent it: no dict per entry
        streams = reply.items() if isinstance(reply, dict) else reply
        assert all(isinstance(f, list) for _, entries in streams for _, f in entries)
    [batch] = await RedisShardFeeds(redis_client, KEYS).read({shard: START_ID}, 10, 0)
    assert [(e.game_id, e.seq, e.data, e.live) for e in batch.entries] == [
        (game, 7, b'{"x":1}', True),
        (game, 8, b'{"x":1}', False),
    ]


async def test_a_read_ahead_of_other_positions_is_not_used(
    redis_client: aioredis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    loop, project, ids, reads = await looping_over_one_feed(redis_client, monkeypatch, 3)
    assert await loop.step() == 1
    shard = next(iter(loop.positions))
    loop.positions[shard] = START_ID  # reloaded from a checkpoint meanwhile (a failed write)
    assert await loop.step() == 1
    assert await loop.step() == 1
    assert project.seen == [i.decode() for i in (ids[0], ids[0], ids[1])]
    assert reads[0] == (3 if is_cluster(redis_client) else 2)


class Views(dict[str, Any]):
    """The cached states a loss drops (none here)."""

    def kept_keys(self) -> list[str]:
        return list(self)


class LosingRetention:
    """Feed retention whose trim awaits while the shard's lease is lost (a renewal that failed
    meanwhile): `loop.lose(shard)` runs inside `advanced`."""

    def __init__(self) -> None:
        self.loop: ProjectorLoop | None = None

    async def advanced(self, shard: int, checkpoint: str | None = None) -> int:
        assert self.loop is not None
        await self.loop.lose(shard)
        return 0


async def test_a_shard_lost_during_the_feed_trim_ends_its_apply_quietly(
    redis_client: aioredis.Redis,
) -> None:
    """Finding: `KeyError: 'sl:feed:{s2}'` (a logged `projector.batch_failed`, every cache
    dropped) when the shard was lost between the trim and the position read after it."""
    game = games_on_distinct_shards(1)[0]
    feed = KEYS.feed(shard_of(game, SHARDS))
    await redis_client.xadd(feed, {"game": game, "seq": 1, "data": "{}"})
    retention = LosingRetention()
    project = Recording()
    project.views = Views()
    loop = ProjectorLoop(
        RedisShardFeeds(redis_client, KEYS),
        SHARDS,
        project,  # type: ignore[arg-type]
        RedisProjections(redis_client, KEYS),
        retention=retention,  # type: ignore[arg-type]
    )
    retention.loop = loop
    loop.positions[shard_of(game, SHARDS)] = START_ID
    assert await loop.step() == 1  # raised KeyError
    assert shard_of(game, SHARDS) not in loop.positions  # lost: not read again until re-acquired


class _Gets:
    """GET commands sent through a client (`count`), counted by `_counted_gets`."""

    def __init__(self) -> None:
        self.count = 0


def _counted_gets(redis_client: aioredis.Redis, monkeypatch: pytest.MonkeyPatch) -> _Gets:
    """Count the GETs `redis_client` sends from now on (the checkpoint reads' round trips)."""
    gets, real_get = _Gets(), redis_client.get

    async def counting_get(*args: Any, **kwargs: Any) -> Any:
        gets.count += 1
        return await real_get(*args, **kwargs)

    monkeypatch.setattr(redis_client, "get", counting_get)
    return gets
