"""A throwaway local Redis Cluster for `scoreledger demo --cluster`: `masters` `redis-server`
processes with `--cluster-enabled yes` on free loopback ports (each port's cluster bus port,
port + 10000, free too), no persistence, their own temp dirs, stopped by their own handles.

The cluster is formed with plain commands, so no `redis-cli` is needed: each node takes an
equal range of the 16384 hash slots (`CLUSTER ADDSLOTSRANGE`), the first node meets the others
(`CLUSTER MEET`), and the cluster is up once every node reports `cluster_state:ok` and knows
every node. Source: https://redis.io/docs/latest/operate/oss_and_stack/reference/cluster-spec/
(hash slots, MEET); https://redis.io/docs/latest/commands/cluster-addslotsrange/ (Redis 7.0).
"""

from __future__ import annotations

import math
import os
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import redis

from services.platform.lifetime import bound_to_parent

SLOTS = 16384
"""Hash slots of every Redis Cluster (CRC16(key) mod 16384)."""


class ClusterStartError(RuntimeError):
    """A node did not start, or the cluster did not reach `cluster_state:ok` in time."""


def free_cluster_port() -> int:
    """A free loopback port P <= 55535 whose cluster bus port P + 10000 is free too."""
    while True:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = int(sock.getsockname()[1])
        if port > 55535:
            continue
        with socket.socket() as bus:
            try:
                bus.bind(("127.0.0.1", port + 10000))
            except OSError:
                continue
        return port


def slot_ranges(masters: int) -> list[tuple[int, int]]:
    """`masters` consecutive (first, last) slot ranges covering 0..16383: the split of
    `redis-cli --cluster create` (redis-cli.c, `clusterManagerCommandCreate`: each range ends
    at round(cursor + 16384 / masters - 1)), so the shards-per-primary table of docs/operating/cluster.md holds."""
    per_node = SLOTS / masters
    ranges: list[tuple[int, int]] = []
    first, cursor = 0, 0.0
    for i in range(masters):
        last = SLOTS - 1 if i == masters - 1 else max(first, math.floor(cursor + per_node - 0.5))
        ranges.append((first, last))
        first, cursor = last + 1, cursor + per_node
    return ranges


def _node_args(exe: str, port: int, data_dir: Path) -> list[str]:
    return [
        exe,
        "--port", str(port),
        "--bind", "127.0.0.1",
        "--cluster-enabled", "yes",
        "--cluster-config-file", "nodes.conf",
        "--cluster-node-timeout", "5000",
        "--dir", str(data_dir),
        "--save", "",
        "--appendonly", "no",
    ]  # fmt: skip


def _wait(check: Callable[[], object], what: str, timeout_s: float) -> None:
    """Poll `check()` every 50 ms until it is true. Raises ClusterStartError after `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            if check():
                return
        except (redis.RedisError, OSError):
            pass
        if time.monotonic() > deadline:
            raise ClusterStartError(f"{what} not within {timeout_s:.0f} s")
        time.sleep(0.05)


def _cluster_ok(clients: list[redis.Redis], nodes: int) -> bool:
    for client in clients:
        info: dict[str, str] = client.execute_command("CLUSTER INFO")  # type: ignore[no-untyped-call]
        if info.get("cluster_state") != "ok" or int(info.get("cluster_known_nodes", 0)) < nodes:
            return False
    return True


def form_cluster(ports: list[int], timeout_s: float = 30.0) -> None:
    """Give each node on `ports` its slot range, join them, wait until every node is `ok`.

    Raises:
        ClusterStartError: not every node reported `cluster_state:ok` within `timeout_s`.
    """
    clients = [redis.Redis(port=p, socket_timeout=2.0, decode_responses=True) for p in ports]
    try:
        for client, (first, last) in zip(clients, slot_ranges(len(ports)), strict=True):
            client.execute_command("CLUSTER ADDSLOTSRANGE", first, last)  # type: ignore[no-untyped-call]
        for port in ports[1:]:
            clients[0].execute_command("CLUSTER MEET", "127.0.0.1", port)  # type: ignore[no-untyped-call]
        _wait(lambda: _cluster_ok(clients, len(ports)), "cluster_state:ok on every node", timeout_s)
    finally:
        for client in clients:
            client.close()


@contextmanager
def throwaway_cluster(exe: str, masters: int = 3) -> Iterator[str]:
    """Run a `masters`-node Redis Cluster from `redis-server` at `exe`; yield its
    `redis+cluster://127.0.0.1:P1,...` URL; stop every node (SIGTERM, SIGKILL after 10 s)
    when the block exits, also when the start fails half-way.

    Raises:
        ClusterStartError: a node did not answer PING within 10 s, or the cluster did not form.
    """
    with (
        tempfile.TemporaryDirectory(prefix="scoreledger-demo-cluster-") as root,
        ExitStack() as stack,
    ):
        ports: list[int] = []
        while len(ports) < masters:
            port = free_cluster_port()
            if port not in ports:
                ports.append(port)
        for port in ports:
            node_dir = Path(root) / str(port)
            node_dir.mkdir()
            proc = subprocess.Popen(
                bound_to_parent(_node_args(exe, port, node_dir), os.getpid()),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            stack.callback(stop_server, proc)
        for port in ports:
            client = redis.Redis(port=port, socket_connect_timeout=0.2)
            try:
                _wait(client.ping, f"redis-server on port {port} answering PING", 10.0)
            finally:
                client.close()
        form_cluster(ports)
        yield "redis+cluster://" + ",".join(f"127.0.0.1:{p}" for p in ports)


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    """Stop a redis-server this module or `localredis` started: SIGTERM, then SIGKILL if it
    has not ended within 10 s."""
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
