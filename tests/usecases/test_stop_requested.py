"""A periodic loop stops when cancelled even if a step swallowed the cancel, as redis-py can
during a command (services/runtime/cancel.py): the approval timer's loop, with a tick that
catches the `CancelledError` and returns, or turns it into an error as a cluster pipeline does."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from services.runtime.cancel import raise_if_stop_requested, stop_requested
from services.tournaments.doors.ingest_approvals import approving


class SwallowingTimer:
    """A tick that eats its cancel: returns normally, or raises `ConnectionError` instead."""

    def __init__(self, as_error: bool) -> None:
        self.as_error = as_error
        self.ticks = 0
        self.started = asyncio.Event()

    async def tick(self) -> None:
        self.ticks += 1
        self.started.set()
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            if self.as_error:
                raise ConnectionError("connection closed while reading") from None


@pytest.mark.parametrize("as_error", [False, True], ids=["returned", "as_an_error"])
async def test_the_approval_loop_ends_on_cancel_when_a_tick_swallows_it(as_error: bool) -> None:
    timer = SwallowingTimer(as_error)
    async with approving(timer, every_s=0.01) as task:  # type: ignore[arg-type]
        await asyncio.wait_for(timer.started.wait(), 5)
    # `approving`'s end cancelled the task and waited for it: it ended, after one tick
    assert task.cancelled()
    assert timer.ticks == 1


async def test_stop_requested_reads_the_task_s_pending_cancels() -> None:
    async def step() -> bool:
        with contextlib.suppress(asyncio.CancelledError):  # swallowed, nobody uncancels
            await asyncio.sleep(10)
        return stop_requested()

    task = asyncio.create_task(step())
    await asyncio.sleep(0)
    task.cancel()
    assert await task is True
    assert stop_requested() is False  # this test's own task was never cancelled
    raise_if_stop_requested()  # and so this does not raise
