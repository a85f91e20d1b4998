"""A registered Lua script that survives `SCRIPT FLUSH`: the class the process's clients hand out
from `register_script` (`connect.py`).

redis-py's `AsyncScript.__call__` answers `NOSCRIPT` (a restarted Redis, `SCRIPT FLUSH`) by
`SCRIPT LOAD` and one more `EVALSHA`; a second flush between the two escapes as
`NoScriptError`. Under a flush every 2 ms the lease renewals, the inbox guard and the
tournament approvals, which call their scripts directly, logged it (docs/profiles/request-cost.md).
`FlushSafeScript` sends such a call once more with the script whole (`EVAL`), which runs it and
caches it under the same sha in one command, so no flush can come between: the same fallback
`cancelsafe.run_script` gives the hot paths.

In a pipeline a call is queued as redis-py queues it (`_queue`): a single node's pipeline loads
its scripts before it sends, and a `NOSCRIPT` there is the pipeline's reply to handle
(`fanout.py`, `coalesce.py`); a cluster's pipeline refuses scripts (tests/cluster/test_fanout.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

from redis.asyncio.client import Pipeline
from redis.asyncio.cluster import ClusterPipeline
from redis.commands.core import AsyncScript
from redis.exceptions import NoScriptError


class FlushSafeScript(AsyncScript):
    """`AsyncScript` whose `NOSCRIPT` is answered by sending the script whole:
    `await script(keys, args, client=None)` -> its reply.

    `COMMANDS` names the pair sent: (`EVALSHA`, `EVAL`); `ReadOnlyScript` sends the `_RO` pair.
    Raises: the script's `ResponseError`, connection errors (as port errors on this service's
    clients).
    """

    COMMANDS: ClassVar[tuple[str, str]] = ("EVALSHA", "EVAL")

    async def __call__(
        self,
        keys: Sequence[Any] | None = None,
        args: Iterable[Any] | None = None,
        client: Any = None,
    ) -> Any:
        client = self.registered_client if client is None else client
        if isinstance(client, Pipeline | ClusterPipeline):  # queued, not sent: nothing to retry
            return await self._queue(client, keys, args)
        keys, args = list(keys or []), list(args or [])
        by_sha, whole = self.COMMANDS
        try:
            return await self._send(client, (by_sha, self.sha), keys, args)
        except NoScriptError:  # sent whole: run and cached in one command (no load to lose)
            return await self._send(client, (whole, self.script), keys, args)

    async def _queue(
        self,
        pipe: Pipeline | ClusterPipeline,
        keys: Sequence[Any] | None,
        args: Iterable[Any] | None,
    ) -> Any:
        """Queue the call in `pipe` as redis-py's `AsyncScript` does."""
        return await AsyncScript.__call__(self, keys, args, pipe)  # type: ignore[arg-type]  # a pipeline is a client here

    async def _send(
        self, client: Any, head: tuple[str, Any], keys: list[Any], args: list[Any]
    ) -> Any:
        """Send `head`, the key count, `keys` and `args` on `client` (routed by its keys)."""
        return await client.execute_command(*head, len(keys), *keys, *args)
