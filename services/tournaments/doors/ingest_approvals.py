"""The auto-approval timer: `ApprovalTimer.tick` every `approval_every_s`, in the process's
event loop (a task beside the inbox consumer and the ingest routes, which run the other
tournament follow-ups: `TableGames.after_write`), at most `approval_batch` due results a tick.

A tick that fails (Redis away) is logged and tried again at the next period; a claimed entry
that was not settled comes back after `approval_lease_s`. Several processes may run it at
once (`services.tournaments.usecases.timer`).
"""

from __future__ import annotations

import asyncio
import contextlib

import structlog

from services.runtime.cancel import raise_if_stop_requested
from services.runtime.tasks import background
from services.tournaments.usecases.timer import ApprovalTimer

log = structlog.get_logger("tournaments")


async def _run(timer: ApprovalTimer, every_s: float) -> None:
    while True:
        try:
            await timer.tick()
        except asyncio.CancelledError:
            raise
        except Exception as error:  # a failed tick: logged, the next one tries again
            raise_if_stop_requested(error)
            log.warning("tournament.approval_tick_failed", error=repr(error)[:300])
        raise_if_stop_requested()
        await asyncio.sleep(every_s)


def approving(
    timer: ApprovalTimer, every_s: float
) -> contextlib.AbstractAsyncContextManager[asyncio.Task[None]]:
    """Tick `timer` every `every_s` seconds for the block's duration (the task is cancelled
    at its end)."""
    return background(_run(timer, every_s), name="tournament-approvals")
