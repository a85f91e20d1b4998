"""Redis's transient faults as the ports' `StoreUnavailable`, so no door catches a redis-py
exception: connection errors (refused, reset, no connection free), timeouts, a cluster that is
down or moving a slot, a replica promoted mid-write. The reasons are the ones the HTTP doors
answer 503 with (`services.doors.asgi.http_errors.STORAGE_FAULTS`)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from redis import exceptions as rexc

from services.ports.errors import StoreUnavailable

TRANSIENT: tuple[tuple[type[Exception], str], ...] = (
    (rexc.BusyLoadingError, "Redis is loading its data"),
    (rexc.AuthenticationError, "Redis refused the credentials"),
    (rexc.MaxConnectionsError, "no Redis connection free"),
    (rexc.ConnectionError, "Redis unreachable"),
    (rexc.TimeoutError, "Redis did not answer in time"),
    (rexc.ClusterDownError, "the Redis cluster is down"),
    (rexc.TryAgainError, "a Redis cluster slot is moving"),
    (rexc.ClusterError, "the Redis cluster cannot serve"),
    (rexc.SlotNotCoveredError, "a Redis cluster slot is not covered"),
    (rexc.ReadOnlyError, "Redis is read-only (a failover in progress)"),
)
"""(redis-py error, reason) pairs, the first match wins (subclasses before their bases)."""


def transient_reason(error: BaseException) -> str | None:
    """The reason of `error` when it is one of the `TRANSIENT` faults, else None."""
    return next((why for kind, why in TRANSIENT if isinstance(error, kind)), None)


@contextmanager
def unavailable() -> Iterator[None]:
    """Re-raise a transient Redis fault inside the block as `StoreUnavailable` (from it)."""
    try:
        yield
    except (rexc.RedisError, rexc.RedisClusterException) as error:
        reason = transient_reason(error)
        if reason is None:
            raise
        raise StoreUnavailable(f"{type(error).__name__}: {error}", reason) from error
