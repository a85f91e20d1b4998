"""The whole pipeline in one process: an event POSTed to the ingest app is projected by the
projector loop, announced by a change notice, and reaches a subscriber of the push hub as an
SSE frame of `GET /games/{id}/live`. The doors are the real ones (the ingest router, the
projector loop under its shard leases, the hub, the raw ASGI SSE route); the ports come from
`bootstrap` (memory: no Redis, the fast tier; and Redis, single node or Cluster by the
session's Redis, for the `redis` case)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.types import Message

from services.adapters.redis.connect import connect
from services.adapters.redis.keys import Keys
from services.bootstrap import (
    Ports,
    change_hub,
    ingest_app,
    memory_ports,
    projector,
    redis_ports,
    use_cases,
)
from services.doors.push.holds import ClientHolds
from services.doors.push.routes import lean_push_routes
from services.platform.settings import ServiceSettings
from tests.pipeline.factory import corrected, started

SHARDS = 4
TOKEN = "owner-of-the-pipeline-game-0123456789"
GAME = "pipe-1"
DEADLINE_S = 30.0
"""Generous: at load 10 on 2 cores a step can wait seconds for a CPU."""


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
async def ports(request: pytest.FixtureRequest) -> AsyncIterator[Ports]:
    if request.param == "memory":
        yield memory_ports(SHARDS)
        return
    client = connect(request.getfixturevalue("redis_url"))
    await client.flushdb()
    try:
        yield redis_ports(client, Keys(SHARDS))
    finally:
        await client.aclose()


@dataclass
class Stream:
    """One `GET /games/{id}/live` driven over raw ASGI: its body frames as they arrive."""

    frames: asyncio.Queue[bytes] = field(default_factory=asyncio.Queue)
    gone: asyncio.Event = field(default_factory=asyncio.Event)

    async def receive(self) -> Message:
        await self.gone.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.body" and message.get("body"):
            self.frames.put_nowait(message["body"])

    async def event(self) -> dict[str, Any]:
        """The next frame that carries data, as {field: value} (`data` parsed as JSON)."""
        while True:
            async with asyncio.timeout(DEADLINE_S):
                frame = (await self.frames.get()).decode()
            fields = dict(
                line.split(": ", 1)
                for line in frame.splitlines()
                if ": " in line and line[0] != ":"
            )
            if "data" in fields:
                return {**fields, "data": json.loads(fields["data"])}


def scope(path: str) -> dict[str, Any]:
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [],
        "server": ("test", 80),
        "client": ("test", 1),
    }


async def projected_seq(ports: Ports, game_id: str, seq: int) -> None:
    """Wait until the projection of `game_id` is at `seq` (a condition, not a fixed sleep)."""
    async with asyncio.timeout(DEADLINE_S):
        while (await ports.projections.heads([game_id]))[0].seq < seq:
            await asyncio.sleep(0.02)


def totals(standings: dict[str, Any]) -> dict[str, int]:
    return {p["player_id"]: p["total"] for p in standings["players"]}


async def test_a_posted_event_reaches_a_live_subscriber(ports: Ports) -> None:
    settings = ServiceSettings(shards=SHARDS, lease_ttl_ms=5_000)
    cases = use_cases(ports, settings)
    hub = change_hub(ports, SHARDS, block_ms=200)
    sse = Starlette(routes=lean_push_routes(hub, cases.reads, ClientHolds(64)))
    transport = httpx.ASGITransport(app=ingest_app(cases, settings))
    auth = {"Authorization": f"Bearer {TOKEN}"}
    await hub.start()
    try:
        async with (
            projector(ports, cases, settings) as loop,
            httpx.AsyncClient(transport=transport, base_url="http://ingest") as http,
        ):
            assert sorted(loop.held) == list(range(SHARDS))  # the only projector: every shard
            created = await http.post(
                f"/games/{GAME}/events", json=started(GAME).to_wire(), headers=auth
            )
            assert created.status_code == 201, created.text
            await projected_seq(ports, GAME, 1)

            stream = Stream()
            served = asyncio.create_task(
                sse(scope(f"/games/{GAME}/live"), stream.receive, stream.send)
            )
            try:
                first = await stream.event()
                assert first["event"] == "standings"
                assert first["data"]["change"] is None  # the current standings, in full
                assert first["data"]["standings"]["seq"] == 1
                # every magician starts with 5 Fame (`starting_fame`, Trickerion set-up)
                assert totals(first["data"]["standings"]) == {"ann": 5, "bob": 5, "cat": 5}

                bonus = corrected(GAME, 2, "bob", 7).to_wire()
                added = await http.post(f"/games/{GAME}/events", json=bonus, headers=auth)
                assert added.status_code == 201, added.text
                frame = await stream.event()
                while frame["data"]["change"]["seq"] == 1:  # the hub fanned seq 1 out after
                    frame = await stream.event()  # the stream began (a Cluster polls): a repeat
            finally:
                stream.gone.set()
                await asyncio.wait_for(served, DEADLINE_S)
    finally:
        await hub.stop()
    print(f"\nSSE frame after the POST: {frame}")
    change = frame["data"]["change"]
    assert (frame["event"], change["game_id"], change["seq"]) == ("standings", GAME, 2)
    assert frame["id"] == change["entry_id"]  # the notice id: a browser resumes from it
    assert frame["id"] != first["id"]
    assert frame["data"]["compact"] is True
    assert frame["data"]["standings"]["seq"] == 2
    assert totals(frame["data"]["standings"]) == {"ann": 5, "bob": 5 + 7, "cat": 5}
    ranks = {p["player_id"]: p["rank"] for p in frame["data"]["standings"]["players"]}
    assert ranks["bob"] == 1
