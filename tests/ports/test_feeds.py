"""The shard-feeds contract (`ShardFeeds`, `FeedTrimming`), for every backend: reads after a
position in append order, capped per shard; a waiting read sees what is appended meanwhile;
trimming drops only what the checkpoint passed, and a rebuilt shard resumes after a reseed."""

from __future__ import annotations

import asyncio

from services.ports.feeds import FeedBatch
from services.ports.projections import START_ID, ProjectionBatch, feed_id_key
from tests.pipeline.factory import corrected, started
from tests.ports.conftest import Backend
from tests.ports.test_projections import in_shard

SHARD = 2
GAME, OTHER = in_shard(SHARD, 2)
DEADLINE_S = 30.0


async def appended(backend: Backend, game_id: str, seqs: range) -> list[str]:
    """Append events `seqs` of `game_id` one call each; their feed ids, in order."""
    ids = []
    for seq in seqs:
        event = started(game_id) if seq == 1 else corrected(game_id, seq, "ann", seq)
        result = await backend.log.append(game_id, [event])
        feed_id = result.events[0].feed_id
        assert feed_id is not None
        ids.append(feed_id)
    return ids


def ids_of(batches: list[FeedBatch]) -> list[str]:
    return [e.feed_id for b in batches for e in b.entries]


async def test_a_read_returns_the_entries_after_the_position_in_order(backend: Backend) -> None:
    feeds = backend.pipeline.feeds
    first = await appended(backend, GAME, range(1, 4))
    second = await appended(backend, OTHER, range(1, 3))
    batches = await feeds.read({SHARD: START_ID}, count=100, block_ms=0)
    assert [b.shard for b in batches] == [SHARD]
    assert ids_of(batches) == [first[0], first[1], first[2], second[0], second[1]]
    assert batches[0].last_id == second[1]
    assert [(e.game_id, e.seq) for e in batches[0].entries] == [
        (GAME, 1),
        (GAME, 2),
        (GAME, 3),
        (OTHER, 1),
        (OTHER, 2),
    ]
    assert list(batches[0].malformed) == []
    assert (await feeds.read({SHARD: first[1]}, count=2, block_ms=0))[0].last_id == second[0]
    assert await feeds.read({SHARD: second[1], 0: START_ID}, count=100, block_ms=0) == []


async def test_a_waiting_read_sees_an_entry_appended_meanwhile(backend: Backend) -> None:
    feeds = backend.pipeline.feeds

    async def follow() -> list[FeedBatch]:
        async with asyncio.timeout(DEADLINE_S):
            while True:  # a Redis Cluster polls: an empty answer before `block_ms`, read again
                batches = await feeds.read({SHARD: START_ID}, count=10, block_ms=1_000)
                if batches:
                    return batches

    reader = asyncio.create_task(follow())
    await asyncio.sleep(0.05)  # the read is waiting (or polling) now
    assert not reader.done()
    ids = await appended(backend, GAME, range(1, 2))
    assert ids_of(await reader) == ids


async def test_trimming_keeps_what_the_checkpoint_has_not_passed(backend: Backend) -> None:
    feeds, projections = backend.pipeline.feeds, backend.projections
    ids = await appended(backend, GAME, range(1, 4))
    reseeded: list[tuple[int, str]] = []

    async def reseed(shard: int, point: str) -> None:
        reseeded.append((shard, point))

    trimming = backend.pipeline.trimming(0.0, 0.0, reseed)
    assert await trimming.advanced(SHARD) == 0  # no checkpoint yet: nothing trimmed
    await projections.write(ProjectionBatch(SHARD, ids[1], (), "T"), 100)
    assert await trimming.advanced(SHARD) == 2
    assert ids_of(await feeds.read({SHARD: START_ID}, count=10, block_ms=0)) == [ids[2]]
    assert await trimming.resume(SHARD, ids[1]) == ids[1]  # a checkpoint: read after it
    assert reseeded == []
    # A rebuild (no checkpoint) of a trimmed feed: refolded first, then read from before
    # the first entry the feed kept.
    point = await trimming.resume(SHARD, START_ID)
    assert reseeded == [(SHARD, point)]
    assert feed_id_key(point) < feed_id_key(ids[2])
    assert ids_of(await feeds.read({SHARD: point}, count=10, block_ms=0)) == [ids[2]]


async def test_trimming_waits_every_s_between_trims_of_a_shard(backend: Backend) -> None:
    ids = await appended(backend, GAME, range(1, 3))

    async def reseed(shard: int, point: str) -> None:
        raise AssertionError("no rebuild here")

    trimming = backend.pipeline.trimming(0.0, 3600.0, reseed)
    await backend.projections.write(ProjectionBatch(SHARD, ids[0], (), "T"), 100)
    assert await trimming.advanced(SHARD) == 1
    await backend.projections.write(ProjectionBatch(SHARD, ids[1], (), "T"), 100)
    assert await trimming.advanced(SHARD) == 0  # within the hour: not again
    left = await backend.pipeline.feeds.read({SHARD: START_ID}, count=10, block_ms=0)
    assert ids_of(left) == [ids[1]]
