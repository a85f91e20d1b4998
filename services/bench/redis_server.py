"""A dedicated redis-server for a benchmark run: the repository's one launcher
(`services.adapters.redis.launcher.RedisProcess`) on a free port, in a temporary directory that
is removed after, stopped by its own handle.

`aof=True` turns AOF on with `appendfsync everysec` (the durability variant); otherwise nothing
is persisted. Source: docs/development.md (local redis-server); docs/operating/redis.md (AOF
everysec).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import redis

from services.adapters.redis.launcher import RedisProcess, free_port

__all__ = ["RedisServer", "free_port"]


class RedisServer(RedisProcess):
    """`with RedisServer() as server: server.url ...`; AOF everysec when `aof` is True."""

    def __init__(self, aof: bool = False) -> None:
        directory = Path(tempfile.mkdtemp(prefix="bench-redis-"))
        super().__init__(directory, appendonly=aof, appendfsync="everysec")
        self.aof = aof
        self.dir = directory

    def __exit__(self, *exc: object) -> None:
        super().__exit__(*exc)
        shutil.rmtree(self.dir, ignore_errors=True)

    def flush(self) -> None:
        """FLUSHALL: empty the server between measurements."""
        client = redis.Redis(port=self.port)
        client.flushall()
        client.close()
