"""The one async Redis client of a process: a single node or a Redis Cluster, by configuration.

`connect(url, cluster=...)` returns a `redis.asyncio.Redis` on a `BlockingConnectionPool`, or a
`GatedRedisCluster` (a `redis.asyncio.cluster.RedisCluster`). Both:

* reply bytes (no `decode_responses`), as every adapter expects;
* wait for a free connection instead of raising `MaxConnectionsError`: the single node through
  a `BlockingConnectionPool(timeout=pool_timeout_s)` (`pool.QuickBlockingPool`: no condition
  nor timeout taken while an idle connection is there and nobody waits); the cluster client (whose per-node pool
  only raises) through a semaphore of `max_connections` commands in flight, so no node's pool
  can overflow. Past `pool_timeout_s` both raise `redis.ConnectionError` (a 503, not a 500);
* never swallow a task's cancellation (redis-py on CPython 3.11 can: `cancelsafe.py`);
* raise every Redis error as a port error too (`StoreUnavailable` / `StoreError`: `errors.py`),
  so doors catch the ports' errors, never redis-py's;
* retry connection and timeout errors with exponential backoff and jitter (redis-py `Retry`),
  `retries` times. On the cluster the retry also covers `ClusterDownError`, `TryAgainError` and
  `ClusterError` ("TTL exhausted": a slot still moving, a failover in progress) and each attempt
  refreshes the slot map. Retried commands must be
  idempotent: the append script dedupes by event id, the projection script by checkpoint.

Configuration: `redis+cluster://host:port[,host:port...]` (or `rediss+cluster://`) selects the
cluster client, and so does `cluster=True` (`SCORELEDGER_REDIS_CLUSTER=true`) with a plain
`redis://host:port` URL. Source: docs/decisions/0003-shards-and-hash-tags.md; redis-py 8.1 `redis/asyncio/cluster.py`.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, cast

import redis.asyncio as aioredis
from redis import exceptions as rexc
from redis.asyncio.cluster import ClusterNode, ClusterPipeline, PipelineCommand, RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialWithJitterBackoff, NoBackoff

from services.adapters.redis.cancelsafe import CancelSafeRedis, honour_cancel
from services.adapters.redis.errors import storing
from services.adapters.redis.packing import hiredis_packing
from services.adapters.redis.pool import QuickBlockingPool, quick_sending
from services.adapters.redis.scripts import FlushSafeScript

T = TypeVar("T")

CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}

RedisClient = aioredis.Redis | RedisCluster
"""What `connect` returns; adapters accept either (the command API is the same)."""


class RedisClientSettings(Protocol):
    """The settings fields `connect_from` reads (`services.platform.settings.CommonSettings` has them)."""

    redis_url: str
    redis_cluster: bool
    redis_max_connections: int
    redis_pool_timeout_s: float
    redis_socket_timeout_s: float
    redis_connect_timeout_s: float
    redis_retries: int

    def redis_options(self) -> dict[str, Any]: ...


@dataclass(frozen=True, slots=True)
class RedisTarget:
    """A parsed Redis URL: the plain `redis://` URL(s) and whether to use the cluster client.

    `nodes` are the `host:port` startup nodes of a cluster URL (the first is in `url`).
    """

    url: str
    cluster: bool
    nodes: tuple[tuple[str, int], ...] = ()


def parse_target(url: str, cluster: bool = False) -> RedisTarget:
    """Split `redis+cluster://[user:pass@]h1:p1[,h2:p2...][/0]` into a plain URL and its nodes.

    A plain `redis://` / `rediss://` URL is returned as is, with `cluster` as given.

    Raises:
        ValueError: a cluster URL without a host, with a bad port, or with a db other than 0.
    """
    scheme, sep, rest = url.partition("://")
    if not sep or scheme not in CLUSTER_SCHEMES:
        return RedisTarget(url, cluster)
    netloc, _, path = rest.partition("/")
    if path not in ("", "0"):
        raise ValueError(f"redis_url: a cluster has only db 0, not {path!r} in {url!r}")
    userinfo, at, hosts = netloc.rpartition("@")
    nodes: list[tuple[str, int]] = []
    for item in hosts.split(","):
        host, _, port = item.strip().rpartition(":")
        if not host or not port.isdigit():
            raise ValueError(f"redis_url: cluster node {item!r} is not host:port in {url!r}")
        nodes.append((host, int(port)))
    first = f"{nodes[0][0]}:{nodes[0][1]}"
    plain = f"{CLUSTER_SCHEMES[scheme]}://{userinfo}{at}{first}"
    return RedisTarget(plain, True, tuple(nodes))


def retry_policy(retries: int, cap_s: float = 1.0, base_s: float = 0.05) -> Retry:
    """Exponential backoff with jitter (`base_s` doubling up to `cap_s` seconds), `retries`
    times, on connection and timeout errors (redis-py's default supported errors)."""
    return Retry(ExponentialWithJitterBackoff(cap=cap_s, base=base_s), retries)


_holding_gate: contextvars.ContextVar[bool] = contextvars.ContextVar("holding_gate", default=False)


class GatedRedisCluster(RedisCluster):
    """`RedisCluster` that waits for a slot instead of raising `MaxConnectionsError`, and retries
    transient faults with backoff. One command or pipeline holds at most one connection per node,
    so at most `max_connections` in flight keep every node's pool within its limit.

    Build it with `connect(..., cluster=True)`.
    """

    _gate: asyncio.Semaphore
    _init_lock: asyncio.Lock
    _gate_timeout_s: float
    _backoff: Retry

    def _configure(self, max_connections: int, pool_timeout_s: float, backoff: Retry) -> None:
        self._gate = asyncio.Semaphore(max_connections)
        self._init_lock = asyncio.Lock()
        self._gate_timeout_s = pool_timeout_s
        self._backoff = backoff

    async def gated(self, call: Callable[[], Awaitable[T]]) -> T:
        """Run `call` holding one gate slot (re-entrant within a task).

        Raises:
            redis.ConnectionError: no slot within `pool_timeout_s` (every connection busy).
        """
        if _holding_gate.get():
            return await call()
        try:
            async with asyncio.timeout(self._gate_timeout_s):
                await self._gate.acquire()
        except TimeoutError:
            raise rexc.ConnectionError(
                f"no Redis connection free within {self._gate_timeout_s} s"
            ) from None
        token = _holding_gate.set(True)
        try:
            return await honour_cancel(call)  # a cancel lost in redis-py still stops the task
        finally:
            _holding_gate.reset(token)
            self._gate.release()

    def register_script(self, script: str | bytes) -> FlushSafeScript:  # type: ignore[override]
        """The script registered on this client, surviving `SCRIPT FLUSH` (`scripts.py`)."""
        return FlushSafeScript(self, script)

    async def ready(self) -> None:
        """(Re)discover the slot map in one task while the others wait. redis-py 8.1 lets
        concurrent first commands of a fresh (or reset) client race and fail with
        `AttributeError: 'NoneType' object has no attribute 'writelines'` (seen in 18 of 30
        runs of 16 concurrent GETs; 0 of 30 with this)."""
        if self._initialize:
            async with self._init_lock:
                # discovery sends commands: a cancel lost there must still stop the task
                await honour_cancel(self.initialize)

    async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        """`RedisCluster.execute_command` behind the gate, retried with backoff on
        connection/timeout errors and while the cluster is down or a slot is moving."""

        async def attempt() -> Any:
            await self.ready()
            return await RedisCluster.execute_command(self, *args, **kwargs)

        return await storing(
            lambda: self.gated(lambda: self._backoff.call_with_retry(attempt, _no_op))
        )

    async def on_one_connection(self, key: str, commands: Sequence[Sequence[Any]]) -> list[Any]:
        """Send `commands` in order on one connection to the primary of `key`'s slot (as a
        pipeline): what `WAIT` needs, since it counts the replicas that have this connection's
        last write. Replies in order, a command's own error reply (`ResponseError`) in its
        place. A dead node, a moved slot or a cluster still failing over is retried with
        backoff after refreshing the slot map (the commands must be idempotent).

        Raises: redis connection / cluster errors once the retries are spent."""

        async def attempt() -> list[Any]:
            await self.ready()
            node = self.get_node_from_key(key)
            if node is None:
                self._initialize = True
                raise rexc.ClusterDownError(f"no node serves the slot of {key!r}")
            sent = [PipelineCommand(i, *command) for i, command in enumerate(commands)]
            try:
                await node.execute_pipeline(sent)
            except (rexc.ConnectionError, rexc.TimeoutError):
                await self._lost(node)
                raise
            for command in sent:
                reply = command.result
                if isinstance(reply, rexc.ConnectionError | rexc.TimeoutError):
                    await self._lost(node)
                    raise reply
                if isinstance(reply, rexc.MovedError):
                    await self.nodes_manager.move_slot(reply)
                    raise rexc.TryAgainError(f"slot moved: {reply}")
                if isinstance(
                    reply, rexc.AskError | rexc.ClusterDownError | rexc.ReadOnlyError
                ) or (isinstance(reply, rexc.ResponseError) and "TRYAGAIN" in str(reply)):
                    self._initialize = True  # a failover or a migration: read the map again
                    raise rexc.TryAgainError(f"cluster changing: {reply}")
            return [command.result for command in sent]

        return await self.gated(lambda: self._backoff.call_with_retry(attempt, _no_op))

    async def _lost(self, node: ClusterNode) -> None:
        """As redis-py does for a node that failed a command: its connections are reopened
        and the slot map is read again before the next attempt."""
        node.update_active_connections_for_reconnect()
        await node.disconnect_free_connections()
        self._initialize = True

    def pipeline(self, transaction: Any | None = None, shard_hint: Any | None = None) -> Any:
        """A `ClusterPipeline` whose `execute` holds one gate slot (it uses one connection per
        node). Scripts cannot be pipelined on a cluster (redis-py blocks EVALSHA there)."""
        if shard_hint:
            return RedisCluster.pipeline(self, transaction, shard_hint)
        return _GatedPipeline(self, transaction)  # type: ignore[abstract]


class _GatedPipeline(ClusterPipeline):
    async def initialize(self) -> ClusterPipeline:
        # `async with client.pipeline()` discovers the slots of a fresh client here, outside
        # `execute`: through `ready` (one task, the lock, a lost cancel re-raised).
        await storing(cast(GatedRedisCluster, self.cluster_client).ready)
        return await storing(lambda: ClusterPipeline.initialize(self))

    async def execute(self, raise_on_error: bool = True, allow_redirections: bool = True) -> Any:
        client = cast(GatedRedisCluster, self.cluster_client)

        async def run() -> Any:
            await client.ready()
            return await ClusterPipeline.execute(self, raise_on_error, allow_redirections)

        return await storing(lambda: client.gated(run))


async def _no_op(_: Exception) -> None:
    return None


def connect(
    url: str,
    *,
    cluster: bool = False,
    max_connections: int = 64,
    pool_timeout_s: float = 5.0,
    socket_timeout_s: float = 5.0,
    connect_timeout_s: float = 2.0,
    retries: int = 5,
    **options: Any,
) -> RedisClient:
    """The process's async Redis client (see the module docstring).

    Args:
        url: `redis://`, `rediss://`, `redis+cluster://` or `rediss+cluster://` (nodes
            comma-separated).
        cluster: use the cluster client with a plain URL too.
        max_connections: per node (the cluster: commands in flight).
        pool_timeout_s: longest wait for a free connection (seconds).
        socket_timeout_s / connect_timeout_s: per reply / per connect (seconds). Keep blocking
            reads (`XREAD BLOCK`) well under `socket_timeout_s`.
        retries: retries with backoff on connection and timeout errors.
        options: more redis-py connection options, the same for both clients: `username`,
            `password` (the role's ACL user), `ssl_ca_certs` (`CommonSettings.redis_options()`).

    Nothing connects until the first command. Raises: ValueError (a bad cluster URL).
    """
    target = parse_target(url, cluster)
    common: dict[str, Any] = {
        **options,
        "socket_timeout": socket_timeout_s,
        "socket_connect_timeout": connect_timeout_s,
        "decode_responses": False,
    }
    if not target.cluster:
        pool = QuickBlockingPool.from_url(
            target.url,
            max_connections=max_connections,
            timeout=pool_timeout_s,
            retry=retry_policy(retries),
            **common,
        )
        # C packing (docs/decisions/0012-hot-reads-and-off-loop-replays.md), no task per send
        pool.connection_class = hiredis_packing(quick_sending(pool.connection_class))
        return CancelSafeRedis(connection_pool=pool)
    startup = [ClusterNode(host, port) for host, port in target.nodes[1:]]
    client = cast(
        GatedRedisCluster,
        GatedRedisCluster.from_url(
            target.url,
            startup_nodes=startup or None,
            max_connections=max_connections,
            # one immediate re-try inside redis-py refreshes the slot map; the backoff is ours
            retry=Retry(NoBackoff(), 1),
            **common,
        ),
    )
    backoff = retry_policy(retries)
    backoff.update_supported_errors([rexc.ClusterDownError, rexc.TryAgainError, rexc.ClusterError])
    client._configure(max_connections, pool_timeout_s, backoff)
    return client


def connect_from(settings: RedisClientSettings) -> RedisClient:
    """`connect` with the `redis_*` fields of a settings object (`CommonSettings`), its ACL user,
    password and TLS CA bundle (`redis_options()`) included."""
    return connect(
        settings.redis_url,
        cluster=settings.redis_cluster,
        max_connections=settings.redis_max_connections,
        pool_timeout_s=settings.redis_pool_timeout_s,
        socket_timeout_s=settings.redis_socket_timeout_s,
        connect_timeout_s=settings.redis_connect_timeout_s,
        retries=settings.redis_retries,
        **settings.redis_options(),
    )


def is_cluster(client: RedisClient) -> bool:
    """True for the cluster client (callers fan out per key instead of pipelining scripts)."""
    return isinstance(client, RedisCluster)
