"""Projector start-up fails fast (docs/decisions/0011-faults-are-answered-not-crashed.md): Redis unreachable, refused credentials, a script
Redis will not load, a Redis that accepts connections but never answers: `python -m
services.cli.projector` exits non-zero within seconds with one `projector.start_failed` line, no
hang (main's loop retried for ever). A projector paused 4 s during start-up comes up and
projects."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from services.adapters.redis.connect import connect
from services.adapters.redis.eventlog import RedisEventLog
from services.adapters.redis.keys import Keys
from tests.cluster.projectors import ROOT, holders, start_projector
from tests.pipeline.factory import game_log
from tests.pipeline.helpers import wait_projected, wait_until
from tests.redis_fixture import RedisServer, free_port

SHARDS = 4
START_TIMEOUT_S = 3.0
WITHIN_S = 25.0  # the interpreter's start on a loaded machine, plus the start-up timeout

pytestmark = pytest.mark.slow


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[RedisServer]:
    """A dedicated redis-server (the tests pause it and add ACL users to it)."""
    with RedisServer(tmp_path) as server:
        yield server


def run_to_exit(url: str, tmp_path: Path, **env: str) -> tuple[int, float, list[str]]:
    """Start a projector; (exit status, seconds to exit, its non-empty stderr lines)."""
    err = tmp_path / "stderr.log"
    started = time.monotonic()
    proc = start_projector(
        url, SHARDS, err.open("wb"), PROJECTOR_START_TIMEOUT_S=str(START_TIMEOUT_S), **env
    )
    try:
        status = proc.wait(timeout=WITHIN_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        pytest.fail(f"the projector did not exit within {WITHIN_S} s (a hang)")
    took = time.monotonic() - started
    lines = [line for line in err.read_text().splitlines() if line.strip()]
    return status, took, lines


def assert_one_clear_line(status: int, took: float, lines: list[str], says: str) -> None:
    print(f"exit status {status} after {took:.1f} s; stderr lines {len(lines)}: {lines[:2]}")
    assert status == 1
    assert len(lines) == 1, lines
    record = json.loads(lines[0])
    assert record["event"] == "projector.start_failed"
    assert record["level"] == "error"
    assert says in record["error"], record


def test_redis_unreachable_exits_non_zero(tmp_path: Path) -> None:
    url = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    assert_one_clear_line(*run_to_exit(url, tmp_path), says="ConnectionError")


@pytest.mark.redis
def test_refused_credentials_exit_non_zero(own_redis: RedisServer, tmp_path: Path) -> None:
    status = run_to_exit(
        own_redis.url, tmp_path, REDIS_USERNAME="projector", REDIS_PASSWORD="not-the-password"
    )
    assert_one_clear_line(*status, says="AuthenticationError")


def add_user_without_scripts(url: str) -> None:
    """Add ACL user `noscripts` (password `pw`): every command but the script ones."""
    admin = redis.Redis.from_url(url)
    admin.acl_setuser(
        "noscripts", enabled=True, passwords=["+pw"], keys=["*"], commands=["+@all", "-script"]
    )
    admin.close()


@pytest.mark.redis
def test_a_script_redis_will_not_load_exits_non_zero(
    own_redis: RedisServer, tmp_path: Path
) -> None:
    add_user_without_scripts(own_redis.url)
    status = run_to_exit(own_redis.url, tmp_path, REDIS_USERNAME="noscripts", REDIS_PASSWORD="pw")
    assert_one_clear_line(*status, says="NoPermissionError")


@pytest.mark.redis
def test_a_redis_that_never_answers_exits_within_the_start_timeout(
    own_redis: RedisServer, tmp_path: Path
) -> None:
    assert own_redis.proc is not None
    own_redis.proc.send_signal(signal.SIGSTOP)  # connections are accepted, nothing answers
    assert_one_clear_line(*run_to_exit(own_redis.url, tmp_path), says="no answer from Redis")


async def test_a_projector_paused_4_s_during_start_up_comes_up(
    clean_redis_url: str, tmp_path: Path
) -> None:
    keys = Keys(SHARDS)
    client = connect(clean_redis_url)
    logs = {f"paused-{i}": game_log(f"paused-{i}", 20, seed=i) for i in range(8)}
    store = RedisEventLog(client, keys)
    for game_id, events in logs.items():
        await store.append(game_id, events)
    proc = start_projector(clean_redis_url, SHARDS, (tmp_path / "err.log").open("wb"))
    try:
        await asyncio.sleep(0.3)  # inside its start-up (imports, connect, first leases)
        proc.send_signal(signal.SIGSTOP)
        await asyncio.sleep(4)
        proc.send_signal(signal.SIGCONT)
        await wait_projected(client, keys, {g: len(e) for g, e in logs.items()}, timeout_s=30)
        assert proc.poll() is None
    finally:
        proc.send_signal(signal.SIGTERM)
        status = proc.wait(timeout=10)
        await client.aclose()
    print(f"paused 4 s during start-up: every game projected, exit status on SIGTERM {status}")
    assert status == 0  # SIGTERM: a clean exit, leases released


async def test_sigterm_exits_promptly_and_releases_every_lease(clean_redis_url: str) -> None:
    # A cancel that the Redis client turned into an error kept the loop running (2 of 10
    # SIGTERMs hung on a cluster before the loop's stop flag).
    keys = Keys(SHARDS)
    client = connect(clean_redis_url)
    exits = []
    try:
        for round_ in range(6):
            proc = start_projector(clean_redis_url, SHARDS)

            async def holding(pid: int = proc.pid) -> bool:
                owners = (await holders(client, keys)).values()
                return len(owners) == SHARDS and all(f"-{pid}-" in o for o in owners)

            await wait_until(holding, 30, "the projector to hold every shard")
            await asyncio.sleep(0.1 * round_)  # at different points of its loop
            started = time.monotonic()
            proc.send_signal(signal.SIGTERM)
            try:
                status = proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
                pytest.fail(f"SIGTERM round {round_}: no exit within 10 s")
            exits.append(time.monotonic() - started)
            assert status == 0
            assert await holders(client, keys) == {}  # released, not left to expire
    finally:
        await client.aclose()
    print(f"SIGTERM exits {len(exits)}, slowest {max(exits):.2f} s, every lease released")


@pytest.mark.redis
def test_serve_with_the_projector_role_reports_a_refused_script(
    own_redis: RedisServer, tmp_path: Path
) -> None:
    # `scoreledger serve --no-ingest --no-inbox --no-query`: the projector's own start-up
    # failure reaches serve's classifier as its cause (exit 77: a command the ACL refuses)
    add_user_without_scripts(own_redis.url)
    env = {
        **os.environ,
        "SCORELEDGER_REDIS_USERNAME": "noscripts",
        "SCORELEDGER_REDIS_PASSWORD": "pw",
        "SCORELEDGER_LOG_FORMAT": "json",
    }
    env.pop("REDIS_URL", None)
    argv = [sys.executable, "-c", "from services.cli.main import app; app()", "serve"]
    argv += ["--no-ingest", "--no-inbox", "--no-query", "--port", str(free_port())]
    started = time.monotonic()
    done = subprocess.run(
        [*argv, "--redis-url", own_redis.url],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=WITHIN_S,
        check=False,
    )
    last = done.stderr.strip().splitlines()[-1]
    print(f"serve exit {done.returncode} after {time.monotonic() - started:.1f} s: {last}")
    assert done.returncode == 77
    assert last.startswith("scoreledger serve: a role failed to start")
    assert "script|load" in last
