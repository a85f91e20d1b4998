"""Items 2 and 5 through the real doors: HTTP appends and the Redis inbox (events/s), and the
standings read latency at a fixed request rate while events flow.

HTTP and query servers are child processes (`services.bench.server`: the app `scoreledger
serve` builds, under uvicorn with uvloop/httptools). Appends are driven by httpx clients in
this process; standings reads by `wrk` (an httpx client measured at about 130 requests/s per
core here, far too slow to offer 2,000/s). Sources: issue brief (benchmarks);
research/tech.md §3.3 (append), §3.9 (query service), §6 (ceilings).
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import json
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import httpx
import redis.asyncio as aioredis

from services.adapters.redis.eventlog import RedisEventLog
from services.bench.server import Server
from services.bench.workloads import Corpus, count
from services.bootstrap import running_inbox
from services.keys import Keys
from services.settings import ServiceSettings
from services.simulator.sinks import game_id_of
from services.usecases.check import CheckedAppend

T = TypeVar("T")
JSON = {"content-type": "application/json"}


def run_fast(coro: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run` on uvloop when installed (the load generator's own loop costs less)."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(coro)
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(coro)


def _interleaved(data: Corpus) -> list[str]:
    """Every line, round-robin over the games (as concurrent tables produce them)."""
    rounds = itertools.zip_longest(*data)
    return [line for batch in rounds for line in batch if line is not None]


async def _stored(client: aioredis.Redis, keys: Keys) -> int:
    """Events stored so far: the sum of the shard feeds' lengths."""
    async with client.pipeline(transaction=False) as pipe:
        for shard in range(keys.shards):
            pipe.xlen(keys.feed(shard))
        return sum(await pipe.execute())


def _bench_token(game_id: str) -> str:
    """The write token an inbox bench entry carries (the creator's choice: 32+ URL-safe chars)."""
    return hashlib.sha256(game_id.encode()).hexdigest()


async def inbox_append(url: str, data: Corpus, batch: int = 500, timeout_s: float = 600) -> float:
    """Item 2: events/s through the Redis inbox: every event XADDed first (one entry each,
    games interleaved), then the real inbox consumer (FastStream group, `inbox_batch=batch`)
    validates and appends them; timed from its start until every event is stored."""
    client = aioredis.Redis.from_url(url)
    await client.flushall()
    keys = Keys()
    lines = _interleaved(data)
    for i in range(0, len(lines), 1000):
        async with client.pipeline(transaction=False) as pipe:
            for line in lines[i : i + 1000]:
                pipe.xadd(keys.inbox, {"data": line, "token": _bench_token(game_id_of(line))})
            await pipe.execute()
    started = time.perf_counter()
    async with running_inbox(ServiceSettings(redis_url=url, inbox_batch=batch)):
        while await _stored(client, keys) < len(lines):
            if time.perf_counter() - started > timeout_s:
                raise TimeoutError("inbox not drained")
            await asyncio.sleep(0.01)
        elapsed = time.perf_counter() - started
    dead = await client.xlen(keys.dead_letter)
    await client.aclose()
    if dead:
        raise RuntimeError(f"{dead} inbox entries were dead-lettered")
    return len(lines) / elapsed


async def _post_games(base_url: str, data: Corpus, batch: int, concurrency: int) -> float:
    gate = asyncio.Semaphore(concurrency)
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=base_url, limits=limits, timeout=60) as http:

        async def one_game(lines: list[str]) -> None:
            game_id = game_id_of(lines[0])
            headers = dict(JSON)
            async with gate:
                for i in range(0, len(lines), batch):
                    chunk = lines[i : i + batch]
                    body = chunk[0] if batch == 1 else "[" + ",".join(chunk) + "]"
                    reply = await http.post(
                        f"/games/{game_id}/events", content=body, headers=headers
                    )
                    if reply.status_code != 201:
                        raise RuntimeError(
                            f"POST {game_id}: {reply.status_code} {reply.text[:300]}"
                        )
                    token = reply.json().get("write_token")
                    if token:
                        headers["authorization"] = f"Bearer {token}"

        started = time.perf_counter()
        await asyncio.gather(*(one_game(g) for g in data))
        return count(data) / (time.perf_counter() - started)


def http_append(
    url: str, data: Corpus, batch: int, concurrency: int = 32, cwd: str | None = None
) -> float:
    """Item 2: events/s of `POST /games/{id}/events` (one event, or `batch` per request) to a
    real ingest server process, `concurrency` games at once, write tokens as a client does."""
    run_fast(_flush(url))
    with Server("ingest", url, cwd=cwd) as server:
        return run_fast(_post_games(server.base_url, data, batch, concurrency))


async def _flush(url: str) -> None:
    client = aioredis.Redis.from_url(url)
    await client.flushall()
    await client.aclose()


WRK_SCRIPT = """
local paths = {%s}
local i = 0
request = function()
  i = i + 1
  return wrk.format("GET", paths[(i %% #paths) + 1])
end
delay = function() return %d end
"""


@dataclass(frozen=True)
class WrkResult:
    """What `wrk --latency` printed: latency percentiles (ms), requests/s, non-2xx answers."""

    p50_ms: float
    p99_ms: float
    rate: float
    errors: int


def _ms(text: str) -> float:
    value = float(re.match(r"[\d.]+", text)[0])  # type: ignore[index]
    unit = text.removeprefix(re.match(r"[\d.]+", text)[0])  # type: ignore[index]
    return value * {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0}[unit]


def wrk_read(
    base_url: str, paths: list[str], rate: float, seconds: float, connections: int = 20
) -> WrkResult:
    """GET `paths` round-robin with `wrk` (Debian package): `connections` keep-alive
    connections, each pausing `connections / rate` s between requests (wrk's `delay()`), so the
    offered rate is about `rate` while the server keeps up. wrk is closed-loop: when the server
    falls behind, the achieved rate drops (reported) rather than requests queueing."""
    pause_ms = max(0, round(connections / rate * 1000))
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(WRK_SCRIPT % (", ".join(json.dumps(p) for p in paths), pause_ms))
    try:
        out = subprocess.run(
            [
                "wrk",
                "-t",
                "1",
                "-c",
                str(connections),
                "-d",
                f"{seconds:g}s",
                "--latency",
                "-s",
                script.name,
                base_url,
            ],
            capture_output=True,
            text=True,
            check=True,
            timeout=seconds + 60,
        ).stdout
    finally:
        Path(script.name).unlink()
    pct = dict(re.findall(r"^\s+(50|99)%\s+(\S+)$", out, re.MULTILINE))
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return WrkResult(
        p50_ms=_ms(pct["50"]),
        p99_ms=_ms(pct["99"]),
        rate=float(re.search(r"Requests/sec:\s+([\d.]+)", out)[1]),  # type: ignore[index]
        errors=int(errors[1]) if errors else 0,
    )


async def _append_paced(url: str, lines: list[str], rate: float, stop: asyncio.Event) -> int:
    """Append `lines` (interleaved games) through `CheckedAppend` at `rate`/s until `stop`."""
    from contracts.events import parse_event_json

    client = aioredis.Redis.from_url(url)
    store = CheckedAppend(RedisEventLog(client, Keys()))
    sent, started = 0, time.perf_counter()
    for line in lines:
        if stop.is_set():
            break
        event = parse_event_json(line)
        await store.append(event.game_id, [event])
        sent += 1
        delay = started + sent / rate - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
    await client.aclose()
    return sent


async def _all_projected(http: httpx.AsyncClient, games: list[str]) -> bool:
    for game_id in games:
        if (await http.get(f"/games/{game_id}/standings")).status_code != 200:
            return False
    return True


async def _standings_run(
    url: str, query_url: str, data: Corpus, rate: float, seconds: float, event_rate: float
) -> tuple[WrkResult, int]:
    from contracts.events import parse_event_json

    client = aioredis.Redis.from_url(url)
    store = CheckedAppend(RedisEventLog(client, Keys()))
    head = [g[: len(g) // 3] for g in data]  # a third of each game stored and projected first
    for game in head:
        await store.append(game_id_of(game[0]), [parse_event_json(line) for line in game])
    games = [game_id_of(g[0]) for g in data]
    async with httpx.AsyncClient(base_url=query_url) as http:
        deadline = time.perf_counter() + 120
        while not await _all_projected(http, games):
            if time.perf_counter() > deadline:
                raise TimeoutError("projections not built")
            await asyncio.sleep(0.1)
    await client.aclose()
    tail = _interleaved([g[len(g) // 3 :] for g in data])
    stop = asyncio.Event()
    appender = asyncio.create_task(_append_paced(url, tail, event_rate, stop))
    paths = [f"/games/{g}/standings" for g in games]
    result = await asyncio.to_thread(wrk_read, query_url, paths, rate, seconds)
    stop.set()
    return result, await appender


def standings_read(
    url: str,
    data: Corpus,
    rate: float = 2000,
    seconds: float = 10,
    event_rate: float = 200,
    cwd: str | None = None,
) -> tuple[WrkResult, int]:
    """Item 5: `GET /games/{id}/standings` offered at about `rate`/s for `seconds` by `wrk`
    against a query-only server process, while a projector process applies events appended
    here at `event_rate`/s (the rest of each game; its first third is projected before).
    Returns (wrk's figures, events appended meanwhile).

    Raises: FileNotFoundError when `wrk` is not installed."""
    if shutil.which("wrk") is None:
        raise FileNotFoundError("wrk is not installed (Debian: apt-get install wrk)")
    run_fast(_flush(url))
    with Server("projector", url, cwd=cwd), Server("query", url, cwd=cwd) as query:
        return run_fast(_standings_run(url, query.base_url, data, rate, seconds, event_rate))
