"""Finding a Redis for `scoreledger demo`: `REDIS_URL` if it answers, else a throwaway local
`redis-server` on a free port (no persistence, its own temp dir, stopped by its own process
handle), else an explanation of how to get one. Source: research/tech.md §4 (fixture order).
"""

from __future__ import annotations

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


def answers(url: str, timeout_s: float = 1.0) -> bool:
    """True when the Redis at `url` answers PING within `timeout_s`."""
    client = redis.Redis.from_url(url, socket_connect_timeout=timeout_s, socket_timeout=timeout_s)
    try:
        return bool(client.ping())
    except (redis.RedisError, OSError):
        return False
    finally:
        client.close()


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
        proc = subprocess.Popen(
            [
                exe,
                "--port",
                str(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                data_dir,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        url = f"redis://127.0.0.1:{port}/0"
        try:
            _wait_until_answers(url, proc)
            yield url
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


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
def demo_redis(configured_url: str | None) -> Iterator[DemoRedis]:
    """The Redis for the demo, in the order of the module docstring.

    Raises:
        NoRedis: no way to get one; the message says how (`HOW_TO_GET_REDIS`).
    """
    if configured_url and answers(configured_url):
        yield DemoRedis(configured_url, throwaway=False)
        return
    exe = shutil.which("redis-server")
    if exe is None:
        reason = (
            f"REDIS_URL={configured_url} does not answer. "
            if configured_url
            else "REDIS_URL is not set and "
        )
        raise NoRedis(reason + "redis-server is not on the PATH.\n" + HOW_TO_GET_REDIS)
    with throwaway_redis(exe) as url:
        yield DemoRedis(url, throwaway=True)
