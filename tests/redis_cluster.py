"""A local Redis Cluster from `redis-server` itself: `masters` primaries and `replicas` replicas
per primary, on free loopback ports, each node in its own directory under `data_dir`, created
with `redis-cli --cluster create` and stopped by its own process handles.

    with LocalCluster(tmp_path, masters=3, replicas=1) as cluster:
        cluster.url        # redis+cluster://127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3
        cluster.kill(port) # SIGKILL one node (a crash); its replica is promoted after the
                           # node timeout (`node_timeout_ms`); `start_node(port)` brings it back

Run `python -m tests.redis_cluster` for a cluster to point `REDIS_URL` at by hand (Ctrl-C stops).
Source: https://redis.io/docs/latest/operate/oss_and_stack/management/scaling/ (create, failover).
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import redis
from redis.cluster import RedisCluster

from services.adapters.redis.launcher import RedisProcess, free_cluster_port


class LocalCluster:
    """A throwaway Redis Cluster of `masters` x (1 + `replicas`) `redis-server` processes.

    Raises (from `start`): FileNotFoundError (no redis-server / redis-cli on the PATH),
    TimeoutError (the cluster did not reach `cluster_state:ok` within 30 s).
    """

    def __init__(
        self, data_dir: Path, *, masters: int = 3, replicas: int = 0, node_timeout_ms: int = 2000
    ) -> None:
        server, cli = shutil.which("redis-server"), shutil.which("redis-cli")
        if server is None or cli is None:
            raise FileNotFoundError(
                "redis-server / redis-cli not on the PATH (apt-get install redis-server)"
            )
        self.server_exe, self.cli_exe = server, cli
        self.data_dir = data_dir
        self.masters, self.replicas = masters, replicas
        self.node_timeout_ms = node_timeout_ms
        self.ports: list[int] = []
        while len(self.ports) < masters * (1 + replicas):
            port = free_cluster_port()
            if port not in self.ports:
                self.ports.append(port)
        self.procs: dict[int, RedisProcess] = {}

    @property
    def url(self) -> str:
        """A `redis+cluster://` URL listing the first `masters` nodes as startup nodes."""
        hosts = ",".join(f"127.0.0.1:{p}" for p in self.ports[: self.masters])
        return f"redis+cluster://{hosts}"

    def start_node(self, port: int) -> None:
        """Start (or restart) the node on `port` with its own dir and nodes.conf (the
        repository's launcher, `RedisProcess`; its output in the dir's redis.log)."""
        node_dir = self.data_dir / str(port)
        node = RedisProcess(
            node_dir,
            port=port,
            exe=self.server_exe,
            cluster=True,
            cluster_node_timeout_ms=self.node_timeout_ms,
            extra=[
                "--enable-debug-command",
                "local",
            ],  # DEBUG SLEEP: a failover test lags a replica
            log=node_dir / "redis.log",
            bound=False,  # as the session's other servers: stopped by the fixture
        )
        self.procs[port] = node
        try:
            node.start()
        except TimeoutError as error:
            raise TimeoutError(f"cluster node {port} did not start: {error}") from None

    def start(self) -> LocalCluster:
        """Start every node, create the cluster, wait until every node says `cluster_state:ok`."""
        try:
            for port in self.ports:
                self.start_node(port)
            nodes = [f"127.0.0.1:{p}" for p in self.ports]
            replicas = ["--cluster-replicas", str(self.replicas), "--cluster-yes"]
            subprocess.run(
                [self.cli_exe, "--cluster", "create", *nodes, *replicas],
                check=True,
                capture_output=True,
                timeout=60,
            )
            self.wait_ok()
        except BaseException:
            self.stop()  # no orphan servers when the start fails half-way
            raise
        return self

    def wait_ok(self, timeout_s: float = 30.0) -> None:
        """Wait until every running node reports `cluster_state:ok` and knows every node, and
        every replica's link to its primary is up.

        Raises:
            TimeoutError: not within `timeout_s`.
        """
        deadline = time.monotonic() + timeout_s
        while not all(self._node_ok(p) for p in self.procs):
            if time.monotonic() > deadline:
                raise TimeoutError(f"cluster on {self.ports} not ok within {timeout_s}s")
            time.sleep(0.1)

    def _node_ok(self, port: int) -> bool:
        client = redis.Redis(port=port, socket_timeout=1.0, decode_responses=True)
        try:
            info: dict[str, str] = client.execute_command("CLUSTER INFO")  # type: ignore[no-untyped-call]
            if info.get("cluster_state") != "ok":
                return False
            if int(info.get("cluster_known_nodes", 0)) < len(self.ports):
                return False
            replication = client.info("replication")
            # a replica counts once it has synced: a failover test may kill its primary next
            return bool(
                replication["role"] == "master" or replication["master_link_status"] == "up"
            )
        except redis.RedisError:
            return False
        finally:
            client.close()

    def primaries(self) -> list[int]:
        """Ports of the nodes that are primaries now (after any failover)."""
        client = RedisCluster(host="127.0.0.1", port=next(iter(self.procs)))
        try:
            return sorted(node.port for node in client.get_primaries())  # type: ignore[no-untyped-call]
        finally:
            client.close()

    def migrate_slot(self, slot: int, to_port: int, pause_s: float = 0.0) -> None:
        """Move `slot` to the primary on `to_port` as `redis-cli --cluster reshard` does
        (IMPORTING / MIGRATING, MIGRATE key by key, SETSLOT NODE everywhere), sleeping
        `pause_s` after each key so that clients meet ASK and TRYAGAIN on the way."""
        clients = {p: redis.Redis(port=p, decode_responses=True) for p in self.procs}
        try:
            src = _slot_owner(clients[to_port], slot)
            ids = {p: clients[p].execute_command("CLUSTER MYID") for p in (src, to_port)}  # type: ignore[no-untyped-call]
            clients[to_port].execute_command("CLUSTER SETSLOT", slot, "IMPORTING", ids[src])  # type: ignore[no-untyped-call]
            clients[src].execute_command("CLUSTER SETSLOT", slot, "MIGRATING", ids[to_port])  # type: ignore[no-untyped-call]
            while keys := clients[src].execute_command("CLUSTER GETKEYSINSLOT", slot, 1):  # type: ignore[no-untyped-call]
                clients[src].execute_command(  # type: ignore[no-untyped-call]
                    "MIGRATE", "127.0.0.1", to_port, "", 0, 5000, "KEYS", *keys
                )
                time.sleep(pause_s)
            for client in clients.values():
                with contextlib.suppress(redis.ResponseError):  # replicas refuse; they follow
                    client.execute_command("CLUSTER SETSLOT", slot, "NODE", ids[to_port])  # type: ignore[no-untyped-call]
        finally:
            for client in clients.values():
                client.close()

    def flush(self) -> None:
        """FLUSHALL on every primary (a clean cluster for the next test)."""
        for port in self.primaries():
            client = redis.Redis(port=port)
            client.flushall()
            client.close()

    def kill(self, port: int) -> None:
        """SIGKILL the node on `port` (a crash; its data is gone, as with no persistence)."""
        self.procs.pop(port).stop(kill=True)

    def stop(self) -> None:
        """Stop every node: SIGTERM to all first, then each waited for (SIGKILL after 10 s)."""
        for node in self.procs.values():
            if node.proc is not None:
                node.proc.terminate()
        for node in self.procs.values():
            node.stop()
        self.procs.clear()

    def __enter__(self) -> LocalCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _slot_owner(client: redis.Redis, slot: int) -> int:
    """The port of the primary serving `slot`, from CLUSTER NODES (as `client`'s node sees it;
    redis-py parses the reply into {"host:port": {"flags", "slots": [[first, last], ...]}})."""
    nodes: dict[str, dict[str, object]] = client.execute_command("CLUSTER NODES")  # type: ignore[no-untyped-call]
    for address, node in nodes.items():
        flags = str(node["flags"]).split(",")
        ranges = node["slots"]
        assert isinstance(ranges, list)
        if "master" in flags and any(int(r[0]) <= slot <= int(r[-1]) for r in ranges):
            return int(address.split("@")[0].rpartition(":")[2])
    raise LookupError(f"no primary serves slot {slot}")


def main() -> None:
    """Run a 3-master cluster (`--replicas N` per master) until Ctrl-C; print its URL."""
    replicas = int(sys.argv[sys.argv.index("--replicas") + 1]) if "--replicas" in sys.argv else 0
    with (
        tempfile.TemporaryDirectory(prefix="scoreledger-cluster-") as data_dir,
        LocalCluster(Path(data_dir), replicas=replicas) as cluster,
    ):
        print(f"REDIS_URL={cluster.url}", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            while True:
                time.sleep(3600)


if __name__ == "__main__":
    main()
