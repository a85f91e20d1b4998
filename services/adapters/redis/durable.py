"""Durable acknowledgements (`SCORELEDGER_APPEND_REPLICAS`): script calls followed by Redis
`WAIT replicas wait_ms` on the one connection that sent them, shared by every append of the
Redis adapters (games, tournaments, leagues).

`WAIT` counts the replicas that hold this connection's last write, so the calls and the
`WAIT` go down one connection (a pipeline on a single node, the slot primary's connection on
a cluster, `GatedRedisCluster.on_one_connection`). A script whose call writes nothing (every
event a duplicate) must still write something (the append scripts set a stored id's seq
again) so that the `WAIT` covers the original write. Source: docs/decisions/0016-durable-acknowledgements.md (durable
acknowledgements); Redis `WAIT numreplicas timeout`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from redis.commands.core import AsyncScript
from redis.exceptions import NoScriptError, ResponseError

from services.adapters.redis.cancelsafe import run_script
from services.adapters.redis.connect import GatedRedisCluster, RedisClient, is_cluster
from services.ports.errors import ReplicasUnconfirmed

WaitedCall = tuple[AsyncScript, Sequence[str], Sequence[str | int | bytes]]
"""(registered script, KEYS, ARGV) of one call; every call of one `waited` shares a slot."""


class DurableWait:
    """Runs script calls then `WAIT replicas wait_ms` on one connection of `client`.

    `replicas` 0 means no wait (`enabled` is False; the adapters then call their scripts as
    before); `wait_ms` is the longest `WAIT` blocks, in milliseconds."""

    def __init__(self, client: RedisClient, replicas: int = 0, wait_ms: int = 1000) -> None:
        self.client = client
        self.replicas = replicas
        self.wait_ms = wait_ms

    @property
    def enabled(self) -> bool:
        """Whether appends wait for replicas (`replicas` > 0)."""
        return self.replicas > 0

    async def call(
        self, script: AsyncScript, keys: Sequence[str], args: Sequence[str | int | bytes]
    ) -> Any:
        """One script call: a plain call when not `enabled`, else `waited`. Returns its reply.

        Raises: the script's error reply (`ResponseError`) either way; ReplicasUnconfirmed."""
        if not self.enabled:
            return await run_script(script, keys, args)
        (out,) = await self.waited([(script, keys, args)])
        if isinstance(out, ResponseError):
            raise out
        return out

    async def waited(self, calls: Sequence[WaitedCall]) -> list[Any]:
        """Each call run with EVALSHA, then `WAIT`, on one connection (the first call's first
        key's slot primary). A call the server answers NOSCRIPT (a restarted or flushed node)
        is sent again once with its script whole (`EVAL`: run and cached in one command, so no
        flush can come between a load and the call). Returns the script replies in call order, a
        refused call's `ResponseError` in its place.

        Raises: ReplicasUnconfirmed (a call wrote, or confirmed a duplicate, but fewer than
        `replicas` replicas confirmed within `wait_ms`); the `WAIT`'s own error reply."""
        key = calls[0][1][0]
        replies: list[Any] = [None] * len(calls)
        todo = list(range(len(calls)))
        acked = self.replicas
        for whole in (False, True):
            commands: list[list[Any]] = []
            for i in todo:
                script, keys, args = calls[i]
                head = ["EVAL", script.script] if whole else ["EVALSHA", script.sha]
                commands.append([*head, len(keys), *keys, *args])
            commands.append(["WAIT", self.replicas, self.wait_ms])
            *answers, waited = await self.on_one_connection(key, commands)
            if isinstance(waited, ResponseError):
                raise waited
            acked = min(acked, int(waited))
            missing = []
            for i, answer in zip(todo, answers, strict=True):
                replies[i] = answer
                if isinstance(answer, NoScriptError):
                    missing.append(i)
            if not missing:
                break
            todo = missing
        if acked < self.replicas and any(not isinstance(r, ResponseError) for r in replies):
            raise ReplicasUnconfirmed(self.replicas, acked)
        return replies

    async def on_one_connection(self, key: str, commands: list[list[Any]]) -> list[Any]:
        """`commands` in order on one connection to the primary serving `key`; replies in
        order, a command's error reply in its place."""
        if is_cluster(self.client):
            assert isinstance(self.client, GatedRedisCluster)
            return await self.client.on_one_connection(key, commands)
        async with self.client.pipeline(transaction=False) as pipe:
            for command in commands:
                pipe.execute_command(*command)
            return list(await pipe.execute(raise_on_error=False))
