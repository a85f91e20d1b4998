"""Transient Redis faults and how the inbox waits them out (tenacity, exponential backoff).

A transient fault says nothing about the entry: the server is away or busy (connection refused
or reset, a timeout, `LOADING` after a restart, `BUSY` script, `MASTERDOWN`, `READONLY` during a
failover, `OOM` until retention frees memory) or a cluster is moving (`MOVED`/`ASK` storms,
`CLUSTERDOWN`, `TRYAGAIN`, redis-py's `ClusterError` "TTL exhausted"). Such an error is
retried until Redis answers, never turned into a dead letter. Anything else (a bug, an error
Redis gives for the command itself) propagates: the entry stays pending and is taken again by
a reclaimer (`services.ingest.inbox_claim`).

Retries are counted in `scoreledger_inbox_retries_total{reason}`: `redis` (a transient fault),
`order` (an entry waiting for an earlier pending entry of its game).
Source: issue 10 ("a Redis error is retried, with backoff, from a library"); redis-py 8.1
`redis/exceptions.py`; tenacity 9 `AsyncRetrying`.
"""

from __future__ import annotations

import asyncio
import math
import re
from collections.abc import Callable

import structlog
from prometheus_client import Counter
from redis import exceptions as rexc
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, wait_exponential_jitter

from services.ports.errors import ReplicasUnconfirmed

log = structlog.get_logger("inbox")

INBOX_RETRIES = Counter(
    "scoreledger_inbox_retries_total",
    "Inbox rounds retried: a transient Redis fault (redis) or an entry waiting for an "
    "earlier pending entry of its game (order)",
    ["reason"],
)

TRANSIENT_REPLIES = frozenset(
    {"BUSY", "LOADING", "TRYAGAIN", "CLUSTERDOWN", "MASTERDOWN", "READONLY", "MOVED", "ASK"}
    | {"NOREPLICAS", "OOM", "UNBLOCKED"}
    | {"MISCONF"}  # writes refused after a failed background save (issue #10)
)
"""First words of Redis error replies that say "not now" rather than "not this"."""

_TRANSIENT_TYPES = (
    rexc.ConnectionError,  # also BusyLoadingError, MaxConnectionsError, AuthenticationError
    rexc.TimeoutError,
    rexc.ClusterError,  # ClusterDownError, MasterDownError, "TTL exhausted"
    rexc.AskError,  # MovedError
    rexc.TryAgainError,
    rexc.ReadOnlyError,
    rexc.OutOfMemoryError,
    rexc.SlotNotCoveredError,
    OSError,
    asyncio.TimeoutError,
    ReplicasUnconfirmed,  # stored, but not yet on enough replicas: the retry is a duplicate
)


class Blocked(Exception):
    """A round left entries waiting for an earlier pending entry of their game (retried)."""


_PIPELINE_PREFIX = re.compile(r"^Command # \d+ \(.*\) of pipeline caused error: ", re.S)


def reply_code(error: rexc.ResponseError) -> str:
    """The first word of a Redis error reply (`BUSY`, `NOREPLICAS`, ...), upper-case, also
    when redis-py prefixed it with "Command # n (...) of pipeline caused error: " (and the
    reply as a tuple's repr: `('BUSY ...',)`)."""
    text = _PIPELINE_PREFIX.sub("", str(error), count=1).lstrip("('\"")
    return text.split(" ", 1)[0].upper()


def is_transient(error: BaseException) -> bool:
    """True for a fault of the connection or the server's state (see the module docstring)."""
    if isinstance(error, _TRANSIENT_TYPES):
        return True
    if isinstance(error, rexc.ResponseError):
        return reply_code(error) in TRANSIENT_REPLIES
    return False


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
