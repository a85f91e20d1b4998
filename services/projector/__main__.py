"""`python -m services.projector`: run the projector process until SIGINT / SIGTERM."""

from __future__ import annotations

import asyncio

from services.logging import configure_logging
from services.projector.app import create_projector_app
from services.settings import ProjectorSettings


def main() -> None:
    settings = ProjectorSettings()
    configure_logging(settings.log_format, settings.log_level)
    asyncio.run(create_projector_app(settings).run())


if __name__ == "__main__":
    main()
