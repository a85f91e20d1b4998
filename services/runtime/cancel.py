"""A periodic loop's stop request, read from the task itself.

redis-py can swallow a task's cancel during a command, or turn it into a connection error
(services/adapters/redis/cancelsafe.py explains both). A loop that logs a failed step and
sleeps would then go on forever, and whoever cancelled it and waits for its end waits forever
(a process that never stops). The cancel request stays counted on the task
(`Task.cancelling()`), so a loop asks after every step.
"""

from __future__ import annotations

import asyncio


def stop_requested() -> bool:
    """Whether the current task has a cancel request nobody took back (`Task.cancelling()`)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def raise_if_stop_requested(cause: BaseException | None = None) -> None:
    """Raise `asyncio.CancelledError` (from `cause`) when `stop_requested()`: a loop calls it
    after each step, and before it logs a step's error as a failure."""
    if stop_requested():
        raise asyncio.CancelledError from cause


__all__ = ["raise_if_stop_requested", "stop_requested"]
