"""The one way this repository starts a `redis-server`: the demo's throwaway server and cluster
nodes, the benchmark's servers and the tests' servers and cluster nodes are each a
`RedisProcess`: a loopback port (free, or given), its own data directory, no RDB snapshots,
AOF only when asked, stopped by its own process handle, and bound to the process that started
it (a killed parent takes it along; `bound=False` leaves that out, for a caller that starts
servers from threads that end before them). Source: docs/development.md (local redis-server);
docs/operating/redis.md (AOF); docs/operating/cluster.md (cluster nodes).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Self

import redis

from services.platform.lifetime import bound_to_parent

START_TIMEOUT_S = 10.0
"""How long a started server gets to answer PING."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def free_cluster_port() -> int:
    """A free loopback port P <= 55535 whose cluster bus port P + 10000 is free too."""
    while True:
        port = free_port()
        if port > 55535:
            continue
        with socket.socket() as bus:
            try:
                bus.bind(("127.0.0.1", port + 10000))
            except OSError:
                continue
        return port


def answers_ping(url: str, timeout_s: float, gone: Callable[[], bool] | None = None) -> bool:
    """Poll PING at `url` every 50 ms: True once it answers; False after `timeout_s`, or as
    soon as `gone()` says it never will (its process exited)."""
    deadline = time.monotonic() + timeout_s
    client = redis.Redis.from_url(url, socket_connect_timeout=0.5)
    try:
        while True:
            try:
                if client.ping():
                    return True
            except (redis.AuthenticationError, redis.ResponseError):
                return True  # it answers, refusing an unauthenticated PING (an ACL under test)
            except redis.ConnectionError:
                pass
            if (gone is not None and gone()) or time.monotonic() > deadline:
                return False
            time.sleep(0.05)
    finally:
        client.close()


def server_exe() -> str:
    """The `redis-server` on the PATH.

    Raises:
        FileNotFoundError: there is none (the message says how to get it).
    """
    exe = shutil.which("redis-server")
    if exe is None:
        raise FileNotFoundError(
            "redis-server is not on the PATH (apt-get install redis-server, or make system-deps)"
        )
    return exe


class RedisProcess:
    """One `redis-server` on 127.0.0.1:`port` (a free one unless given) with `data_dir` as its
    directory; `start()` waits until it answers PING; `stop()` SIGTERMs it (SIGKILL: `kill`);
    `restart()` starts it again on the same port and directory; also a context manager.

    `appendonly` turns AOF on with `appendfsync` (`always`, `everysec`); `cluster` makes it a
    cluster node (`nodes.conf` in `data_dir`, `cluster_node_timeout_ms`); `extra` are further
    `--name value` arguments; `log` receives its output (else it is dropped); `bound`: ends
    with the starting process (module docstring). `config`: a configuration file (a shipped
    one, under test) read first; then the command line sets only the port, the loopback bind
    address, the directory and `extra`, so the file's persistence and cluster settings hold.
    """

    def __init__(
        self,
        data_dir: Path,
        *,
        port: int | None = None,
        exe: str | None = None,
        appendonly: bool = False,
        appendfsync: str = "always",
        cluster: bool = False,
        cluster_node_timeout_ms: int = 5000,
        extra: Sequence[str] = (),
        log: Path | None = None,
        bound: bool = True,
        config: Path | None = None,
    ) -> None:
        self.exe = exe or server_exe()
        self.data_dir = data_dir
        self.port = port if port is not None else (free_cluster_port() if cluster else free_port())
        self.appendonly = appendonly
        self.appendfsync = appendfsync
        self.cluster = cluster
        self.cluster_node_timeout_ms = cluster_node_timeout_ms
        self.extra = list(extra)
        self.log = log
        self.bound = bound
        self.config = config
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """`redis://127.0.0.1:<port>/0`."""
        return f"redis://127.0.0.1:{self.port}/0"

    def args(self) -> list[str]:
        """The command line of the server."""
        if self.config is not None:
            where = ["--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.data_dir)]
            return [self.exe, str(self.config), *where, *self.extra]
        args = [self.exe, "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
        args += ["--dir", str(self.data_dir), "--appendonly", "yes" if self.appendonly else "no"]
        if self.appendonly:
            args += ["--appendfsync", self.appendfsync]
        if self.cluster:
            args += ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"]
            args += ["--cluster-node-timeout", str(self.cluster_node_timeout_ms)]
        return args + self.extra

    def start(self) -> Self:
        """Start the server and wait until it answers PING.

        Raises:
            TimeoutError: no answer within `START_TIMEOUT_S` (the message says whether the
                process exited, and with the log's end when there is a log).
        """
        self.data_dir.mkdir(parents=True, exist_ok=True)
        out = self.log.open("ab") if self.log is not None else subprocess.DEVNULL
        try:
            args = bound_to_parent(self.args(), os.getpid()) if self.bound else self.args()
            self.proc = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT)
        finally:
            if not isinstance(out, int):
                out.close()
        self._wait_for_ping()
        return self

    def _wait_for_ping(self) -> None:
        def exited() -> bool:
            return self.proc is not None and self.proc.poll() is not None

        if not answers_ping(self.url, START_TIMEOUT_S, exited):
            raise TimeoutError(self._why_not())

    def _why_not(self) -> str:
        code = self.proc.poll() if self.proc is not None else None
        state = f"exited with code {code}" if code is not None else "did not answer PING"
        tail = ""
        if self.log is not None and self.log.exists():
            tail = ":\n" + self.log.read_text(errors="replace")[-600:]
        return f"redis-server on port {self.port} {state} within {START_TIMEOUT_S:g} s{tail}"

    def stop(self, *, kill: bool = False) -> None:
        """Stop the server: SIGTERM (a clean shutdown), or SIGKILL when `kill` (a crash);
        SIGKILL after 10 s of a SIGTERM it did not end on."""
        if self.proc is None:
            return
        if kill:
            self.proc.kill()
        else:
            self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self.proc = None

    def restart(self, *, kill: bool = False) -> None:
        """Stop (or kill) and start again on the same port and data directory."""
        self.stop(kill=kill)
        self.start()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
