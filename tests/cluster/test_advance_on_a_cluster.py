"""The projector's checkpoint-only write of a batch the appends projected
(`Projections.advance`, docs/profiles/projector-round-trips.md) on a Redis Cluster
(docs/operating/cluster.md): live-projected games of several shards advance their
checkpoints, nothing folded; a game whose projection is gone is folded from the heads the
advance answered; behind a held lease the fenced script runs in the shard's slot too."""

from __future__ import annotations

from typing import Any

from services.adapters.redis.keys import Keys, shard_of
from services.adapters.redis.projections import RedisProjections
from services.bootstrap import build
from services.platform.settings import ServiceSettings
from services.simulator.tables import simulate_game
from services.usecases.check import CheckedAppend
from tests.redis_fixture import flush_all

SHARDS = 4
KEYS = Keys(SHARDS)


async def test_a_live_batch_advances_and_a_gone_projection_is_folded(cluster_url: str) -> None:
    flush_all(cluster_url)
    service = build(ServiceSettings(redis_url=cluster_url, shards=SHARDS))
    try:
        pipe = service.ports.pipeline
        assert pipe is not None
        projections = pipe.projections
        assert isinstance(projections, RedisProjections)
        await projections.prepare()
        live = CheckedAppend(service.ports.named_log(), live_changes_maxlen=1000)
        games = [list(simulate_game("mixed", 5, table))[:12] for table in range(6)]
        for events in games:
            await live.append(events[0].game_id, events)
        gone = games[0][0].game_id
        await service.client.delete(KEYS.projection(gone))
        for shard in sorted({shard_of(e[0].game_id, SHARDS) for e in games}):
            lease = await pipe.leases("cl", 10_000).acquire(shard)
            assert lease is not None
            projections.hold_lease(lease)
            (batch,) = await pipe.feeds.read({shard: "0-0"}, 1000, 0)
            assert all(e.live for e in batch.entries)
            applied = await service.cases.project.apply(shard, batch.entries, batch.malformed)
            folded = 12 if shard == shard_of(gone, SHARDS) else 0
            assert (applied.events, applied.last_feed_id) == (folded, batch.last_id)
            stored: Any = await service.client.get(KEYS.checkpoint(shard))
            assert stored == batch.last_id.encode()
        for events in games:
            seq: Any = await service.client.hget(KEYS.projection(events[0].game_id), "seq")
            assert seq == b"12"
    finally:
        await service.client.aclose()
