"""Item 4: latency from append to standings readable, at an offered rate, from simulated tables.

Events of many tables (round-robin, as concurrent tables produce them) are appended through
`CheckedAppend` on a 10 ms tick schedule while the real projector runs in its own process
(as deployed: `services.bench.server` with the projector role). The projector writes
each game's projection and a change notice (game, seq) in one Lua call, so the time a notice
is read is the time those standings became readable. Latency = notice read - append start.
"""

from __future__ import annotations

import asyncio
import time

import redis.asyncio as aioredis

from contracts.envelope import Envelope
from contracts.events import parse_event_json
from services.adapters.redis.eventlog import RedisEventLog
from services.bench.server import Server
from services.bench.workloads import Corpus
from services.keys import Keys
from services.simulator.sinks import paced
from services.simulator.tables import interleave
from services.usecases.check import CheckedAppend


async def _watch(
    client: aioredis.Redis,
    keys: Keys,
    sent: dict[tuple[str, int], float],
    latencies: list[float],
    stop: asyncio.Event,
) -> None:
    cursors = {keys.changes(s): "0-0" for s in range(keys.shards)}
    done: dict[str, int] = {}
    while not stop.is_set() or len(latencies) < len(sent):
        replies = await client.xread(cursors, block=200, count=1000)  # type: ignore[arg-type]
        if not replies and stop.is_set():
            break
        now = time.perf_counter()
        for stream, entries in replies:
            cursors[stream.decode()] = entries[-1][0].decode()
            for _, fields in entries:
                game, seq = fields[b"game"].decode(), int(fields[b"seq"])
                for s in range(done.get(game, 0) + 1, seq + 1):
                    started = sent.get((game, s))
                    if started is not None:
                        latencies.append((now - started) * 1000)
                done[game] = max(done.get(game, 0), seq)


async def end_to_end(
    url: str, data: Corpus, rate: float, seconds: float
) -> tuple[list[float], float]:
    """Append at `rate` events/s for `seconds`; returns (latencies in ms, achieved events/s)."""
    client = aioredis.Redis.from_url(url)
    await client.flushall()
    keys = Keys()
    store = CheckedAppend(RedisEventLog(client, keys), cache_games=100_000)
    games: list[list[Envelope]] = [[parse_event_json(line) for line in g] for g in data]
    events = interleave(iter(g) for g in games)
    sent: dict[tuple[str, int], float] = {}
    latencies: list[float] = []
    stop = asyncio.Event()
    gate = asyncio.Semaphore(50)  # below redis-py's connection-pool limit

    async def append(game_id: str, batch: list[Envelope]) -> None:
        async with gate:
            await store.append(game_id, batch)

    with Server("projector", url):
        watcher = asyncio.create_task(_watch(client, keys, sent, latencies, stop))
        started = time.perf_counter()
        async for chunk in paced(events, rate):
            by_game: dict[str, list[Envelope]] = {}
            for event in chunk:
                by_game.setdefault(event.game_id, []).append(event)
            now = time.perf_counter()
            for event in chunk:
                sent[(event.game_id, event.seq)] = now
            await asyncio.gather(*(append(g, evs) for g, evs in by_game.items()))
            if time.perf_counter() - started >= seconds:
                break
        achieved = len(sent) / (time.perf_counter() - started)
        deadline = time.perf_counter() + 30
        while len(latencies) < len(sent) and time.perf_counter() < deadline:
            await asyncio.sleep(0.05)
        stop.set()
        await watcher
    await client.aclose()
    return latencies, achieved
