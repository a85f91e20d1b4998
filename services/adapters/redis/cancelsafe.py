"""Redis calls that never swallow a task's cancellation.

On CPython 3.11 `asyncio.wait_for` returns the inner result instead of raising `CancelledError`
when the inner future finishes in the same loop turn as the cancel arrives (gh-86296, fixed in
3.12 where `wait_for` is built on `asyncio.timeout`). redis-py 8.1 sends every command through
`asyncio.wait_for(writer.drain(), socket_timeout)` (`redis/asyncio/connection.py`), so a task
cancelled while it sends a command may return normally and go on. A read loop (the change hub's
polling XREAD on a cluster, a projector) then never stops and its `stop()` hangs: on a local
cluster 94 of 300 cancels of a pipelined XREAD loop were lost, 1 in about 40 hub stops hung.

`honour_cancel` re-raises such a lost cancellation after the call: a task whose pending cancel
requests (`Task.cancelling()`) grew during a call that returned normally was cancelled and
nobody took the cancel back (`uncancel`), so it must stop. On 3.12+ it never fires.

`CancelSafeRedis.execute_command` also sends a command on the client's pool without redis-py's
per-command OpenTelemetry recorders while they are off (this service sets no provider), and
`run_script` calls a registered script without `AsyncScript.__call__`'s per-call import and
`isinstance` of a `typing.Protocol` class: together about 12-15 µs of CPU of a 40-50 µs script
call in one process (docs/profiles/request-cost.md).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

import redis.asyncio as aioredis
from redis.asyncio.client import Pipeline
from redis.asyncio.connection import Connection
from redis.commands.core import AsyncScript
from redis.exceptions import NoScriptError
from redis.observability.providers import get_observability_instance

from services.adapters.redis.errors import DRIVER_ERRORS, translated
from services.adapters.redis.scripts import FlushSafeScript

T = TypeVar("T")


def _pending_cancels() -> int:
    task = asyncio.current_task()
    return task.cancelling() if task is not None else 0


async def honour_cancel(call: Callable[[], Awaitable[T]]) -> T:
    """`await call()`; raise `asyncio.CancelledError` if the task was cancelled meanwhile and
    the call returned anyway (see the module docstring)."""
    before = _pending_cancels()
    result = await call()
    if _pending_cancels() > before:
        raise asyncio.CancelledError
    return result


def _untraced() -> bool:
    """Whether redis-py's OpenTelemetry recorders are off (they return at once then)."""
    return get_observability_instance().get_provider_manager() is None


_PLAIN = (AsyncScript, FlushSafeScript)
"""The classes whose call is `EVALSHA` then `EVAL`: sent here without their `__call__`."""


async def run_script(script: AsyncScript, keys: Sequence[Any], args: Sequence[Any]) -> Any:
    """`await script(keys=keys, args=args)` on its registered client, the same command
    (`EVALSHA`; on a cluster routed by its first key) and the same reply or error: on
    `NoScriptError` (a restarted or flushed Redis) the script is sent whole with `EVAL`, which
    runs it and caches it under the same sha in one command, so a second flush between a load
    and its call (which `AsyncScript.__call__`'s load-then-`EVALSHA` does not survive) cannot
    fail the call."""
    if type(script) not in _PLAIN:  # a subclass (`ReadOnlyScript`) sends its own command
        return await script(keys=list(keys), args=list(args))
    client = script.registered_client
    try:
        return await client.execute_command("EVALSHA", script.sha, len(keys), *keys, *args)
    except NoScriptError:
        return await client.execute_command("EVAL", script.script, len(keys), *keys, *args)


def _himport(name: Any) -> bool:
    """Whether a command's name is `HIMPORT` or `HIMPORT SET` (any case, str or bytes)."""
    if isinstance(name, str):
        return name[:7].upper() == "HIMPORT"
    if isinstance(name, bytes | bytearray | memoryview):
        return bytes(name[:7]).upper() == b"HIMPORT"
    return False


class CancelSafeRedis(aioredis.Redis):
    """`redis.asyncio.Redis` whose commands and pipelines honour a lost cancellation and raise
    their errors as port errors too (`services.adapters.redis.errors`)."""

    async def execute_command(self, *args: Any, **options: Any) -> Any:
        """`Redis.execute_command` as `honour_cancel` runs it (spelt out here: one coroutine
        and one closure less on every command); a Redis error raised as a port error too
        (`errors.translated`). Sent by `_pooled` while redis-py's recorders are off."""
        task = asyncio.current_task()
        before = task.cancelling() if task is not None else 0
        try:
            if self.connection is None and not self.single_connection_client and _untraced():
                result = await self._pooled(args, options)
            else:
                result = await aioredis.Redis.execute_command(self, *args, **options)  # type: ignore[no-untyped-call]
        except DRIVER_ERRORS as error:
            raise translated(error) from error
        if task is not None and task.cancelling() > before:
            raise asyncio.CancelledError
        return result

    async def _pooled(self, args: tuple[Any, ...], options: dict[str, Any]) -> Any:
        """`Redis.execute_command` on a pooled connection without its recorders (they are
        off): the same checkout, retries (a failed attempt disconnects the connection), reply
        parsing and release. An `HIMPORT` (its connection-scoped set-up) takes redis-py's."""
        name = args[0]
        if _himport(name):
            return await aioredis.Redis.execute_command(self, *args, **options)  # type: ignore[no-untyped-call]
        pool = self.connection_pool
        conn: Connection = await pool.get_connection()  # type: ignore[no-untyped-call]
        started = time.monotonic()

        async def attempt() -> Any:
            await conn.send_packed_command(conn.pack_command(*args))  # `send_command`, inlined
            return await self.parse_response(conn, name, **options)

        def failed(error: Exception, failures: int) -> Any:
            return self._close_connection(conn, error, failures, started, name)

        try:
            return await conn.retry.call_with_retry(attempt, failed, with_failure_count=True)
        finally:
            await pool.release(conn)

    def register_script(self, script: str | bytes) -> FlushSafeScript:  # type: ignore[override]
        """The script registered on this client, surviving `SCRIPT FLUSH` (`scripts.py`)."""
        return FlushSafeScript(self, script)

    def pipeline(self, transaction: bool = True, shard_hint: str | None = None) -> Pipeline:
        """A pipeline whose `execute` goes through `honour_cancel`."""
        return _CancelSafePipeline(
            self.connection_pool, self.response_callbacks, transaction, shard_hint
        )


class _CancelSafePipeline(Pipeline):
    async def execute(self, raise_on_error: bool = True) -> list[Any]:
        try:
            return await honour_cancel(lambda: Pipeline.execute(self, raise_on_error))
        except DRIVER_ERRORS as error:
            raise translated(error) from error
