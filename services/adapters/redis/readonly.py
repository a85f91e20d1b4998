"""A read-only Lua script, run with `EVALSHA_RO` (Redis >= 7.0).

`EVALSHA` declares every key it is given as written (Redis's key specs: RW), so a user whose
pattern for a key is read-only (`%R~`, the projector's for the shard feeds and game streams:
`deploy/users.acl.template`) is refused ("no permissions to access one of the keys") even for a
script that only reads. `EVALSHA_RO` declares them read, and Redis refuses any write the script
attempts. Source: Redis docs, EVALSHA_RO and "ACL key permissions" (`%R~`).

* `NOSCRIPT` (a restarted Redis, `SCRIPT FLUSH`) sends the script whole with `EVAL_RO`
  (`scripts.FlushSafeScript`); in a pipeline the script joins the pipeline's script check.
* On a Redis Cluster the call is sent to the node of its first key: redis-py routes `EVALSHA`
  by its keys itself, but `EVALSHA_RO` only through `COMMAND GETKEYS`, which no role may run.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

from redis.asyncio.client import Pipeline
from redis.asyncio.cluster import ClusterPipeline

from services.adapters.redis.connect import GatedRedisCluster, is_cluster
from services.adapters.redis.scripts import FlushSafeScript


class ReadOnlyScript(FlushSafeScript):
    """`FlushSafeScript` with `EVALSHA_RO` (and `EVAL_RO` on `NOSCRIPT`):
    `await script(keys, args, client=None)` -> its reply.

    Raises: the script's `ResponseError` (a write attempted, a key refused), connection errors.
    """

    COMMANDS: ClassVar[tuple[str, str]] = ("EVALSHA_RO", "EVAL_RO")

    async def _queue(
        self,
        pipe: Pipeline | ClusterPipeline,
        keys: Sequence[Any] | None,
        args: Iterable[Any] | None,
    ) -> Any:
        """`EVALSHA_RO` queued in `pipe`; a single node's pipeline checks (and loads) the script
        before it sends."""
        if isinstance(pipe, Pipeline):
            pipe.scripts.add(self)  # type: ignore[arg-type]
        return await self._send(pipe, ("EVALSHA_RO", self.sha), list(keys or []), list(args or []))

    async def _send(
        self, client: Any, head: tuple[str, Any], keys: list[Any], args: list[Any]
    ) -> Any:
        command = (*head, len(keys), *keys, *args)
        if keys and is_cluster(client):
            if isinstance(client, GatedRedisCluster):
                await client.ready()  # a fresh client has no slot map to route by yet
            node = client.get_node_from_key(keys[0])
            return await client.execute_command(*command, target_nodes=node)
        return await client.execute_command(*command)
