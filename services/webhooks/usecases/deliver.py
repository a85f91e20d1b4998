"""Sending queued deliveries: Standard Webhooks 1.0 headers, signed with every live secret of the
endpoint (the `standardwebhooks` reference implementation), retried with exponential backoff and
jitter (tenacity) on 5xx, 429 (its `Retry-After` honoured) and no answer; any other non-2xx
answer fails the delivery at once.

The delivery stays queued (in the store) until it is delivered or finally failed; each failed
attempt is recorded first, so a restart goes on counting. A delivery that leaves the queue
meanwhile (superseded by a newer `standings.changed`, dropped by the bound, its endpoint removed)
is not sent again. Sources: Standard Webhooks 1.0 spec (headers, `v1,` signatures, space
separated for rotation; `webhook-id` kept across retries; retry schedule with backoff);
research tournaments-and-integrations.md Q4.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from standardwebhooks.webhooks import Webhook
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception_type,
    stop_after_attempt,
    wait_exponential_jitter,
)

from services.webhooks.ports import (
    Answer,
    Delivery,
    Endpoint,
    Outcome,
    TransportError,
    WebhookStore,
    WebhookTransport,
)


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """At most `max_attempts` attempts per delivery; waits `initial_s`, doubling, up to `max_s`,
    plus up to `initial_s` of jitter; a 429's `Retry-After` is waited instead, up to
    `retry_after_max_s` seconds."""

    max_attempts: int = 8
    initial_s: float = 1.0
    max_s: float = 300.0
    retry_after_max_s: float = 300.0


class _Retry(Exception):
    """A retryable failure: `error` in words, `status` (None: no answer), `wait_s` asked by a
    429's `Retry-After`."""

    def __init__(self, error: str, status: int | None, wait_s: float | None = None) -> None:
        super().__init__(error)
        self.status = status
        self.wait_s = wait_s


class _Abandoned(Exception):
    """The delivery left the queue meanwhile."""


class _Stopping(Exception):
    """The sender is stopping: a wait between attempts ends here (the delivery stays queued)."""


def signed_headers(endpoint: Endpoint, delivery: Delivery, now: float) -> dict[str, str]:
    """`webhook-id`, `webhook-timestamp` (Unix seconds) and `webhook-signature`: a `v1,<base64>`
    per live secret, space-separated (current secret first), plus the content type."""
    moment = datetime.fromtimestamp(int(now), UTC)
    secrets = endpoint.live_secrets(int(now * 1000)) or endpoint.secrets[:1]
    signatures = " ".join(
        Webhook(s.value).sign(delivery.id, moment, delivery.body) for s in secrets
    )
    return {
        "webhook-id": delivery.id,
        "webhook-timestamp": str(int(now)),
        "webhook-signature": signatures,
        "content-type": "application/json",
    }


@dataclass(frozen=True, slots=True)
class Sent:
    """How a delivery ended: `outcome` (None: it left the queue meanwhile, or the sender
    stopped), the attempts made in all (`made` of them by this call), the last HTTP status (None:
    no answer) and the last error in words."""

    outcome: Outcome | None
    attempts: int
    http_status: int | None
    error: str | None
    made: int = 0


@dataclass(eq=False, slots=True)
class Sender:
    """Sends one endpoint's deliveries, oldest first. `clock`: Unix seconds.

    `stop()` lets a request in flight finish (so it is settled, not sent again after a
    restart) but starts no other and ends every wait between attempts at once."""

    store: WebhookStore
    transport: WebhookTransport
    policy: RetryPolicy
    max_log: int
    clock: Callable[[], float] = time.time
    stopping: asyncio.Event = field(init=False, default_factory=asyncio.Event)

    def stop(self) -> None:
        """Stop taking deliveries and waiting to retry (see the class docstring)."""
        self.stopping.set()

    async def _sleep(self, seconds: float) -> None:
        """tenacity's wait between attempts, cut short by `stop()` (raises `_Stopping`)."""
        with suppress(TimeoutError):
            await asyncio.wait_for(self.stopping.wait(), seconds)
            raise _Stopping

    async def attempt(self, endpoint: Endpoint, delivery: Delivery) -> Answer:
        """One signed POST of `delivery`. Raises `TransportError` (no answer)."""
        headers = signed_headers(endpoint, delivery, self.clock())
        return await self.transport.post(endpoint.url, delivery.body.encode(), headers)

    async def queues(self) -> list[tuple[Endpoint, int]]:
        """Every registered endpoint with the number of its deliveries queued (its depth)."""
        return [(e, await self.store.depth(e.id)) for e in await self.store.endpoints()]

    async def drain(self, endpoint: Endpoint, on_sent: Callable[[Sent], None]) -> None:
        """Send the endpoint's queued deliveries one by one until its queue is empty (or the
        endpoint is removed, or `stop()`), each signed with the endpoint's secrets as stored
        then; `on_sent` is told each result. Raises what the store raises."""
        while not self.stopping.is_set():
            head = await self.store.pending(endpoint.id, 1)
            if not head:
                return
            # read again per delivery: a rotated secret signs from the next delivery on
            fresh = [e for e in await self.store.endpoints() if e.id == endpoint.id]
            if not fresh:
                return  # removed
            on_sent(await self.deliver(fresh[0], head[0]))

    async def deliver(self, endpoint: Endpoint, delivery: Delivery) -> Sent:
        """Send `delivery` with retries, then settle it (delivered or failed) in the store."""
        current = delivery
        left = self.policy.max_attempts - delivery.attempts
        if left <= 0:
            return await self._settle(current, "failed", None, delivery.attempts)
        retrying = AsyncRetrying(
            stop=stop_after_attempt(left),
            wait=self._wait,
            retry=retry_if_exception_type(_Retry),
            reraise=True,
            sleep=self._sleep,
        )
        try:
            async for attempt in retrying:
                with attempt:
                    try:
                        answer = await self._once(endpoint, current)
                    except _Retry as failed:
                        current = await self._record(current, str(failed))
                        raise
                    if 200 <= answer.status < 300:
                        return await self._settle(
                            current, "delivered", answer.status, delivery.attempts, 1
                        )
                    current = await self._record(current, f"HTTP {answer.status}")
                    return await self._settle(current, "failed", answer.status, delivery.attempts)
        except _Retry as final:
            return await self._settle(current, "failed", final.status, delivery.attempts)
        except (_Abandoned, _Stopping):
            made = current.attempts - delivery.attempts
            return Sent(None, current.attempts, None, current.last_error, made)
        raise AssertionError("unreachable: tenacity either returns or raises")  # pragma: no cover

    async def _once(self, endpoint: Endpoint, delivery: Delivery) -> Answer:
        try:
            answer = await self.attempt(endpoint, delivery)
        except TransportError as error:
            raise _Retry(str(error) or type(error).__name__, None) from None
        if answer.status == 429:
            raise _Retry("HTTP 429", 429, answer.retry_after_s)
        if answer.status >= 500:
            raise _Retry(f"HTTP {answer.status}", answer.status)
        return answer

    async def _record(self, delivery: Delivery, error: str) -> Delivery:
        tried = replace(delivery, attempts=delivery.attempts + 1, last_error=error)
        if not await self.store.attempted(tried):
            raise _Abandoned
        return tried

    async def _settle(
        self,
        delivery: Delivery,
        outcome: Outcome,
        status: int | None,
        first: int,
        extra: int = 0,
    ) -> Sent:
        """Settle `delivery` (`extra` attempts not recorded yet; `first`: its attempts before
        this call)."""
        final = replace(delivery, attempts=delivery.attempts + extra)
        settled = await self.store.settle(final, outcome, status, self.max_log)
        made = final.attempts - first
        return Sent(outcome if settled else None, final.attempts, status, final.last_error, made)

    def _wait(self, state: RetryCallState) -> float:
        failure = state.outcome.exception() if state.outcome is not None else None
        if isinstance(failure, _Retry) and failure.wait_s is not None:
            return min(failure.wait_s, self.policy.retry_after_max_s)
        p = self.policy
        backoff = wait_exponential_jitter(multiplier=p.initial_s, max=p.max_s, jitter=p.initial_s)
        return float(backoff(state))
