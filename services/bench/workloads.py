"""The measured workloads. Each returns one sample (events/s, ms or bytes); the runner repeats.

Inputs are simulated games (`corpus`), made once per run by the simulator with a fixed seed.
Redis workloads take the URL of a dedicated server (services/bench/redis_server.py) and flush
it first. Sources of the design: research/tech.md §3.3 (append), §3.4 (projector), §6 (ceilings).
"""

from __future__ import annotations

import asyncio
import csv
import io
import json
import subprocess
import time
from collections.abc import Sequence

import redis
import redis.asyncio as aioredis

from contracts.events import dump_event_json, parse_event_json
from domain.fold import fold
from domain.standings import standings
from services.adapters.redis.eventlog import RedisEventLog
from services.bootstrap import running_projector
from services.keys import Keys
from services.settings import ServiceSettings
from services.simulator.tables import simulate_game
from services.usecases.check import CheckedAppend

Corpus = list[list[str]]
"""Games, each a list of envelope JSON lines in seq order."""


def corpus(games: int, seed: int = 2026, kind: str = "mixed") -> Corpus:
    """`games` simulated games as JSON lines (reproducible from `seed`)."""
    return [[dump_event_json(e) for e in simulate_game(kind, seed, t)] for t in range(games)]  # type: ignore[arg-type]


def count(data: Corpus) -> int:
    return sum(len(g) for g in data)


def calibrate(data: Corpus) -> float:
    """CPU baseline: `json.loads` of every line, lines/s (no validation, no domain)."""
    started = time.perf_counter()
    for game in data:
        for line in game:
            json.loads(line)
    return count(data) / (time.perf_counter() - started)


def offline_fold(data: Corpus) -> float:
    """Item 1: events/s from JSONL lines to final standings (parse, fold, standings), one core."""
    started = time.perf_counter()
    for game in data:
        standings(fold([parse_event_json(line) for line in game]))
    return count(data) / (time.perf_counter() - started)


async def _flush(url: str) -> aioredis.Redis:
    client = aioredis.Redis.from_url(url)
    await client.flushall()
    return client


async def checked_append(url: str, data: Corpus, batch: int, concurrency: int = 32) -> float:
    """Item 2 (store level): events/s through the ingest's one append path, `CheckedAppend`
    (domain check + one Lua call), `batch` events per call, `concurrency` games at once."""
    client = await _flush(url)
    store = CheckedAppend(RedisEventLog(client, Keys()), cache_games=100_000)
    parsed = [[parse_event_json(line) for line in game] for game in data]
    gate = asyncio.Semaphore(concurrency)

    async def one_game(events: list) -> None:
        async with gate:
            for i in range(0, len(events), batch):
                await store.append(events[0].game_id, events[i : i + batch])

    started = time.perf_counter()
    await asyncio.gather(*(one_game(g) for g in parsed))
    elapsed = time.perf_counter() - started
    await client.aclose()
    return count(data) / elapsed


async def prefill(url: str, data: Corpus, batch: int = 200) -> int:
    """Store every game raw (`RedisEventLog.append`, no domain check) for the projector; returns
    the events stored. The store is flushed first."""
    client = await _flush(url)
    store = RedisEventLog(client, Keys())
    gate = asyncio.Semaphore(64)

    async def one_game(events: list) -> None:
        async with gate:
            for i in range(0, len(events), batch):
                await store.append(events[0].game_id, events[i : i + batch])

    await asyncio.gather(*(one_game([parse_event_json(line) for line in g]) for g in data))
    await client.aclose()
    return count(data)


async def caught_up(client: aioredis.Redis, keys: Keys) -> bool:
    """Whether every shard's checkpoint is at its feed's last entry."""
    async with client.pipeline(transaction=False) as pipe:
        for shard in range(keys.shards):
            pipe.xrevrange(keys.feed(shard), "+", "-", count=1)
            pipe.get(keys.checkpoint(shard))
        out = await pipe.execute()
    for last, ckpt in zip(out[::2], out[1::2], strict=True):
        if last and (ckpt is None or ckpt != last[0][0]):
            return False
    return True


async def project_prefilled(url: str, events: int, timeout_s: float = 600) -> float:
    """Items 3 and 6: events/s for the real projector (FastStream app, from checkpoint 0) to
    apply a prefilled feed of `events` events, checkpoints included, until caught up."""
    client = aioredis.Redis.from_url(url)
    keys = Keys()
    started = time.perf_counter()
    async with running_projector(ServiceSettings(redis_url=url, log_level="WARNING")):
        while not await caught_up(client, keys):
            if time.perf_counter() - started > timeout_s:
                raise TimeoutError(f"projector not caught up after {timeout_s} s")
            await asyncio.sleep(0.02)
        elapsed = time.perf_counter() - started
    await client.aclose()
    return events / elapsed


def redis_benchmark(port: int, pipeline: int, requests: int, clients: int = 1) -> float:
    """Item 8: `redis-benchmark` XADD with a 100-byte field, requests/s (research/tech.md §6)."""
    out = subprocess.run(
        [
            "redis-benchmark",
            "-p",
            str(port),
            "-n",
            str(requests),
            "-c",
            str(clients),
            "-P",
            str(pipeline),
            "--csv",
            "XADD",
            "benchstream",
            "*",
            "data",
            "x" * 100,
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    ).stdout
    rows = list(csv.reader(io.StringIO(out)))
    return float(rows[-1][1])


def raw_xadd(url: str, n: int, pipeline: int = 1000) -> float:
    """Item 8: a raw redis-py (sync, hiredis) pipelined XADD loop of a 150-byte event, XADDs/s."""
    client = redis.Redis.from_url(url)
    client.delete("bench:raw")
    payload = "x" * 150
    started = time.perf_counter()
    for i in range(0, n, pipeline):
        pipe = client.pipeline(transaction=False)
        for _ in range(min(pipeline, n - i)):
            pipe.xadd("bench:raw", {"data": payload})
        pipe.execute()
    rate = n / (time.perf_counter() - started)
    client.delete("bench:raw")
    client.close()
    return rate


def memory_per_event(url: str, events: int) -> tuple[float, float]:
    """Item 7: (bytes of Redis memory per stored event over everything the store and the
    projector keep, bytes per entry of the game streams alone by MEMORY USAGE)."""
    client = redis.Redis.from_url(url)
    used = int(client.info("memory")["used_memory"]) - int(
        client.info("memory")["used_memory_startup"]
    )
    streams = [k for k in client.scan_iter(match="sl:game:*", count=1000)]
    sample = streams[:200]
    usage = sum(client.memory_usage(k, samples=0) or 0 for k in sample)
    entries = sum(client.xlen(k) for k in sample)
    client.close()
    return used / events, usage / max(1, entries)


def live_game_memory(data: Corpus, games: int = 200) -> float:
    """Item 7: bytes of Python heap per live game in the projector's cache: the folded
    `GameState`s of `games` games (tracemalloc), divided by `games`."""
    import tracemalloc

    parsed = [[parse_event_json(line) for line in g] for g in data[:games]]
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    states = [fold(g) for g in parsed]
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    assert len(states) == len(parsed)
    return (after - before) / len(parsed)


def sizes(data: Sequence[list[str]]) -> float:
    """Mean bytes of one envelope JSON line."""
    return sum(len(line) for g in data for line in g) / max(1, count(list(data)))
