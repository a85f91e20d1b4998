"""Finding a Redis for `scoreledger demo`: `REDIS_URL` if it answers (a single node or a
`redis+cluster://` URL, through the app's own client, `connect`), else a throwaway local
`redis-server` on a free port (no persistence, its own temp dir, stopped by its own process
handle) or, with `--cluster`, a throwaway 3-master Redis Cluster (`services.adapters.redis.localcluster`),
else an explanation of how to get one. Source: docs/development.md (fixture order).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import redis
from redis.backoff import ConstantBackoff
from redis.retry import Retry

from services.adapters.redis.connect import connect, parse_target
from services.adapters.redis.localcluster import ClusterStartError, stop_server, throwaway_cluster
from services.platform.lifetime import bound_to_parent

HOW_TO_GET_REDIS = (
    "scoreledger demo needs Redis 7. Either install it "
    "(Debian/Ubuntu: `apt-get install redis-server`, "
    "then run the demo again: it starts a throwaway server itself), or run one with Docker "
    "(`docker compose -f deploy/compose.yaml up redis`) and set REDIS_URL=redis://127.0.0.1:6379/0."
)


class NoRedis(RuntimeError):
    """Neither a reachable `REDIS_URL` nor `redis-server` on the PATH."""


@dataclass(frozen=True, slots=True)
class DemoRedis:
    """The Redis the demo uses: its URL and whether it is a throwaway server started for it."""

    url: str
    throwaway: bool
    cluster: bool = False


def answers(url: str, timeout_s: float = 1.0, *, cluster: bool = False) -> bool:
    """True when the Redis at `url` (a single node, or a cluster by `redis+cluster://` or
    `cluster`) answers PING within `timeout_s`, through the services' own client (`connect`).
    A bad cluster URL counts as no answer."""

    async def ping() -> bool:
        client = connect(
            url,
            cluster=cluster,
            socket_timeout_s=timeout_s,
            connect_timeout_s=timeout_s,
            pool_timeout_s=timeout_s,
            retries=0,
        )
        try:
            return bool(await client.ping())
        finally:
            await client.aclose()

    try:
        return asyncio.run(asyncio.wait_for(ping(), timeout_s * 3))
    except (redis.RedisError, OSError, ValueError, TimeoutError):
        return False


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def throwaway_redis(exe: str) -> Iterator[str]:
    """Run `redis-server` on a free loopback port with no persistence; yield its URL; stop it
    (SIGTERM, then SIGKILL after 10 s) by its own handle when the block exits.

    Raises:
        NoRedis: it did not answer PING within 10 s.
    """
    with tempfile.TemporaryDirectory(prefix="scoreledger-demo-redis-") as data_dir:
        port = _free_port()
        args = [exe, "--port", str(port), "--bind", "127.0.0.1", "--save", ""]
        args += ["--appendonly", "no", "--dir", data_dir]
        proc = subprocess.Popen(
            bound_to_parent(args, os.getpid()),  # a demo killed by SIGKILL stops it too
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        url = f"redis://127.0.0.1:{port}/0"
        try:
            _wait_until_answers(url, proc)
            yield url
        finally:
            stop_server(proc)


def _wait_until_answers(url: str, proc: subprocess.Popen[bytes]) -> None:
    """PING with redis-py's own retry (every 50 ms, about 10 s in all) until the server is up."""
    client = redis.Redis.from_url(
        url,
        socket_connect_timeout=0.2,
        retry=Retry(ConstantBackoff(0.05), retries=200),
        retry_on_error=[redis.ConnectionError],
    )
    try:
        client.ping()
    except (redis.RedisError, OSError):
        state = (
            f"exited with code {proc.returncode}"
            if proc.poll() is not None
            else "did not answer PING"
        )
        raise NoRedis(f"the throwaway redis-server at {url} {state}") from None
    finally:
        client.close()


@contextmanager
def demo_redis(
    configured_url: str | None, *, cluster: bool = False, start_cluster: bool = False
) -> Iterator[DemoRedis]:
    """The Redis for the demo, in the order of the module docstring: `configured_url` (a cluster
    when `cluster` or a `redis+cluster://` URL), else a throwaway `redis-server`, or a throwaway
    3-master cluster with `start_cluster`.

    Raises:
        NoRedis: no way to get one; the message says how (`HOW_TO_GET_REDIS`), or the throwaway
            cluster did not form.
    """
    if configured_url and answers(configured_url, cluster=cluster):
        is_cluster = parse_target(configured_url, cluster).cluster
        yield DemoRedis(configured_url, throwaway=False, cluster=is_cluster)
        return
    exe = shutil.which("redis-server")
    if exe is None:
        reason = (
            f"REDIS_URL={configured_url} does not answer. "
            if configured_url
            else "REDIS_URL is not set and "
        )
        raise NoRedis(reason + "redis-server is not on the PATH.\n" + HOW_TO_GET_REDIS)
    if start_cluster:
        try:
            with throwaway_cluster(exe) as url:
                yield DemoRedis(url, throwaway=True, cluster=True)
        except ClusterStartError as error:
            raise NoRedis(f"the throwaway Redis Cluster did not start: {error}") from None
        return
    with throwaway_redis(exe) as url:
        yield DemoRedis(url, throwaway=True)
