"""The standings read (docs/decisions/0012-hot-reads-and-off-loop-replays.md): concurrent reads of one loop turn share one pipeline (the
client's `ScriptCoalescer`) and each gets its own game's view; a game without a projection
reads None."""

from __future__ import annotations

import asyncio

import pytest

from services.adapters.redis.coalesce import ScriptCoalescer
from services.adapters.redis.connect import RedisClient, is_cluster
from services.adapters.redis.keys import Keys, shard_of
from services.adapters.redis.projections import RedisProjections
from services.ports.projections import ProjectionBatch, ProjectionOp

pytestmark = pytest.mark.redis


async def test_concurrent_standings_reads_share_a_round_trip(redis_client: RedisClient) -> None:
    keys = Keys(4)
    projections = RedisProjections(redis_client, keys)
    games = [f"game-{i}" for i in range(40)]
    for game in games:
        view = f'{{"game_id":"{game}"}}'.encode()
        op = ProjectionOp("apply", game, 0, 1, "in_progress", "trickerion", "{}", "", view)
        await projections.write(ProjectionBatch(shard_of(game, 4), "", [op], "T"), 1000)
    coalescer = ScriptCoalescer.of(redis_client)
    before = coalescer.pipelines
    got = await asyncio.gather(*(projections.standings(g) for g in [*games, "none"]))
    assert [s.view if s else None for s in got] == [
        *(f'{{"game_id":"{g}"}}'.encode() for g in games),
        None,
    ]
    if not is_cluster(redis_client):  # a cluster client sends them one by one
        assert coalescer.pipelines == before + 1
