"""The replay limits at the HTTP door: over a client's cap a 429, over the queue's bound a 503,
both `application/problem+json` naming the rule and the setting, with `Retry-After`; `/metrics`
shows the queue; live standings do not go through it; the client is the peer address, and
X-Forwarded-For counts only from a trusted proxy (uvicorn's middleware as `serve` sets it up).
The queue is held by a fake job the test releases (no timing). Source: issue brief (fair,
bounded replay work)."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from fastapi import FastAPI, Request
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from contracts.envelope import Envelope
from services.bootstrap import Assembled, Roles, assemble, build
from services.cli.serve import uvicorn_server
from services.doors.asgi.replaylimits import client_of
from services.platform.settings import ServiceSettings
from services.runtime.fairqueue import Limits
from tests.query.conftest import Seeder, load

pytestmark = pytest.mark.redis

PEER = "127.0.0.1"  # httpx's ASGI transport's client address


async def _queried_demo(redis_url: str, seeder: Seeder) -> tuple[list[Envelope], Assembled]:
    """The Penumbra demo game stored and projected, and a query-only app on `redis_url`."""
    events = load("penumbra-demo.jsonl")
    await seeder.seed(events)
    roles = Roles(ingest=False, inbox=False, projector=False)
    return events, assemble(build(ServiceSettings(redis_url=redis_url, shards=16)), roles)


async def test_over_the_bounds_429_and_503_with_retry_after_and_the_setting(
    clean_redis_url: str, seeder: Seeder
) -> None:
    events, built = await _queried_demo(clean_redis_url, seeder)
    game = events[0].game_id
    app = built.app
    queue = built.service.cases.reads.replays.queue  # the one /metrics reads
    queue.limits = Limits(slots=1, queued=0, per_client=1, deadline_s=60)
    gate: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    async def hold() -> None:
        await gate

    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://query") as api:
            held = asyncio.ensure_future(queue.run(PEER, "other", hold))  # PEER's one replay
            await asyncio.sleep(0)
            mine = await api.get(f"/games/{game}/standings?at_seq=5")
            assert mine.status_code == 429
            assert mine.headers["content-type"] == "application/problem+json"
            assert int(mine.headers["retry-after"]) >= 1
            body = mine.json()
            assert body["rule"] == "replay.client_limit"
            assert body["limit"] == "SCORELEDGER_REPLAY_PER_CLIENT"
            assert body["limit_value"] == 1
            queue.limits = Limits(slots=1, queued=0, per_client=5, deadline_s=60)
            full = await api.get(f"/games/{game}/dispute/{events[3].event_id}")
            assert full.status_code == 503
            assert full.json()["rule"] == "replay.queue_full"
            assert full.json()["limit"] == "SCORELEDGER_REPLAY_QUEUE"
            assert int(full.headers["retry-after"]) >= 1
            live = await api.get(f"/games/{game}/standings")  # never queued
            assert live.status_code == 200
            metrics = (await api.get("/metrics")).text
            assert "scoreledger_replay_running 1.0" in metrics
            assert 'scoreledger_replay_refused_total{rule="replay.client_limit"} 1.0' in metrics
            assert 'scoreledger_replay_refused_total{rule="replay.queue_full"} 1.0' in metrics
            assert "scoreledger_replay_wait_seconds_count 1.0" in metrics
            gate.set_result(None)
            await held
            again = await api.get(f"/games/{game}/standings?at_seq=5")
            assert again.status_code == 200
            assert again.json()["seq"] == 5


async def _client_seen(trusted: tuple[str, ...], peer: str, forwarded: str) -> str:
    """The client `client_of` sees behind uvicorn's proxy middleware as `serve` configures it."""
    seen: list[str] = []
    probe = FastAPI()

    @probe.get("/who")
    async def who(request: Request) -> dict[str, str]:
        seen.append(client_of(request))
        return {}

    config = uvicorn_server(probe, "127.0.0.1", 0, trusted_proxies=trusted).config
    app = (
        ProxyHeadersMiddleware(probe, config.forwarded_allow_ips) if config.proxy_headers else probe
    )
    transport = httpx.ASGITransport(app=app, client=(peer, 1234))  # type: ignore[arg-type]
    async with httpx.AsyncClient(transport=transport, base_url="http://q") as client:
        await client.get("/who", headers={"X-Forwarded-For": forwarded})
    return seen[0]


async def test_x_forwarded_for_counts_only_from_a_trusted_proxy() -> None:
    assert await _client_seen((), "127.0.0.1", "203.0.113.9") == "127.0.0.1"
    assert await _client_seen(("10.0.0.0/8",), "10.1.2.3", "203.0.113.9") == "203.0.113.9"
    assert await _client_seen(("10.0.0.0/8",), "192.0.2.1", "203.0.113.9") == "192.0.2.1"


async def test_the_jsonl_export_is_chunked_through_the_replay_queue(
    clean_redis_url: str, seeder: Seeder
) -> None:
    """`events.jsonl` read the whole log outside the queue: now each chunk of `export_chunk`
    events is one turn of the queue (91 events in chunks of 10: 10 turns), a client at its limit
    gets 429 before the answer starts, and the bytes are the stored log as before."""
    events, built = await _queried_demo(clean_redis_url, seeder)
    game = events[0].game_id
    app = built.app
    reads = built.service.cases.reads
    reads.export_chunk = 3
    queue = reads.replays.queue
    queue.limits = Limits(slots=1, queued=8, per_client=1, deadline_s=60)
    gate: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    async def hold() -> None:
        await gate

    stored = b"".join(raw + b"\n" for raw in await reads.log.read_raw(game, 1, len(events)))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://query") as api:
            held = asyncio.ensure_future(queue.run(PEER, "other", hold))
            await asyncio.sleep(0)
            busy = await api.get(f"/games/{game}/export/events.jsonl")
            assert busy.status_code == 429
            assert busy.json()["rule"] == "replay.client_limit"
            assert int(busy.headers["retry-after"]) >= 1
            gate.set_result(None)
            await held
            before = queue.counts.admitted
            export = await api.get(f"/games/{game}/export/events.jsonl")
            assert export.status_code == 200
            assert export.headers["content-type"] == "application/x-ndjson; charset=utf-8"
            assert export.content == stored
            assert len(export.content.splitlines()) == len(events) == 8
            assert queue.counts.admitted - before == 3  # seqs 1-3, 4-6, 7-8
            missing = await api.get("/games/no-such-game/export/events.jsonl")
            assert missing.status_code == 404
