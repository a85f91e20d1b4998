"""The archiver role: sealing passes over Redis's games, every `archive_every_s`, in the
process's event loop (a task beside the other roles), at most `archive_batch` games a page.

A pass that fails (Redis or the archive away, a copy that did not come back as put) is
logged and tried again at the next period: sealing is idempotent and loses nothing at any
step (`usecases.seal`). Several archivers may run at once (each removal is conditional on
the game being unchanged); one is enough.
"""

from __future__ import annotations

import asyncio
import contextlib
from datetime import UTC, datetime

import structlog

from services.archive.usecases.seal import Seal
from services.platform.settings import ServiceSettings
from services.runtime.tasks import background

log = structlog.get_logger("archive")


async def seal_all(seal: Seal, batch: int) -> dict[str, int]:
    """One whole pass over Redis's games, a page of `batch` at a time: how many games came
    to each result. Raises: storage errors, `SealMismatch`."""
    counts: dict[str, int] = {}
    after: str | None = None
    while True:
        done = await seal.pass_once(datetime.now(UTC), after, batch)
        for result in done.results.values():
            counts[result] = counts.get(result, 0) + 1
        if done.next_after is None:
            return counts
        after = done.next_after


async def _run(seal: Seal, every_s: float, batch: int) -> None:
    while True:
        try:
            counts = await seal_all(seal, batch)
            if counts.get("sealed"):
                log.info("archive.pass", **counts)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # a failed pass: logged, the next one tries again
            log.warning("archive.pass_failed", error=f"{type(error).__name__}: {error}"[:300])
        await asyncio.sleep(every_s)


def sealing(
    seal: Seal, settings: ServiceSettings
) -> contextlib.AbstractAsyncContextManager[asyncio.Task[None]]:
    """Run sealing passes for the block's duration (the task is cancelled at its end)."""
    return background(_run(seal, settings.archive_every_s, settings.archive_batch))
