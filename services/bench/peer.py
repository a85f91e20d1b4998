"""Item 9: the same scoring fold hosted on the `eventsourcing` library (PostgreSQL store), and
ours on Redis, doing the same work: append every game's events in batches of 50, read each
game back and fold it with `domain.fold` to final standings. Result: events/s of each.

The peer's aggregate only records the envelope JSON (one library event per game event), so
both sides run the identical pure fold; what differs is the store and its client.
Source: research/anchors.md §1.2 (eventsourcing); PostgreSQL at 127.0.0.1:5432, trust auth.
"""

from __future__ import annotations

import asyncio
import os
import time
from typing import Any

import redis.asyncio as aioredis

from contracts.events import parse_event_json
from domain.fold import fold
from domain.standings import standings
from services.adapters.redis.eventlog import RedisEventLog
from services.bench.workloads import Corpus, count
from services.keys import Keys

BATCH = 50


def peer_rate(data: Corpus, dbname: str = "test") -> float:
    """Events/s of append + read + fold on eventsourcing's PostgreSQL store (a fresh table)."""
    from eventsourcing.application import Application

    from services.bench.peer_model import GameLog

    name = f"BenchPeer{os.getpid()}{int(time.time())}"
    env: dict[str, Any] = {
        "PERSISTENCE_MODULE": "eventsourcing.postgres",
        "POSTGRES_DBNAME": dbname,
        "POSTGRES_HOST": "127.0.0.1",
        "POSTGRES_PORT": "5432",
        "POSTGRES_USER": os.environ.get("USER", "root"),
        "POSTGRES_PASSWORD": "",
        "CREATE_TABLE": "y",
    }
    app_cls = type(name, (Application,), {"name": name})
    app = app_cls(env=env)
    try:
        started = time.perf_counter()
        ids = []
        for game in data:
            log = GameLog(game_id=parse_event_json(game[0]).game_id)
            for i, line in enumerate(game):
                log.record(line=line)
                if (i + 1) % BATCH == 0:
                    app.save(log)
            app.save(log)
            ids.append(log.id)
        for aggregate_id in ids:
            lines = app.repository.get(aggregate_id).lines
            standings(fold([parse_event_json(line) for line in lines]))
        rate = count(data) / (time.perf_counter() - started)
    finally:
        _drop(app, name)
        app.close()
    return rate


def _drop(app: Any, name: str) -> None:
    recorder = app.recorder
    datastore = getattr(recorder, "datastore", None)
    if datastore is None:
        return
    with datastore.transaction(commit=True) as curs:
        curs.execute(f"DROP TABLE IF EXISTS {name.lower()}_events")  # our own fresh table


async def ours_rate(url: str, data: Corpus) -> float:
    """Events/s of the same work on our Redis store: `RedisEventLog.append` in batches of 50, then
    `RedisEventLog.read` and the fold to standings, game after game (no concurrency, like the peer)."""
    client = aioredis.Redis.from_url(url)
    await client.flushall()
    store = RedisEventLog(client, Keys())
    started = time.perf_counter()
    for game in data:
        events = [parse_event_json(line) for line in game]
        for i in range(0, len(events), BATCH):
            await store.append(events[0].game_id, events[i : i + BATCH])
    for game in data:
        standings(fold(await store.read(parse_event_json(game[0]).game_id)))
    rate = count(data) / (time.perf_counter() - started)
    await client.aclose()
    return rate


def ours(url: str, data: Corpus) -> float:
    return asyncio.run(ours_rate(url, data))
