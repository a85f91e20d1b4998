"""What the features' commands build through the composition root (`services/bootstrap/`).

A feature's commands (`services/<feature>/cli...`) stand below the command line and the root,
so they import neither: `scoreledger`'s callback hands them a `CommandRoot` as the typer
context's object, and each reads it as the narrow protocol it declares (the tournament and
league simulators' in-memory use cases, the webhook operator's use case on Redis).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from services.leagues.usecases.stream import Leagues
    from services.tournaments.usecases.stream import Tournaments
    from services.webhooks.usecases.admin import WebhookAdmin

T = TypeVar("T")


class CommandRoot:
    """The composition root as the features' commands see it; each part loads when asked."""

    def memory_tournaments(self) -> Tournaments:
        """A tournaments use case on a fresh in-memory log (the simulators)."""
        from services.bootstrap import memory_tournaments

        return memory_tournaments()

    def memory_leagues(self, tournaments: Tournaments) -> Leagues:
        """A leagues use case on fresh in-memory logs, reading `tournaments`."""
        from services.bootstrap import memory_leagues

        return memory_leagues(tournaments)

    def on_webhook_admin(
        self, redis_url: str | None, work: Callable[[WebhookAdmin], Awaitable[T]]
    ) -> T:
        """Run `work` on the operator's webhook use case, on `redis_url` (else the
        environment's, else a running demo's). Redis away, a refused user or a bad setting: one
        line and exit 69, 77 or 78, as every command that talks to Redis
        (`services.cli.on_redis`). Raises: WebhookRefused: `work` was refused."""
        from services.bootstrap import webhook_admin
        from services.cli.demo_state import redis_overrides
        from services.cli.on_redis import run_on_redis, settings_or_exit
        from services.platform.settings import ServiceSettings

        overrides = redis_overrides(redis_url)  # a running demo's, when nothing names one
        settings = settings_or_exit("webhooks", lambda: ServiceSettings(**overrides))

        async def go() -> T:
            async with webhook_admin(settings) as admin:
                return await work(admin)

        return run_on_redis("webhooks", settings, go)
