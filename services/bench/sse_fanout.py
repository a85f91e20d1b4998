"""Item 5: SSE fan-out. N clients hold `GET /games/{id}/live` open on one query process; the
benchmark publishes standings changes the way the projector does (projection HASH + change
notice in one MULTI) and measures, per client and change, notice written -> event received.

The server (uvicorn + the query app with live push, this process) and the clients (httpx
streams, one child process) share the machine's cores, so latencies include the clients' own
parsing: an upper bound for the server alone.
`redis_connections` is Redis's `connected_clients` while every subscriber is connected: it
stays flat as N grows, because one shared reader task serves every subscriber.
Usage: `python -m services.bench.sse_fanout [N]`; `run()` for the harness.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import sys
import time
from collections.abc import Callable
from typing import Any

import httpx
import redis.asyncio as aioredis
import uvicorn

from services.bench.redis_server import RedisServer, free_port
from services.bench.stats import percentile
from services.bootstrap import Roles, build_app
from services.keys import Keys, shard_of
from services.settings import ServiceSettings

GAME = "bench-sse"


def _standings_json(seq: int) -> str:
    """A valid standings body (domain `Standings`) at `seq`: the pushed payload's real size."""
    players = [
        {
            "player_id": f"p{i}",
            "name": f"Player {i}",
            "seat": i,
            "rank": i,
            "total": 100 - i + seq,
            "categories": {"arcana": seq, "trials": 10 - i},
            "provisional": None,
        }
        for i in range(1, 5)
    ]
    return json.dumps(
        {
            "game_id": GAME,
            "game": "penumbra",
            "status": "in_progress",
            "seq": seq,
            "score_unit": "vp",
            "players": players,
            "winner": None,
            "winners": [],
            "tie_break": None,
            "categories": [
                {"key": "arcana", "en": "Arcana", "ru": "Аркана", "endgame": True},
                {"key": "trials", "en": "Trials", "ru": "Испытания", "endgame": True},
            ],
        }
    )


async def _publish(client: aioredis.Redis, keys: Keys, seq: int) -> None:
    """Write standings at `seq` as the projector does; `updated_at` carries the monotonic
    clock at the write (CLOCK_MONOTONIC is shared by the processes of one machine)."""
    async with client.pipeline(transaction=True) as tx:
        tx.hset(
            keys.projection(GAME),
            mapping={
                "seq": seq,
                "status": "in_progress",
                "game": "penumbra",
                "standings": _standings_json(seq),
                "updated_at": repr(time.monotonic()),
            },
        )
        tx.xadd(keys.changes(shard_of(GAME, keys.shards)), {"game": GAME, "seq": seq})
        await tx.execute()


async def _subscriber(
    http: httpx.AsyncClient, connected: Callable[[], None], latencies: list[float], last_seq: int
) -> None:
    async with http.stream("GET", f"/games/{GAME}/live") as response:
        first = True
        async for line in response.aiter_lines():
            if not line.startswith("data:"):
                continue
            standings = json.loads(line[5:])["standings"]
            if first:  # the snapshot sent on connect
                first = False
                connected()
                continue
            latencies.append((time.monotonic() - float(standings["updated_at"])) * 1000)
            if standings["seq"] >= last_seq:
                return


async def _clients(url: str, n: int, last_seq: int, ready: Any, results: Any) -> None:
    limits = httpx.Limits(max_connections=n + 10, max_keepalive_connections=0)
    latencies: list[float] = []
    count = [0]

    def connected() -> None:
        count[0] += 1
        if count[0] == n:
            ready.set()

    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=120) as http:
        tasks = [
            asyncio.create_task(_subscriber(http, connected, latencies, last_seq)) for _ in range(n)
        ]
        await asyncio.wait(tasks, timeout=600)
    results.put(latencies)


def _client_process(url: str, n: int, last_seq: int, ready: Any, results: Any) -> None:
    asyncio.run(_clients(url, n, last_seq, ready, results))


async def _run(url: str, n_subscribers: int, changes: int, interval_s: float) -> dict[str, Any]:
    keys = Keys(16)
    client = aioredis.Redis.from_url(url)
    await _publish(client, keys, 1)
    app = build_app(
        Roles(ingest=False, inbox=False, projector=False),
        ServiceSettings(redis_url=url, shards=keys.shards),
    )
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(
            app,
            host="127.0.0.1",
            port=port,
            log_level="warning",
            backlog=max(2048, n_subscribers * 2),
            timeout_graceful_shutdown=1,
        )
    )
    serving = asyncio.create_task(server.serve())
    while not server.started:
        await asyncio.sleep(0.02)
    last_seq = changes + 1
    context = multiprocessing.get_context("spawn")
    ready, results = context.Event(), context.Queue()
    clients = context.Process(
        target=_client_process,
        args=(f"http://127.0.0.1:{port}", n_subscribers, last_seq, ready, results),
    )
    try:
        connect_started = time.monotonic()
        clients.start()
        while not ready.is_set():
            if not clients.is_alive() or time.monotonic() - connect_started > 300:
                raise RuntimeError("the client process did not connect every subscriber")
            await asyncio.sleep(0.05)
        connect_s = time.monotonic() - connect_started
        info = await client.info("clients")
        hub_subscribers = app.state.change_hub.subscriber_count
        for seq in range(2, last_seq + 1):
            await _publish(client, keys, seq)
            await asyncio.sleep(interval_s)
        latencies = await asyncio.to_thread(results.get, True, 600)
        await asyncio.to_thread(clients.join, 30)
    finally:
        if clients.is_alive():
            clients.terminate()
        server.should_exit = True
        await serving
        await client.aclose()
    return {
        "subscribers": n_subscribers,
        "changes": changes,
        "deliveries": len(latencies),
        "missed": n_subscribers * changes - len(latencies),
        "latency_ms_p50": round(percentile(latencies, 50), 2) if latencies else None,
        "latency_ms_p99": round(percentile(latencies, 99), 2) if latencies else None,
        "latency_ms_max": round(max(latencies), 2) if latencies else None,
        "connect_all_s": round(connect_s, 2),
        "hub_subscribers": hub_subscribers,
        "redis_connections": int(info["connected_clients"]),
    }


def run(
    n_subscribers: int = 1000,
    changes: int = 20,
    interval_s: float = 0.2,
    redis_url: str | None = None,
) -> dict[str, Any]:
    """Measure SSE fan-out to `n_subscribers` clients over `changes` standings changes.

    Starts a dedicated redis-server unless `redis_url` is given (its db is then written to).
    Returns `{subscribers, changes, deliveries, missed, latency_ms_p50, latency_ms_p99,
    latency_ms_max, connect_all_s, hub_subscribers, redis_connections}`; latencies in ms from
    the change notice's write to the event's receipt by a client.
    """
    if redis_url is not None:
        return asyncio.run(_run(redis_url, n_subscribers, changes, interval_s))
    with RedisServer() as server:
        return asyncio.run(_run(server.url, n_subscribers, changes, interval_s))


if __name__ == "__main__":  # pragma: no cover
    print(json.dumps(run(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)))
