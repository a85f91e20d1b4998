"""Per-client bounds on what a live stream holds while it is open (`/games/{id}/live`,
`/games/live`, `/tournaments/{id}/live`): at most `per_client` streams of one client at once,
so that one client cannot hold the process's connections and pollers for everyone. A client is
its address as the server saw it (`services.doors.asgi.replaylimits.client_of`: the
X-Forwarded-For client only behind a trusted proxy), as for the replay queue's per-client
bound (`services.runtime.fairqueue`). A refusal is a `LiveRefused`, answered as
the replay queue's refusals are: an RFC 9457 problem with the rule, the setting (`limit`,
`limit_value`) and `Retry-After`. Source: issue brief (every door: each size and queue
bounded, fairly between clients).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from services.usecases.readmodels.errors import ReplayRefused

RETRY_AFTER_S = 5
"""Seconds a refused client is asked to wait: a stream it holds must end first."""


class LiveRefused(ReplayRefused):
    """A live stream refused by a per-client bound: HTTP 429, `rule` (e.g. `live.client_limit`),
    `limit` the setting (`SCORELEDGER_...`) and `value` its value."""

    def __init__(self, rule: str, limit: str, value: int, message: str) -> None:
        super().__init__(429, rule, limit, value, message, RETRY_AFTER_S)


class ClientHolds:
    """How many live streams each client holds, at most `per_client` each (>= 1).

    `check(client)` refuses early (before a stream starts, for a clean 429); `hold(client)`
    counts one stream for the block and refuses past the bound itself (no await between the
    test and the count, so concurrent requests cannot pass it together)."""

    SETTING = "SCORELEDGER_LIVE_PER_CLIENT"

    def __init__(self, per_client: int) -> None:
        if per_client < 1:
            raise ValueError(f"per_client must be >= 1, got {per_client}")
        self.per_client = per_client
        self._held: dict[str, int] = {}

    def held(self, client: str) -> int:
        """Streams `client` holds now."""
        return self._held.get(client, 0)

    def check(self, client: str) -> None:
        """Raises `LiveRefused("live.client_limit")` when `client` holds `per_client` streams."""
        if self.held(client) >= self.per_client:
            raise LiveRefused(
                "live.client_limit",
                self.SETTING,
                self.per_client,
                f"this client holds {self.per_client} live streams already; close one first",
            )

    @contextmanager
    def hold(self, client: str) -> Iterator[None]:
        """One stream of `client` for the block. Raises `LiveRefused` past the bound."""
        self.check(client)
        self._held[client] = self.held(client) + 1
        try:
            yield
        finally:
            left = self._held[client] - 1
            if left:
                self._held[client] = left
            else:
                del self._held[client]
