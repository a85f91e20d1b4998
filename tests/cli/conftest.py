"""Shared data for the CLI tests: the bundled JSONL logs under tests/cli/data/."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from services.adapters.redis.connect import connect
from services.adapters.redis.eventlog import RedisEventLog
from services.adapters.redis.keys import Keys
from services.cli.remote import read_log
from tests.procs import wait_listening
from tests.redis_fixture import free_port

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).parent / "data"
TRICKERION_LOG = DATA / "trickerion-demo.jsonl"
PENUMBRA_LOG = DATA / "penumbra-demo.jsonl"


def run_module(
    module: str, *args: str, env: dict[str, str] | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """`python -m module args...` run from the repository root with `env` (this process's when
    `None`), stdout and stderr captured as text; a failing exit is returned, not raised."""
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def store_log(url: str, log: Path) -> None:
    """Append the game of JSONL file `log` to the Redis at `url` (16 shards), as ingest would."""

    async def append() -> None:
        client = connect(url)
        events = read_log(log)
        await RedisEventLog(client, Keys(16)).append(events[0].game_id, events)
        await client.aclose()

    asyncio.run(append())


@pytest.fixture
def trickerion_log(tmp_path: Path) -> Path:
    """A finished Trickerion game with corrections, a void and an initiative change (11 events),
    copied to a temporary folder (`publish` saves the tokens file beside it)."""
    copy = tmp_path / TRICKERION_LOG.name
    copy.write_bytes(TRICKERION_LOG.read_bytes())
    return copy


@pytest.fixture
def penumbra_log(tmp_path: Path) -> Path:
    """A Penumbra game in progress, with a v1 `game.score_corrected` that is upcast (8 events),
    copied to a temporary folder."""
    copy = tmp_path / PENUMBRA_LOG.name
    copy.write_bytes(PENUMBRA_LOG.read_bytes())
    return copy


def serve_argv(port: int, redis_url: str, *flags: str) -> list[str]:
    """`scoreledger serve <flags>` on 127.0.0.1:`port` over `redis_url`, run by this Python."""
    argv = [sys.executable, "-m", "services.cli.main", "serve", *flags]
    return [*argv, "--port", str(port), "--redis-url", redis_url]


@pytest.fixture
def serve_process(clean_redis_url: str) -> Iterator[Callable[..., str]]:
    """Start `scoreledger serve <flags>` on a free port over the clean Redis; returns its URL.
    Every process started is terminated (by its own handle) after the test."""
    procs: list[subprocess.Popen[bytes]] = []

    def start(*flags: str) -> str:
        port = free_port()
        procs.append(
            subprocess.Popen(
                serve_argv(port, clean_redis_url, *flags),
                cwd=ROOT,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
        url = f"http://127.0.0.1:{port}"
        wait_listening(port, procs[-1])
        with httpx.Client(base_url=url) as client:
            assert client.get("/healthz").status_code == 200
        return url

    try:
        yield start
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(timeout=20)


@pytest.fixture(scope="session")
def cluster_url(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A local Redis Cluster (`redis+cluster://...`): the session's Redis when it is one
    (`SCORELEDGER_TEST_REDIS=cluster`), else a 3-primary cluster started once for this session."""
    if redis_url.startswith(("redis+cluster://", "rediss+cluster://")):
        yield redis_url
        return
    from tests.redis_cluster import LocalCluster

    with LocalCluster(tmp_path_factory.mktemp("cli-cluster"), masters=3) as cluster:
        yield cluster.url


@pytest.fixture
def clean_cluster_url(cluster_url: str) -> str:
    """`cluster_url`, emptied (FLUSHALL on every primary) before the test."""
    from tests.redis_fixture import flush_all

    flush_all(cluster_url)
    return cluster_url
