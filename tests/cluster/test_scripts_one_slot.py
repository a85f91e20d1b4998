"""Every Lua script of the repo runs on a Redis Cluster: each call's KEYS share one slot.

Statically: each script's KEYS as its call site builds them map to one slot. On a real cluster:
the append (store), the projection apply (projector) and the standings and lag reads (query)
run through `connect()`, single calls, as the cluster requires. Today's pipelined script calls
(`EventStore.append_many`, `QueryReader.lag_events`) cannot run there (test_fanout.py)."""

from __future__ import annotations

from typing import Any

from redis.crc import key_slot
from services.projector.projector import Projector
from services.query.reader import QueryReader
from services.store import EventStore

from services.adapters.redis.connect import connect
from services.keys import Keys, shard_of
from tests.pipeline.factory import game_log
from tests.pipeline.helpers import offline_standings, projected_standings

KEYS = Keys(16)


def one_slot(*names: str) -> bool:
    return len({key_slot(n.encode()) for n in names}) == 1


def test_call_sites_build_single_slot_keys() -> None:
    for game in (f"game-{i}" for i in range(200)):
        shard = shard_of(game, KEYS.shards)
        # APPEND_LUA (EventStore._call): game stream, feed, event ids, game index
        assert one_slot(
            KEYS.game_stream(game), KEYS.feed(shard), KEYS.event_ids(game), KEYS.game_index(shard)
        )
        # APPLY_LUA (Projector._write): checkpoint, changes, then per game of the shard's batch
        assert one_slot(
            KEYS.checkpoint(shard), KEYS.changes(shard), KEYS.projection(game), KEYS.ledger(game)
        )
        # _STANDINGS_LUA and _LAG_LUA (QueryReader)
        assert one_slot(KEYS.projection(game), KEYS.checkpoint(shard))
        assert one_slot(KEYS.feed(shard), KEYS.checkpoint(shard))


async def test_append_apply_and_reads_run_on_a_cluster(cluster_url: str) -> None:
    from tests.redis_fixture import flush_all

    flush_all(cluster_url)
    client = connect(cluster_url)
    try:
        store = EventStore(client, KEYS)  # type: ignore[arg-type]
        logs = {f"g{i}": game_log(f"g{i}", 12, seed=i) for i in range(6)}
        for game_id, events in logs.items():
            await store.append(game_id, events)
        assert await store.list_games() == sorted(logs)
        projector = Projector(client, KEYS)  # type: ignore[arg-type]
        for shard in {shard_of(g, KEYS.shards) for g in logs}:
            entries: Any = await client.xrange(KEYS.feed(shard))
            ids = [i.decode() for i, _ in entries]
            await projector.handle(shard, ids, [fields for _, fields in entries])
        reader = QueryReader(client, KEYS)  # type: ignore[arg-type]
        for game_id, events in logs.items():
            assert await projected_standings(client, KEYS, game_id) == offline_standings(events)  # type: ignore[arg-type]
            assert await reader.standings_body(game_id) is not None
        assert sorted(g.game_id for g in await reader.games()) == sorted(logs)
    finally:
        await client.aclose()
