"""A background task that lives for a block: started on entry, cancelled and awaited on exit,
so nothing of it outlives the block (the roles' periodic passes: sealing, auto-approval)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Coroutine
from typing import Any


@contextlib.asynccontextmanager
async def background(
    work: Coroutine[Any, Any, None], name: str | None = None
) -> AsyncIterator[asyncio.Task[None]]:
    """Run `work` as a task (named `name`) for the block's duration, yielding the task; at
    the block's end it is cancelled and awaited (its `CancelledError` swallowed; any other
    error it ended with is raised there)."""
    task = asyncio.create_task(work, name=name)
    try:
        yield task
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


__all__ = ["background"]
