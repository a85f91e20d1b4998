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
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import redis.asyncio as aioredis
from redis.asyncio.client import Pipeline

from services.adapters.redis.errors import DRIVER_ERRORS, translated

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


class CancelSafeRedis(aioredis.Redis):
    """`redis.asyncio.Redis` whose commands and pipelines honour a lost cancellation and raise
    their errors as port errors too (`services.adapters.redis.errors`)."""

    async def execute_command(self, *args: Any, **options: Any) -> Any:
        """`Redis.execute_command` as `honour_cancel` runs it (spelt out here: one coroutine
        and one closure less on every command); a Redis error raised as a port error too
        (`errors.translated`)."""
        task = asyncio.current_task()
        before = task.cancelling() if task is not None else 0
        try:
            result = await aioredis.Redis.execute_command(self, *args, **options)  # type: ignore[no-untyped-call]
        except DRIVER_ERRORS as error:
            raise translated(error) from error
        if task is not None and task.cancelling() > before:
            raise asyncio.CancelledError
        return result

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
