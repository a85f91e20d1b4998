"""The outbound-webhooks ports: where endpoints, pending deliveries, the delivery log and the
dispatcher's checkpoint are kept (`WebhookStore`), and how a signed request is sent
(`WebhookTransport`).

A delivery is recorded (pending, in its endpoint's bounded queue) before its first attempt and
leaves the queue only when it is delivered, finally failed, dropped by the bound or superseded by
a newer `standings.changed` of its game; each of those outcomes is one entry of the endpoint's
bounded delivery log, with the body (so it can be replayed under the same `webhook-id`).
Source: Standard Webhooks 1.0 (`webhook-id` stable across retries; research
tournaments-and-integrations.md Q4).
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal, Protocol

Outcome = Literal["delivered", "failed", "dropped", "superseded"]
"""How a delivery left the queue."""


@dataclass(frozen=True, slots=True)
class Secret:
    """A signing secret `whsec_<base64>`; `expires_ms` (Unix ms) ends a rotated-out secret's
    window (None: the current secret, no end)."""

    value: str
    expires_ms: int | None = None


@dataclass(frozen=True, slots=True)
class Endpoint:
    """An operator-configured receiver: `url`, one game (`game_id`) or every game (None), the
    event types it takes (`events`, empty: all), its secrets (the current one first)."""

    id: str
    url: str
    game_id: str | None
    events: tuple[str, ...]
    secrets: tuple[Secret, ...]
    created_ms: int

    def wants(self, game_id: str | None, event_type: str) -> bool:
        """True when this endpoint takes `event_type` of `game_id` (a test event: any)."""
        if self.game_id is not None and game_id is not None and game_id != self.game_id:
            return False
        return not self.events or event_type in self.events

    def live_secrets(self, now_ms: int) -> tuple[Secret, ...]:
        """The secrets to sign with at `now_ms`: the current one and those still in their
        rotation window."""
        return tuple(s for s in self.secrets if s.expires_ms is None or s.expires_ms > now_ms)


@dataclass(frozen=True, slots=True)
class Delivery:
    """One message to one endpoint. `id` is the `webhook-id` (kept across retries and replays);
    `body` the JSON signed and sent (fixed when enqueued); `coalesce` the game whose newer
    `standings.changed` replaces this one while pending (None: never replaced)."""

    id: str
    endpoint_id: str
    type: str
    game_id: str | None
    body: str
    created_ms: int
    attempts: int = 0
    last_error: str | None = None
    coalesce: str | None = None


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One line of an endpoint's delivery log: `status` is `pending` (still queued) or an
    `Outcome`; `http_status` the last answer's status (None: no answer)."""

    delivery: Delivery
    status: Literal["pending"] | Outcome
    at_ms: int
    http_status: int | None = None

    def settled(self, status: Outcome, at_ms: int, http_status: int | None) -> LogEntry:
        """This entry with another status."""
        return replace(self, status=status, at_ms=at_ms, http_status=http_status)


@dataclass(frozen=True, slots=True)
class DispatchCheckpoint:
    """Where the dispatcher stands: the last change notice read per shard, and `since_ms`,
    when it first started (a game first seen later only gets its events recorded since)."""

    positions: Mapping[int, str]
    since_ms: int


@dataclass(frozen=True, slots=True)
class DispatchBatch:
    """What one dispatcher step stores at once (`WebhookStore.commit`): the `deliveries` to
    queue, the last seq dispatched of each game it saw (`seen`: game -> seq), the
    `checkpoint` it moved to, and `scrubs` (game -> `WebhookStore.scrubs` as read before the
    game's events: the commit is refused, `ScrubRaced`, when a forget scrubbed since)."""

    deliveries: Sequence[Delivery]
    seen: Mapping[str, int]
    checkpoint: DispatchCheckpoint
    scrubs: Mapping[str, int] = field(default_factory=dict)


class ScrubRaced(Exception):
    """`WebhookStore.commit` stored nothing: a forget scrubbed one of the batch's games after
    the dispatcher read its events, so the bodies may hold a name it removed (derive them
    again; docs/forget.md)."""


@dataclass(frozen=True, slots=True)
class EnqueueOutcome:
    """What an enqueue did besides queueing: deliveries `dropped` by a full queue (per
    endpoint id) and pending ones `superseded` by a newer `standings.changed`."""

    dropped: Mapping[str, int] = field(default_factory=dict)
    superseded: Mapping[str, int] = field(default_factory=dict)


class WebhookStore(Protocol):
    """Implementations: `adapters.redis.RedisWebhookStore`,
    `adapters.memory.MemoryWebhookStore`; `tests/ports/test_webhooks.py` holds both
    to one suite. Queues and logs are per endpoint and bounded by the caller's `max_queue` /
    `max_log`."""

    async def put_endpoint(self, endpoint: Endpoint) -> None:
        """Store (create or replace) `endpoint`."""
        ...

    async def endpoints(self) -> list[Endpoint]:
        """Every endpoint, by URL."""
        ...

    async def remove_endpoint(self, endpoint_id: str) -> bool:
        """Remove the endpoint, its queue and its log; False when there was none."""
        ...

    async def checkpoint(self) -> DispatchCheckpoint | None:
        """The dispatcher's checkpoint (None: it never ran)."""
        ...

    async def seen(self, game_ids: Sequence[str]) -> list[int | None]:
        """The last seq dispatched of each game (None: never seen), in order."""
        ...

    async def scrubs(self, game_ids: Sequence[str]) -> list[int]:
        """How many times `scrub` ran for each game (0: never), in order."""
        ...

    async def commit(self, batch: DispatchBatch, max_queue: int, max_log: int) -> EnqueueOutcome:
        """In one atomic step: queue the batch's deliveries (a coalescable one replaces its
        game's pending one in place, logged `superseded`; a full queue drops its oldest
        coalescable delivery, else its oldest, logged `dropped`), record its `seen` and move
        the checkpoint to its `checkpoint`.

        Raises:
            ScrubRaced: a game of `batch.scrubs` was scrubbed since (its count differs);
                nothing is stored.
        """
        ...

    async def enqueue(
        self,
        delivery: Delivery,
        max_queue: int,
        max_log: int,
        scrubs: Mapping[str, int] | None = None,
    ) -> EnqueueOutcome:
        """Queue one delivery (a replay), with the bound of `commit`. `scrubs` (game ->
        `scrubs` count as read before the delivery's body): nothing is queued when a count
        moved since. Raises: `ScrubRaced` (nothing stored)."""
        ...

    async def pending(self, endpoint_id: str, limit: int) -> list[Delivery]:
        """The endpoint's first `limit` queued deliveries, oldest first."""
        ...

    async def depth(self, endpoint_id: str) -> int:
        """How many deliveries the endpoint's queue holds."""
        ...

    async def attempted(self, delivery: Delivery) -> bool:
        """Record `delivery`'s `attempts` and `last_error` if it is still queued; False when it
        is not (superseded, dropped or removed meanwhile: stop sending it)."""
        ...

    async def settle(
        self, delivery: Delivery, outcome: Outcome, http_status: int | None, max_log: int
    ) -> bool:
        """Remove `delivery` from its queue and log it with `outcome`; False when it was no
        longer queued (nothing logged)."""
        ...

    async def log(self, endpoint_id: str, limit: int) -> list[LogEntry]:
        """The endpoint's delivery log, newest first: pending deliveries, then settled ones."""
        ...

    async def dropped(self, endpoint_id: str) -> int:
        """How many deliveries the endpoint's bound has dropped, ever."""
        ...

    async def scrub(self, game_id: str, replacements: Sequence[tuple[str, str]]) -> int:
        """Replace each `(old, new)` text in the body of every delivery of `game_id` kept by
        any endpoint, queued or logged (`forget`: a replay then sends the pseudonym), and
        count the scrub in `scrubs` (even when nothing changed), in one atomic step; how many
        deliveries changed."""
        ...


@dataclass(frozen=True, slots=True)
class Answer:
    """A receiver's HTTP answer: `status` and its `Retry-After` in seconds (None: absent or
    not a number of seconds)."""

    status: int
    retry_after_s: float | None = None


class TransportError(Exception):
    """The request got no answer: timeout, refused, reset, DNS (retried)."""


LOCAL_NAMES = frozenset(("localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"))
"""Host names that mean this machine whatever DNS says."""


def literal_address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The IP address `host` (a URL's host name, brackets removed) spells, in any form a
    resolver takes (`127.0.0.1`, `2130706433`, `0x7f.1`, `::1`); None for a DNS name."""
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        pass
    try:  # the legacy IPv4 forms getaddrinfo still accepts
        return ipaddress.IPv4Address(socket.inet_aton(host))
    except OSError:
        return None


def non_public(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """True for an address a webhook must not reach unless the operator allows it: loopback,
    private (RFC 1918, ULA), link-local (cloud metadata at 169.254.169.254), shared
    (100.64/10), unspecified, reserved, multicast; an IPv4-mapped IPv6 address as its IPv4.
    Source: IANA special-purpose address registries (Python's `ipaddress.is_global`)."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return not address.is_global or address.is_multicast


def non_public_host(host: str) -> bool:
    """True when `host` (a URL's host name) is a local name or spells a non-public address
    (a DNS name is judged by what it resolves to, when sent)."""
    name = host.strip("[]").rstrip(".").lower()
    if name in LOCAL_NAMES or name.endswith(".localhost"):
        return True
    address = literal_address(name)
    return address is not None and non_public(address)


class WebhookTransport(Protocol):
    """Implementation: `adapters.http.HttpxTransport`."""

    async def post(self, url: str, body: bytes, headers: Mapping[str, str]) -> Answer:
        """POST `body` with `headers` to `url`, within the transport's time bound.

        Raises:
            TransportError: no answer.
        """
        ...
