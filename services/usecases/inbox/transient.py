"""Transient storage faults and how the inbox waits them out (tenacity, exponential backoff).

A transient fault says nothing about the entry: the server is away or busy (connection refused
or reset, a timeout, `LOADING` after a restart, `BUSY` script, `MASTERDOWN`, `READONLY` during a
failover, `OOM` until retention frees memory) or a cluster is moving (`MOVED`/`ASK` storms,
`CLUSTERDOWN`, `TRYAGAIN`, redis-py's `ClusterError` "TTL exhausted"). The Redis adapter raises
each as the ports' `StoreUnavailable` (`services/adapters/redis/errors.py` lists them). Such an
error is retried until the store answers, never turned into a dead letter. Anything else (a
bug, an error Redis gives for the command itself) propagates: the entry stays pending and is
taken again by a reclaimer (`services.usecases.inbox.reclaim`).

Retries are counted in `scoreledger_inbox_retries_total{reason}`: `redis` (a transient fault),
`order` (an entry waiting for an earlier pending entry of its game).
Source: docs/decisions/0011-faults-are-answered-not-crashed.md ("a Redis error is retried, with backoff, from a library"); tenacity 9
`AsyncRetrying`.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable

import structlog
from prometheus_client import Counter
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, wait_exponential_jitter

from services.ports.errors import ReplicasUnconfirmed, StoreUnavailable

log = structlog.get_logger("inbox")

INBOX_RETRIES = Counter(
    "scoreledger_inbox_retries_total",
    "Inbox rounds retried: a transient Redis fault (redis) or an entry waiting for an "
    "earlier pending entry of its game (order)",
    ["reason"],
)

_TRANSIENT_TYPES = (StoreUnavailable, OSError, asyncio.TimeoutError, ReplicasUnconfirmed)
"""The ports' transient error (the Redis adapter raises every transient Redis fault as one:
`services/adapters/redis/errors.py`), the OS's own connection and timeout errors, and an append
stored but not yet on enough replicas (the retry is answered as a duplicate)."""


class Blocked(Exception):
    """A round left entries waiting for an earlier pending entry of their game (retried)."""


def is_transient(error: BaseException) -> bool:
    """True for a fault of the connection or the server's state (see the module docstring)."""
    return isinstance(error, _TRANSIENT_TYPES)


def _count_and_log(what: str) -> Callable[[RetryCallState], None]:
    def before_sleep(state: RetryCallState) -> None:
        error = state.outcome.exception() if state.outcome is not None else None
        reason = "order" if isinstance(error, Blocked) else "redis"
        INBOX_RETRIES.labels(reason=reason).inc()
        n = state.attempt_number  # say it early for Redis, and now and then for a long wait
        loud = n % 10 == 1 if reason == "redis" else n % 30 == 0
        level = log.warning if loud else log.debug
        level(
            f"{what}.retry",
            reason=reason,
            attempt=state.attempt_number,
            wait_s=round(state.upcoming_sleep, 3),
            error=repr(error),
        )

    return before_sleep


def until_redis_answers(
    what: str,
    cap_s: float,
    stopping: Callable[[], bool] = lambda: False,
    *,
    blocked_for_s: float = math.inf,
) -> AsyncRetrying:
    """Retry transient faults forever and `Blocked` rounds for up to `blocked_for_s` seconds:
    50 ms doubling up to `cap_s` seconds, with jitter. Stops (re-raising the last error) once
    `stopping()` is true (the consumer is shutting down: its entries stay pending for the next
    one), or on a `Blocked` round past `blocked_for_s`."""

    def stop(state: RetryCallState) -> bool:
        error = state.outcome.exception() if state.outcome is not None else None
        late = isinstance(error, Blocked) and (state.seconds_since_start or 0) >= blocked_for_s
        return stopping() or late

    return AsyncRetrying(
        retry=retry_if_exception(lambda e: isinstance(e, Blocked) or is_transient(e)),
        wait=wait_exponential_jitter(multiplier=0.05, max=cap_s, jitter=0.05),
        stop=stop,
        before_sleep=_count_and_log(what),
        reraise=True,
    )
