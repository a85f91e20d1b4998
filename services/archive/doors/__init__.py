"""The archive's door: the archiver role's sealing passes.

The role runs itself: the composition root (`services.bootstrap.roles.FEATURE_ROLES`) hands
`run_role` its sealing use case (built on the archive's adapters) when `Roles.archiver` is on
and an archive is configured.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from services.archive.usecases.seal import Seal
    from services.platform.settings import ServiceSettings

ROLE = "archiver"
"""The `Roles` field that runs this role."""


@asynccontextmanager
async def run_role(parts: Seal, settings: ServiceSettings) -> AsyncIterator[None]:
    """Run sealing passes every `archive_every_s` for the block's duration (cancelled at its
    end)."""
    from services.archive.doors.archiver import sealing

    async with sealing(parts, settings):
        yield
