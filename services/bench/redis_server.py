"""A dedicated redis-server for a benchmark run, on a free port, stopped by its own handle.

`appendfsync="everysec"` turns AOF on (the durability variant); otherwise nothing is
persisted. Source: docs/development.md (local redis-server); docs/operating/redis.md (AOF everysec).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType

import redis

from services.platform.lifetime import bound_to_parent


def free_port() -> int:
    """A TCP port on 127.0.0.1 nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class RedisServer:
    """`with RedisServer() as server: server.url ...`; AOF everysec when `aof` is True."""

    def __init__(self, aof: bool = False) -> None:
        exe = shutil.which("redis-server")
        if exe is None:
            raise FileNotFoundError("redis-server is not on the PATH (make system-deps)")
        self.exe, self.aof, self.port = exe, aof, free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="bench-redis-"))
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def __enter__(self) -> RedisServer:
        args = [
            self.exe,
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--dir",
            str(self.dir),
            "--appendonly",
            "yes" if self.aof else "no",
        ]
        if self.aof:
            args += ["--appendfsync", "everysec"]
        self.proc = subprocess.Popen(
            bound_to_parent(args, os.getpid()),  # ends with a killed harness too
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        client = redis.Redis(port=self.port, socket_connect_timeout=0.5)
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        client.close()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
        shutil.rmtree(self.dir, ignore_errors=True)

    def flush(self) -> None:
        client = redis.Redis(port=self.port)
        client.flushall()
        client.close()
