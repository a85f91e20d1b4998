"""`python -m services.projector`: run the projector process until SIGINT / SIGTERM."""

from __future__ import annotations

import asyncio
import contextlib

from services.bootstrap import running_projector
from services.gctune import tune_for_long_life
from services.logging import configure_logging
from services.settings import ServiceSettings


async def _run(settings: ServiceSettings) -> None:
    async with running_projector(settings):
        await asyncio.sleep(0)  # the loop has started: warm-up done
        tune_for_long_life()
        await asyncio.Event().wait()  # until cancelled by SIGINT / SIGTERM


def main() -> None:
    settings = ServiceSettings()
    configure_logging(settings.log_format, settings.log_level)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_run(settings))


if __name__ == "__main__":
    main()
