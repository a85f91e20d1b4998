"""What an operator does with webhook endpoints: add, list, remove, rotate a secret, send a test
event, read the delivery log, replay a delivery.

Secrets are `whsec_` + base64 of 32 random bytes (Standard Webhooks 1.0: 24 to 64 bytes). A
rotation puts a new secret first and keeps the old one signing until its window ends, so a
receiver that still holds the old secret verifies every message meanwhile (both signatures are
sent, space-separated). Source: Standard Webhooks 1.0 spec (secrets, rotation).
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from urllib.parse import urlsplit, urlunsplit

from services.webhooks.ports import (
    Delivery,
    Endpoint,
    LogEntry,
    Outcome,
    ScrubRaced,
    Secret,
    TransportError,
    WebhookStore,
    non_public_host,
)
from services.webhooks.usecases.deliver import Sender
from services.webhooks.usecases.dispatch import RACED_TRIES, Bounds
from services.webhooks.usecases.messages import TEST, TYPES, test_message

MAX_URL = 2000


class WebhookRefused(Exception):
    """An operator's request refused: `rule` names what is wrong (`webhook.url`,
    `webhook.events`, `webhook.exists`, `webhook.unknown`, `webhook.delivery_unknown`)."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule


def new_secret() -> str:
    """A fresh `whsec_...` secret (32 random bytes, base64)."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()


def endpoint_id(url: str) -> str:
    """The endpoint id of `url`: `ep_` + 16 hex of its SHA-256 (one endpoint per URL)."""
    return "ep_" + hashlib.sha256(url.encode()).hexdigest()[:16]


def check_url(url: str, allow_private: bool = False) -> str:
    """`url` if it is an absolute http(s) URL of at most 2000 characters, else
    `WebhookRefused("webhook.url")`; a local name or a non-public address as its host
    (loopback, private, link-local, ...: `services.webhooks.ports.non_public`) is
    `WebhookRefused("webhook.private_address")` unless `allow_private`
    (`SCORELEDGER_WEBHOOK_ALLOW_PRIVATE`). A DNS name is checked again when sent, by what it
    resolves to."""
    bad = WebhookRefused("webhook.url", f"not an http(s) URL of at most {MAX_URL} characters")
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        raise bad from None
    if len(url) > MAX_URL or parts.scheme not in ("http", "https") or not host:
        raise bad
    if not allow_private and non_public_host(host):
        raise WebhookRefused(
            "webhook.private_address",
            f"{host[:100]} is a loopback, private or link-local address; an operator allows "
            "those with SCORELEDGER_WEBHOOK_ALLOW_PRIVATE",
        )
    return url


def masked_url(url: str) -> str:
    """`url` with the credentials of its authority (`user:password@`) shown as `***@`, for
    every listing and message."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"***@{host}"))


@dataclass(frozen=True, slots=True)
class TestResult:
    """A test event's delivery: its log entry, and the error when there was no answer."""

    entry: LogEntry
    error: str | None


@dataclass(eq=False, slots=True)
class WebhookAdmin:
    """The operator's use case over `store`; `sender` sends test events. `clock`: Unix seconds.
    `allow_private`: endpoints may target loopback, private and link-local addresses."""

    store: WebhookStore
    sender: Sender
    bounds: Bounds
    clock: Callable[[], float] = time.time
    allow_private: bool = False

    async def add(self, url: str, game_id: str | None, events: Sequence[str]) -> Endpoint:
        """A new endpoint for `url` (one game or all, `events` of `messages.TYPES`, empty: all)
        with a fresh secret. Raises `WebhookRefused` (`webhook.url`, `webhook.events`,
        `webhook.exists`, `webhook.private_address`)."""
        check_url(url, self.allow_private)
        unknown = sorted(set(events) - set(TYPES))
        if unknown:
            raise WebhookRefused(
                "webhook.events", f"unknown event types {unknown}; known: {list(TYPES)}"
            )
        if await self.find(url) is not None:
            raise WebhookRefused("webhook.exists", f"an endpoint for {url} exists; remove it first")
        endpoint = Endpoint(
            endpoint_id(url),
            url,
            game_id,
            tuple(dict.fromkeys(events)),
            (Secret(new_secret()),),
            int(self.clock() * 1000),
        )
        await self.store.put_endpoint(endpoint)
        return endpoint

    async def overview(self) -> list[tuple[Endpoint, int, int]]:
        """Every endpoint (by URL) with its queue depth and how many deliveries its bound has
        dropped."""
        found = await self.store.endpoints()
        return [(e, await self.store.depth(e.id), await self.store.dropped(e.id)) for e in found]

    async def find(self, url: str) -> Endpoint | None:
        """The endpoint of `url`, or None."""
        wanted = endpoint_id(url)
        return next((e for e in await self.store.endpoints() if e.id == wanted), None)

    async def get(self, url: str) -> Endpoint:
        """The endpoint of `url`. Raises `WebhookRefused("webhook.unknown")`."""
        found = await self.find(url)
        if found is None:
            raise WebhookRefused("webhook.unknown", f"no endpoint for {url}")
        return found

    async def remove(self, url: str) -> None:
        """Remove the endpoint of `url` with its queue and log. Raises `WebhookRefused`."""
        if not await self.store.remove_endpoint((await self.get(url)).id):
            raise WebhookRefused("webhook.unknown", f"no endpoint for {url}")

    async def rotate(self, url: str, window_s: float) -> Endpoint:
        """A new current secret for `url`'s endpoint; the previous one keeps signing for
        `window_s` seconds (0: it stops now); secrets past their window are dropped. Raises
        `WebhookRefused`."""
        endpoint = await self.get(url)
        now_ms = int(self.clock() * 1000)
        old = [s for s in endpoint.live_secrets(now_ms) if s.expires_ms is not None]
        ends = now_ms + int(window_s * 1000)
        current = [replace(s, expires_ms=ends) for s in endpoint.secrets if s.expires_ms is None]
        kept = tuple(
            s for s in (*current, *old) if s.expires_ms is not None and s.expires_ms > now_ms
        )
        rotated = replace(endpoint, secrets=(Secret(new_secret()), *kept))
        await self.store.put_endpoint(rotated)
        return rotated

    async def test(self, url: str) -> TestResult:
        """Send one `webhook.test` to `url`'s endpoint now (one attempt, no retry), then log it.
        Raises `WebhookRefused`."""
        endpoint = await self.get(url)
        now = self.clock()
        text = test_message(datetime.fromtimestamp(now, UTC))
        delivery = Delivery(
            f"msg_{uuid.uuid4().hex}", endpoint.id, TEST, None, text, int(now * 1000)
        )
        try:
            answer = await self.sender.attempt(endpoint, delivery)
        except TransportError as error:
            failed = replace(delivery, attempts=1, last_error=str(error) or type(error).__name__)
            await self._log(failed, "failed", None)
            return TestResult(
                LogEntry(failed, "failed", int(self.clock() * 1000)), failed.last_error
            )
        ok = 200 <= answer.status < 300
        sent = replace(delivery, attempts=1, last_error=None if ok else f"HTTP {answer.status}")
        outcome: Outcome = "delivered" if ok else "failed"
        await self._log(sent, outcome, answer.status)
        return TestResult(LogEntry(sent, outcome, int(self.clock() * 1000), answer.status), None)

    async def _log(self, delivery: Delivery, outcome: Outcome, status: int | None) -> None:
        """Log a delivery sent outside the queue (queued and settled at once: never sent by
        the webhooks role)."""
        await self.store.enqueue(delivery, self.bounds.max_queue, self.bounds.max_log)
        await self.store.settle(delivery, outcome, status, self.bounds.max_log)

    async def deliveries(self, url: str, limit: int) -> list[LogEntry]:
        """`url`'s delivery log, newest first (pending ones first). Raises `WebhookRefused`."""
        return await self.store.log((await self.get(url)).id, limit)

    async def replay(self, delivery_id: str) -> Delivery:
        """Queue a logged delivery again under its `webhook-id`, attempts reset; a running
        webhooks role sends it. The body queued is the one logged after the game's last
        scrub: a forget between the read and the enqueue refuses the enqueue (`ScrubRaced`)
        and the body is read again, up to `RACED_TRIES` times (docs/forget.md). Raises
        `WebhookRefused("webhook.delivery_unknown")` when no endpoint's log holds it,
        `ScrubRaced` when every try was raced."""
        logged = await self._logged(delivery_id)
        game_id = logged.game_id
        if game_id is None:  # no game's body: nothing a forget scrubs
            again = replace(logged, attempts=0, last_error=None)
            await self.store.enqueue(again, self.bounds.max_queue, self.bounds.max_log)
            return again
        raced: ScrubRaced | None = None
        for _ in range(RACED_TRIES):
            [count] = await self.store.scrubs([game_id])
            # the body read after the count: scrubbed by every scrub that count holds
            again = replace(await self._logged(delivery_id), attempts=0, last_error=None)
            try:
                scrubs = {game_id: count}
                await self.store.enqueue(again, self.bounds.max_queue, self.bounds.max_log, scrubs)
            except ScrubRaced as error:
                raced = error
                continue
            return again
        assert raced is not None
        raise raced

    async def _logged(self, delivery_id: str) -> Delivery:
        """The logged (not pending) delivery `delivery_id` of any endpoint. Raises
        `WebhookRefused("webhook.delivery_unknown")`."""
        for endpoint in await self.store.endpoints():
            for entry in await self.store.log(
                endpoint.id, self.bounds.max_log + self.bounds.max_queue
            ):
                if entry.delivery.id == delivery_id and entry.status != "pending":
                    return entry.delivery
        raise WebhookRefused(
            "webhook.delivery_unknown", f"no logged delivery {delivery_id} (or it is still pending)"
        )
