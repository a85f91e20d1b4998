"""`scoreledger serve` as a real process: the projector and query roles over a real Redis."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis.asyncio as aioredis

from services.cli.remote import read_log
from services.keys import Keys
from services.store import EventStore
from tests.redis_fixture import free_port

pytestmark = pytest.mark.redis
ROOT = Path(__file__).resolve().parents[2]
LOG = Path(__file__).parent / "data" / "penumbra-demo.jsonl"


@pytest.fixture
def served(clean_redis_url: str) -> Iterator[str]:
    """`scoreledger serve --no-ingest --no-inbox` (projector + query) on a free port; its URL."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "services.cli.main", "serve", "--no-ingest", "--no-inbox",
         "--port", str(port), "--redis-url", clean_redis_url],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    transport = httpx.HTTPTransport(retries=7)  # httpcore's connect retries with backoff (~30 s)
    try:
        with httpx.Client(transport=transport, base_url=url) as client:
            assert client.get("/healthz").status_code == 200
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_serve_projects_and_answers_queries(served: str, clean_redis_url: str) -> None:
    async def append() -> None:
        client = aioredis.Redis.from_url(clean_redis_url)
        events = read_log(LOG)
        await EventStore(client, Keys(16)).append("pe-demo-1", events)
        await client.aclose()

    asyncio.run(append())
    with httpx.Client(base_url=served, timeout=10) as client:
        for _ in range(200):
            response = client.get("/games/pe-demo-1/standings")
            if response.status_code == 200 and response.json()["seq"] == 8:
                break
            time.sleep(0.05)  # the projector catches up asynchronously
        assert response.status_code == 200, response.text
        assert [p["total"] for p in response.json()["players"]] == [4, 4]
        assert client.get("/readyz").json()["checks"]["projection_lag_events"] == 0
        assert "projection_lag_events" in client.get("/metrics").text
        assert client.post("/games/pe-demo-1/events", content="[]").status_code in (404, 405)  # no ingest role
