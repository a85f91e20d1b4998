"""`python -m services.cli.projector`: run the projector process until SIGINT / SIGTERM (then its
shard leases are released, so the other projectors take the shards over at once). An entry point
beside the CLI, so the projector door imports no composition root.

A start-up failure (Redis unreachable, refused credentials, a script Redis would not load,
no answer within `projector_start_timeout_s`) logs one `projector.start_failed` line and exits
with status 1 within that time.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys

import structlog

from services.bootstrap import running_projector
from services.doors.projector.loop import StartupFailed
from services.platform.logging import configure_logging
from services.platform.settings import ServiceSettings
from services.runtime.gctune import collecting_frozen, tune_for_long_life

log = structlog.get_logger("projector")


async def _run(settings: ServiceSettings) -> None:
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):  # leave cleanly: the leases are released
        asyncio.get_running_loop().add_signal_handler(sig, stop.set)
    async with running_projector(settings):
        await asyncio.sleep(0)  # the loop has started: warm-up done
        tune_for_long_life(survivors=True)  # young collections only, each object walked once
        async with collecting_frozen():
            await stop.wait()


def main(argv: list[str] | None = None) -> None:
    """Run the projector; `--help` prints what it does and exits 0 (it takes no arguments: its
    settings are the `SCORELEDGER_*` environment, as `scoreledger serve`'s)."""
    argparse.ArgumentParser(
        prog="python -m services.cli.projector",
        description="Run the projector until SIGINT or SIGTERM. Settings come from the "
        "environment (REDIS_URL, SCORELEDGER_SHARDS, ...; see docs/operating/configuration.md).",
    ).parse_args(argv)
    settings = ServiceSettings()
    configure_logging(settings.log_format, settings.log_level)
    try:
        asyncio.run(_run(settings))
    except (StartupFailed, ValueError) as error:  # ValueError: a malformed Redis URL
        log.error("projector.start_failed", error=str(error))
        sys.exit(1)


if __name__ == "__main__":
    main()
