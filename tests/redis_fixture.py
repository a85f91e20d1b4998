"""A real Redis for tests: `REDIS_URL`, else testcontainers (if Docker answers), else a local
`redis-server` on a free port; never a silent skip. `SCORELEDGER_TEST_REDIS=cluster` makes the
session's Redis a local Redis Cluster instead (3 primaries + 3 replicas, `tests/redis_cluster.py`,
URL `redis+cluster://...`); `REDIS_URL` still wins. Under pytest-xdist each worker has its own
Redis: its own server (or cluster), or its own database of a shared `REDIS_URL` (`worker_url`).

`RedisServer` is also the helper for durability tests: a dedicated `redis-server` (optionally
with `--appendonly yes`) that a test can stop and start again on the same port and data dir.
Source: docs/development.md ("Recommended fixture").
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import redis

from services.adapters.redis.launcher import RedisProcess, answers_ping
from services.adapters.redis.launcher import free_port as free_port  # the tests' import


def wait_for_ping(url: str, timeout_s: float = 10.0) -> None:
    """Poll PING until the server at `url` answers.

    Raises:
        TimeoutError: no answer within `timeout_s` seconds.
    """
    if not answers_ping(url, timeout_s):
        raise TimeoutError(f"redis at {url} did not answer PING within {timeout_s}s")


class RedisServer(RedisProcess):
    """A dedicated `redis-server` on a free port, stopped by its own handle: the repository's
    launcher (`RedisProcess`), not bound to the starting thread (a test may start one from a
    worker thread).

    `appendonly` turns AOF on (`appendfsync` as given) so data survives `restart()`; without
    it the server keeps nothing on disk (`--save ""`).
    """

    def __init__(
        self, data_dir: Path, *, appendonly: bool = False, appendfsync: str = "always"
    ) -> None:
        super().__init__(data_dir, appendonly=appendonly, appendfsync=appendfsync, bound=False)

    def stop(self, *, kill: bool = False) -> None:
        """See `RedisProcess.stop`; a server a test paused (SIGSTOP) is thawed first, so that
        SIGTERM can end it."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
        super().stop(kill=kill)


def docker_answers() -> bool:
    """True when a Docker engine answers a ping within 2 s."""
    try:
        import docker

        docker.from_env(timeout=2).ping()
    except Exception:
        return False
    return True


TEST_REDIS_ENV = "SCORELEDGER_TEST_REDIS"
XDIST_WORKER_ENV = "PYTEST_XDIST_WORKER"
"""Set by pytest-xdist in each worker process (`gw0`, `gw1`, ...)."""


def worker_index() -> int:
    """This process's pytest-xdist worker number (`gw3` -> 3); 0 outside xdist."""
    name = os.environ.get(XDIST_WORKER_ENV, "")
    return int(name[2:]) if name.startswith("gw") and name[2:].isdigit() else 0


def worker_url(url: str) -> str:
    """`url` for this xdist worker: a single node's database number moved up by the worker
    number (worker 2 of `redis://h:6379/0` gets db 2), so workers sharing one `REDIS_URL` flush
    only their own keys. Outside xdist, and for worker 0, `url` itself.

    Raises:
        ValueError: a cluster URL (one database only) shared by more than one worker, or a
            database number past 15 (Redis' default `databases 16`).
    """
    index = worker_index()
    if index == 0:
        return url
    if url.startswith(("redis+cluster://", "rediss+cluster://")):
        raise ValueError(
            f"REDIS_URL={url} is a cluster (one database): xdist workers would flush each "
            "other's keys; run with `-n 0`, or unset REDIS_URL (each worker starts its own)"
        )
    base, _, db = url.rpartition("/")
    if "://" not in base or not db.isdigit():  # no database in the URL: db 0
        base, db = url.rstrip("/"), "0"
    number = int(db) + index
    if number > 15:
        raise ValueError(f"REDIS_URL={url}: worker {index} would need database {number} (> 15)")
    return f"{base}/{number}"


def redis_mode() -> str:
    """`single` (default) or `cluster`, from `SCORELEDGER_TEST_REDIS`.

    Raises:
        ValueError: any other value (a typo must not silently run on a single node).
    """
    mode = os.environ.get(TEST_REDIS_ENV, "single").strip().lower() or "single"
    if mode not in ("single", "cluster"):
        raise ValueError(f"{TEST_REDIS_ENV}={mode!r}: expected 'single' or 'cluster'")
    return mode


@contextlib.contextmanager
def provide_redis_url(tmp_dir: Path) -> Iterator[str]:
    """Yield the URL of a real Redis for a test session, by the order in the module docstring.

    Raises:
        RuntimeError: none of the three ways works (the caller turns this into pytest.fail).
    """
    if url := os.environ.get("REDIS_URL"):
        url = worker_url(url)  # each xdist worker its own database
        if not url.startswith(("redis+cluster://", "rediss+cluster://")):
            wait_for_ping(url)
        yield url
        return
    if redis_mode() == "cluster":
        from tests.redis_cluster import LocalCluster

        with LocalCluster(tmp_dir, masters=3, replicas=1) as cluster:
            yield cluster.url
        return
    if docker_answers():
        from testcontainers.community.redis import RedisContainer

        with RedisContainer(os.environ.get("TEST_REDIS_IMAGE", "redis:7.4-alpine")) as container:
            host, port = container.get_container_host_ip(), container.get_exposed_port(6379)
            yield f"redis://{host}:{port}/0"
        return
    if shutil.which("redis-server"):
        with RedisServer(tmp_dir) as server:
            yield server.url
        return
    raise RuntimeError("no Redis: set REDIS_URL, start Docker, or install redis-server")


def sync_client(url: str) -> redis.Redis | Any:
    """A synchronous client of `url`: `redis.Redis` on a single node, `redis.cluster.RedisCluster`
    on a `redis+cluster://` URL (same command API)."""
    from redis.cluster import RedisCluster

    from services.adapters.redis.connect import parse_target

    target = parse_target(url)
    if target.cluster:
        return RedisCluster.from_url(target.url)
    return redis.Redis.from_url(url)


def flush_all(url: str) -> None:
    """Empty the Redis at `url`: FLUSHDB on a single node, FLUSHALL on every primary of a
    cluster (`redis+cluster://` URL)."""
    from services.adapters.redis.connect import parse_target

    target = parse_target(url)
    if not target.cluster:
        client = redis.Redis.from_url(url)
        client.flushdb()
        client.close()
        return
    from redis.cluster import RedisCluster

    cluster = RedisCluster.from_url(target.url)
    try:
        cluster.flushall(target_nodes=RedisCluster.PRIMARIES)
    finally:
        cluster.close()


def every_key(client: Any) -> list[Any]:
    """Every key name `client` can reach: `KEYS *` on a single node; on a cluster, on every
    primary (redis-py sends a bare `KEYS` to one node, so it sees a third of a 3-primary
    cluster's keys)."""
    from redis.cluster import RedisCluster

    if isinstance(client, RedisCluster):
        return list(client.keys("*", target_nodes=RedisCluster.PRIMARIES))
    return list(client.keys("*"))
