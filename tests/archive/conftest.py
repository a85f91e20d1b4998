"""A whole service (ingest, projector, query; every route over HTTP) on the session's Redis
with an archive (a directory, or PostgreSQL), the example games published through ingest
and projected; sealing is driven by the test (`Stack.seal`), not by a timer."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from services.adapters.redis.keys import Keys
from services.archive.doors.archiver import seal_all
from services.bootstrap import Assembled, Roles, assemble, build
from services.platform.settings import ServiceSettings
from services.ports.shards import shard_of
from tests.pipeline.helpers import wait_until
from tests.redis_fixture import every_key, sync_client

EXAMPLES = Path(__file__).resolve().parents[2] / "contracts" / "examples"
TOKEN = "archive-test-token-0123456789abcdefghijklmnop"


def example_logs() -> dict[str, list[bytes]]:
    """game id -> the example game's JSONL lines (contracts/examples/*.jsonl)."""
    out: dict[str, list[bytes]] = {}
    for path in sorted(EXAMPLES.glob("*.jsonl")):
        lines = [line for line in path.read_bytes().splitlines() if line.strip()]
        out[json.loads(lines[0])["game_id"]] = lines
    return out


@dataclass
class Stack:
    """The running service, its HTTP client and the Redis it uses."""

    assembled: Assembled
    http: httpx.AsyncClient
    redis_url: str
    keys: Keys

    async def seal(self) -> dict[str, int]:
        seal = self.assembled.service.cases.seal
        assert seal is not None
        return await seal_all(seal, 100)

    def redis_keys_of(self, game_id: str) -> list[str]:
        """Every Redis key whose name holds the game id, or that holds it (index, held)."""
        client = sync_client(self.redis_url)
        every = [k.decode() if isinstance(k, bytes) else str(k) for k in every_key(client)]
        names = [k for k in every if game_id in k]
        for shard in range(self.keys.shards):
            if client.zscore(self.keys.game_index(shard), game_id) is not None:
                names.append(self.keys.game_index(shard))
            if client.hexists(self.keys.held(shard), game_id):
                names.append(self.keys.held(shard))
        return names

    async def publish(self, game_id: str, lines: list[bytes]) -> None:
        body = "[" + ",".join(line.decode() for line in lines) + "]"
        answer = await self.http.post(
            f"/games/{game_id}/events",
            content=body,
            headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"},
        )
        assert answer.status_code == 201, answer.text

    async def wait_final(self, game_id: str, seq: int) -> None:
        async def done() -> bool:
            got = await self.http.get(f"/games/{game_id}/standings")
            return got.status_code == 200 and got.json()["seq"] == seq

        await wait_until(done, 60, f"{game_id} projected to {seq}")
        # an append's live projection shows `seq` before the projector passes the entries:
        # wait for it too, so the standings' `checkpoint` (the projector's position) holds still
        shard = shard_of(game_id, self.keys.shards)
        client = sync_client(self.redis_url)

        async def passed() -> bool:
            last = client.xrevrange(self.keys.feed(shard), count=1)
            return bool(last) and client.get(self.keys.checkpoint(shard)) == last[0][0]

        try:
            await wait_until(passed, 60, f"the projector past {game_id}'s feed entries")
        finally:
            client.close()


@pytest.fixture(params=["directory", pytest.param("postgres", marks=pytest.mark.postgres)])
def archive_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "directory":
        return f"file://{tmp_path}/archive"
    return str(request.getfixturevalue("postgres_url"))


async def start_stack(redis_url: str, archive_url: str, **extra: Any) -> Stack:
    settings = ServiceSettings(
        redis_url=redis_url,
        archive_url=archive_url,  # type: ignore[arg-type]
        archive_after_s=0,
        lease_ttl_ms=2000,
        **extra,
    )
    assembled = assemble(build(settings), Roles(inbox=False))
    transport = httpx.ASGITransport(app=assembled.app)
    http = httpx.AsyncClient(transport=transport, base_url="http://sl", timeout=60)
    return Stack(assembled, http, redis_url, Keys(settings.shards))


@pytest.fixture
async def stack(clean_redis_url: str, archive_url: str) -> AsyncIterator[Stack]:
    """The service with every example game published and projected final."""
    built = await start_stack(clean_redis_url, archive_url)
    app = built.assembled.app
    async with app.router.lifespan_context(app), built.http:
        for game_id, lines in example_logs().items():
            await built.publish(game_id, lines)
            await built.wait_final(game_id, len(lines))
        yield built


def new_event_id() -> str:
    return str(uuid.uuid4())
