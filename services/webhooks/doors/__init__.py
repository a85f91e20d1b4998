"""The webhooks role (door): the dispatcher and the per-endpoint senders as one process loop.

The role runs itself: the composition root (`services.bootstrap.roles.FEATURE_ROLES`) builds
its `WebhookRole` (the loop on the root's transport, adapters included) and enters
`run_role` for the process's lifespan when `Roles.webhooks` is on.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from services.platform.settings import ServiceSettings
    from services.webhooks.doors.loop import WebhooksLoop

ROLE = "webhooks"
"""The `Roles` field that runs this role."""


class WebhookRole(NamedTuple):
    """The role's loop and its outbound transport's closer, built by the composition root."""

    loop: WebhooksLoop
    transport: AbstractAsyncContextManager[object]


@asynccontextmanager
async def run_role(parts: WebhookRole, settings: ServiceSettings) -> AsyncIterator[None]:
    """Run the dispatcher and the senders for the block's duration, then close the transport;
    a start-up failure (the dispatcher's checkpoint unreadable) raises on entry."""
    from services.webhooks.doors.loop import running

    async with parts.transport, running(parts.loop):
        yield
