"""Script calls made in the same event-loop turn, sent to a single Redis node as one pipeline.

The projector applies the shards of one read concurrently (`ProjectorLoop.step`): each shard's
fold is synchronous up to its projection write, so the writes of one read are all issued within
one turn of the event loop. Sent one by one, each is its own `send()` and its own reply wake-up
(docs/decisions/0012-hot-reads-and-off-loop-replays.md, py-spy at 1,000 events/s: `_SelectorSocketTransport.write` 15% of the projector's
samples, about six script calls per read). `ScriptCoalescer.call` queues the call and sends
every call queued in that turn in one pipeline (one send, one round trip); each caller gets its
own reply or its own error, as if it had called the script alone.

* Errors: a refused call (`ResponseError`, e.g. a fenced write) is raised to its caller only;
  a connection error is raised to every caller of that pipeline.
* `NoScriptError` (Redis restarted or `SCRIPT FLUSH`): that call is sent again on its own with
  the script whole (`cancelsafe.run_script`; redis-py's pipeline would ask `SCRIPT EXISTS` on
  every execute instead).
* On a Redis Cluster the calls are sent one by one, as before (redis-py refuses `EVALSHA` in a
  cluster pipeline; the shards' slots differ anyway).
* Order: calls are sent in the order they were made; calls of one turn share a round trip, so a
  caller never waits for a later turn's calls.
* `command`: a plain command rides along the same way (the projector's read-ahead `XREAD`
  goes out with the writes of the batch before it).
* One coalescer per client (`ScriptCoalescer.of`), so every caller of one client shares it.

Source: docs/decisions/0012-hot-reads-and-off-loop-replays.md (live p99); redis-py 8.1 `redis/asyncio/client.py` (`Pipeline.load_scripts`).
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Sequence
from typing import Any, ClassVar

from redis.commands.core import AsyncScript
from redis.exceptions import NoScriptError

from services.adapters.redis.cancelsafe import run_script
from services.adapters.redis.connect import RedisClient, is_cluster
from services.adapters.redis.errors import DRIVER_ERRORS, translated

_Call = tuple[AsyncScript | None, Sequence[Any], Sequence[Any], "asyncio.Future[Any]"]
"""(script, keys, args, reply): a script call; with no script, `args` is a plain command."""


class ScriptCoalescer:
    """Sends the script calls of one event-loop turn in one pipeline (module docstring).

    Args:
        client: the process's client, without `decode_responses`; a cluster client makes
            `call` a plain script call.
    """

    def __init__(self, client: RedisClient) -> None:
        self.client = client
        self._queued: list[_Call] = []
        self._flushes: set[asyncio.Task[None]] = set()  # referenced until done
        self.pipelines = 0  # pipelines sent (tests and metrics read it)

    _shared: ClassVar[weakref.WeakKeyDictionary[Any, ScriptCoalescer]] = weakref.WeakKeyDictionary()

    @classmethod
    def of(cls, client: RedisClient) -> ScriptCoalescer:
        """The coalescer of `client` (one per client, made on first use)."""
        found = cls._shared.get(client)
        if found is None:
            found = cls._shared[client] = cls(client)
        return found

    async def call(self, script: AsyncScript, keys: Sequence[Any], args: Sequence[Any]) -> Any:
        """`script(keys, args)`'s reply, sent with the other calls of this turn.

        Raises: the call's `ResponseError`; the pipeline's connection error.
        """
        if is_cluster(self.client):
            return await run_script(script, keys, args)
        return await self._queue(script, keys, args)

    def command(self, *args: Any) -> asyncio.Future[Any]:
        """Queue the command `args` (single node only) with this turn's calls; its reply
        (parsed as `client.execute_command` would) or error in the returned future."""
        if is_cluster(self.client):
            raise TypeError("commands ride along on a single node only")
        return self._queue(None, (), args)

    def _queue(
        self, script: AsyncScript | None, keys: Sequence[Any], args: Sequence[Any]
    ) -> asyncio.Future[Any]:
        loop = asyncio.get_running_loop()
        done: asyncio.Future[Any] = loop.create_future()
        if not self._queued:  # the first call of this turn: send after the others queued
            loop.call_soon(self._flush)
        self._queued.append((script, keys, args, done))
        return done

    def _flush(self) -> None:
        calls, self._queued = self._queued, []
        task = asyncio.get_running_loop().create_task(self._send(calls))
        self._flushes.add(task)
        task.add_done_callback(self._flushes.discard)

    async def _send(self, calls: list[_Call]) -> None:
        try:
            async with self.client.pipeline(transaction=False) as pipe:
                for script, keys, args, _ in calls:
                    if script is None:
                        pipe.execute_command(*args)
                    else:
                        pipe.execute_command("EVALSHA", script.sha, len(keys), *keys, *args)
                replies = await pipe.execute(raise_on_error=False)
            self.pipelines += 1
        except asyncio.CancelledError:  # the loop is closing: so are the callers
            for *_, done in calls:
                done.cancel()
            raise
        except Exception as error:  # the connection failed: every caller gets it
            for *_, done in calls:
                if not done.done():
                    done.set_exception(error)
            return
        for call, reply in zip(calls, replies, strict=True):
            await _answer(call, reply)


async def _answer(call: _Call, reply: Any) -> None:
    """Hand `reply` to the call's caller (a script Redis did not know is loaded and run
    alone first); a caller that was cancelled meanwhile gets nothing."""
    script, keys, args, done = call
    if script is not None and isinstance(reply, NoScriptError):
        try:
            reply = await run_script(script, keys, args)  # sent whole if still unknown
        except Exception as error:
            reply = error
    if done.done():  # its caller was cancelled
        return
    if isinstance(reply, Exception):  # as the client raises it: a port error too
        done.set_exception(translated(reply) if isinstance(reply, DRIVER_ERRORS) else reply)
    else:
        done.set_result(reply)
