"""`scoreledger serve` as a real process: the projector and query roles over a real Redis."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from services.adapters.redis.connect import connect
from services.adapters.redis.eventlog import RedisEventLog
from services.adapters.redis.keys import Keys
from services.cli.remote import read_log
from tests.cli.conftest import ROOT
from tests.procs import wait_listening
from tests.redis_fixture import free_port

pytestmark = pytest.mark.redis
LOG = Path(__file__).parent / "data" / "penumbra-demo.jsonl"


def test_serve_projects_and_answers_queries(
    serve_process: Callable[..., str], clean_redis_url: str
) -> None:
    served = serve_process("--no-ingest", "--no-inbox")

    async def append() -> None:
        client = connect(clean_redis_url)
        events = read_log(LOG)
        await RedisEventLog(client, Keys(16)).append("pe-demo-1", events)
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
        assert "\nscoreledger_projection_lag_events " in client.get("/metrics").text
        assert client.post("/games/pe-demo-1/events", content="[]").status_code in (
            404,
            405,
        )  # no ingest role


@pytest.mark.parametrize("enabled", [False, True])
def test_access_log_lines_only_when_asked(
    clean_redis_url: str, tmp_path: Path, enabled: bool
) -> None:
    """`SCORELEDGER_ACCESS_LOG`: off by default (requests are counted in /metrics), one uvicorn
    access line per request when set."""
    port = free_port()
    env = {**os.environ, "SCORELEDGER_ACCESS_LOG": "true" if enabled else "false"}
    out = tmp_path / "serve.log"
    roles = ["--query", "--no-ingest", "--no-inbox", "--no-projector"]
    where = ["--port", str(port), "--redis-url", clean_redis_url]
    with out.open("wb") as sink:
        proc = subprocess.Popen(
            [sys.executable, "-m", "services.cli.main", "serve", *roles, *where],
            cwd=ROOT,
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
        try:
            wait_listening(port, proc)
            with httpx.Client(base_url=f"http://127.0.0.1:{port}") as http:
                for _ in range(3):
                    assert http.get("/healthz").status_code == 200
        finally:
            proc.terminate()
            proc.wait(timeout=20)
    lines = [line for line in out.read_text().splitlines() if "GET /healthz" in line]
    print(f"\naccess log {enabled}: {len(lines)} lines for 3 requests")
    assert len(lines) == (3 if enabled else 0)
