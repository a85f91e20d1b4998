"""Every Lua script of the repo runs on a Redis Cluster: each call's KEYS share one slot.

Statically: each script's KEYS as its call site builds them map to one slot. On a real cluster:
the append and append_many (`RedisEventLog`), the projection apply (`Project` on
`RedisProjections`), the lag, and the standings and games reads (`ReadModels`) run through
`connect()`; pipelined script calls go through `fanout.script_calls`."""

from __future__ import annotations

from typing import Any

from redis.crc import key_slot

from services.adapters.redis.connect import connect
from services.adapters.redis.deadletters import RedisDeadLetters
from services.adapters.redis.eventlog import RedisEventLog
from services.adapters.redis.feed import feed_entries
from services.adapters.redis.keys import Keys, shard_of
from services.adapters.redis.lease import fence_key, lease_key
from services.adapters.redis.projections import RedisProjections
from services.ports.eventlog import AppendRequest
from services.usecases.project import Project
from services.usecases.readmodels.reads import ReadModels
from tests.pipeline.factory import game_log
from tests.pipeline.helpers import offline_standings, projected_standings

KEYS = Keys(16)


def one_slot(*names: str) -> bool:
    return len({key_slot(n.encode()) for n in names}) == 1


def test_call_sites_build_single_slot_keys() -> None:
    for game in (f"game-{i}" for i in range(200)):
        shard = shard_of(game, KEYS.shards)
        # APPEND_LUA (RedisEventLog._call): game stream, feed, event ids, game index, token;
        # with a live projection also the projection, the shard's changes and the names
        assert one_slot(
            KEYS.game_stream(game),
            KEYS.feed(shard),
            KEYS.event_ids(game),
            KEYS.game_index(shard),
            KEYS.write_token(game),
            KEYS.projection(game),
            KEYS.changes(shard),
            KEYS.names(game),
        )
        # FENCED_APPLY_LUA (RedisProjections.write): checkpoint, changes, projections, lease
        assert one_slot(
            KEYS.checkpoint(shard),
            KEYS.changes(shard),
            KEYS.projection(game),
            lease_key(KEYS, shard),
            fence_key(KEYS, shard),
        )
        # _GET_LUA and _LAG_LUA (RedisProjections)
        assert one_slot(KEYS.projection(game), KEYS.checkpoint(shard))
        assert one_slot(KEYS.feed(shard), KEYS.checkpoint(shard))
    # PUT_ONCE_LUA and SCRUB_LUA (dead letters): the stream, its once markers, the
    # integrations' copies and the index of scrubbed letters (docs/forget.md)
    assert one_slot(
        KEYS.dead_letter,
        KEYS.dead_letter_once("inbox:1-0"),
        KEYS.dead_letter_scrubbed,
        *(KEYS.integration_dead_letters(f"table-{i}") for i in range(20)),
    )


async def test_append_apply_and_reads_run_on_a_cluster(cluster_url: str) -> None:
    from tests.redis_fixture import flush_all

    flush_all(cluster_url)
    client = connect(cluster_url)
    try:
        log = RedisEventLog(client, KEYS)
        logs = {f"g{i}": game_log(f"g{i}", 12, seed=i) for i in range(6)}
        for game_id, events in list(logs.items())[:3]:
            await log.append(game_id, events)
        many = [AppendRequest(g, e[:6]) for g, e in list(logs.items())[3:]]
        many += [AppendRequest(g, e[6:]) for g, e in list(logs.items())[3:]]
        outcomes = await log.append_many(many)  # one game's two calls in order
        assert [getattr(o, "version", None) for o in outcomes] == [6, 6, 6, 12, 12, 12]
        assert (await log.list_games()).games == tuple(sorted(logs))
        projections = RedisProjections(client, KEYS)
        assert await projections.lag(1000) == 72
        project = Project(log, projections, RedisDeadLetters(client, KEYS))  # type: ignore[arg-type]
        for shard in {shard_of(g, KEYS.shards) for g in logs}:
            entries: Any = await client.xrange(KEYS.feed(shard))
            await project.apply(shard, *feed_entries(entries, shard, KEYS.shards))
        assert await projections.lag(1000) == 0
        reads = ReadModels(log, projections)
        for game_id, events in logs.items():
            assert await projected_standings(client, KEYS, game_id) == offline_standings(events)  # type: ignore[arg-type]
            assert await reads.standings_body(game_id)
        assert sorted(g.game_id for g in await reads.games()) == sorted(logs)
    finally:
        await client.aclose()
