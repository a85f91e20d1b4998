"""Redis errors as the ports' errors: every error the process's client raises is also a
`services.ports.errors.StoreError` (`StoreUnavailable` when transient), so doors catch port
errors and never import `redis`.

How: the client (`connect.py`: `CancelSafeRedis`, `GatedRedisCluster` and their pipelines)
re-raises each `RedisError` as `translated(error)`, an instance of a class derived from both
the error's own class and the port error (`ConnectionError` + `StoreUnavailable`, ...), with the
same args and attributes, chained to the original. Code of the adapters (and redis-py's own,
such as `Script` catching `NoScriptError`) still catches Redis's classes; doors catch the
port's. `reason` is the short text a 503 names (never Redis's message, which may quote a key or
a URL); `kind` is what failed.

Transient ("not now", rather than "not this"): connection and timeout errors (also a pool with
no connection free within `redis_pool_timeout_s`, a refused AUTH: credentials may be rotated),
`LOADING`, cluster down or resharding (`CLUSTERDOWN`, `TRYAGAIN`, `MOVED`/`ASK` storms, redis-py's
`ClusterError` "TTL exhausted", a slot not covered), `READONLY` during a failover, `OOM` until
retention frees memory, and the plain replies `BUSY`, `MASTERDOWN`, `NOREPLICAS`, `MISCONF`,
`UNBLOCKED`. Source: docs/decisions/0011-faults-are-answered-not-crashed.md; redis-py 8.1 `redis/exceptions.py`.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from redis import exceptions as rexc

from services.platform.causes import causes
from services.ports.errors import StoreError, StoreUnavailable

T = TypeVar("T")

FAULTS: dict[type[Exception], tuple[str, str]] = {
    rexc.BusyLoadingError: ("loading", "Redis is loading its data"),
    rexc.AuthenticationError: ("credentials", "Redis refused the credentials"),
    rexc.MaxConnectionsError: ("pool", "no Redis connection free"),
    rexc.ConnectionError: ("unreachable", "Redis unreachable"),
    rexc.TimeoutError: ("timeout", "Redis did not answer in time"),
    rexc.ClusterDownError: ("cluster", "the Redis cluster is down"),
    rexc.TryAgainError: ("cluster", "a Redis cluster slot is moving"),
    rexc.AskError: ("cluster", "a Redis cluster slot is moving"),  # and MovedError
    rexc.ClusterError: ("cluster", "the Redis cluster cannot serve"),
    rexc.SlotNotCoveredError: ("cluster", "a Redis cluster slot is not covered"),
    rexc.ReadOnlyError: ("readonly", "Redis is read-only (a failover in progress)"),
    rexc.OutOfMemoryError: ("memory", "Redis is out of memory"),
}
"""Transient classes (the most specific first: the order is the lookup order): kind, reason."""

FAULT_REPLIES: dict[str, tuple[str, str]] = {
    "NOREPLICAS": ("replicas", "Redis has too few replicas to take writes"),
    "MISCONF": ("persistence", "Redis cannot persist its data (a failed background save)"),
    "BUSY": ("busy", "Redis is busy running a script"),
    "MASTERDOWN": ("cluster", "the Redis primary is down"),
    "LOADING": ("loading", "Redis is loading its data"),
    "TRYAGAIN": ("cluster", "a Redis cluster slot is moving"),
    "CLUSTERDOWN": ("cluster", "the Redis cluster is down"),
    "READONLY": ("readonly", "Redis is read-only (a failover in progress)"),
    "MOVED": ("cluster", "a Redis cluster slot is moving"),
    "ASK": ("cluster", "a Redis cluster slot is moving"),
    "OOM": ("memory", "Redis is out of memory"),
    "UNBLOCKED": ("busy", "a blocked Redis call was unblocked"),
}
"""Transient faults redis-py raises as a plain `ResponseError`, by the reply's first word."""

DRIVER_ERRORS = (rexc.RedisError, rexc.RedisClusterException)
"""Every error redis-py raises (the cluster client's own, such as `SlotNotCoveredError`, do not
derive from `RedisError`)."""

DENIED = (rexc.NoPermissionError, rexc.AuthorizationError)
"""An ACL refused a command or a key (not transient: the configuration must change)."""

_PIPELINE_PREFIX = re.compile(r"^Command # \d+ \(.*\) of pipeline caused error: ", re.S)


def reply_code(error: BaseException) -> str:
    """The first word of a Redis error reply (`BUSY`, `NOREPLICAS`, ...), upper-case, also
    when redis-py prefixed it with "Command # n (...) of pipeline caused error: " (and the
    reply as a tuple's repr: `('BUSY ...',)`)."""
    text = _PIPELINE_PREFIX.sub("", str(error), count=1).lstrip("('\"")
    return text.split(" ", 1)[0].upper()


def classify(error: BaseException) -> tuple[str, str] | None:
    """(kind, reason) of a transient Redis error, None for any other error. Refused
    credentials anywhere in the cause chain (the cluster client wraps a node's
    `AuthenticationError` in a `RedisClusterException`) make it `credentials`."""
    if any(isinstance(e, rexc.AuthenticationError) for e in causes(error)):
        return FAULTS[rexc.AuthenticationError]
    if isinstance(error, rexc.ConnectionError) and "No connection available" in str(error):
        return FAULTS[rexc.MaxConnectionsError]  # the blocking pool waited its timeout
    if isinstance(error, rexc.ConnectionError) and "no Redis connection free" in str(error):
        return FAULTS[rexc.MaxConnectionsError]  # the cluster gate waited its timeout
    found = next((f for kind, f in FAULTS.items() if isinstance(error, kind)), None)
    if found is None and isinstance(error, rexc.ResponseError):
        found = FAULT_REPLIES.get(reply_code(error))
    return found


_CLASSES: dict[tuple[type[BaseException], type[StoreError]], type[Any]] = {}


def _rebuild(
    base: type[BaseException], port: type[StoreError], args: tuple[Any, ...], state: Any
) -> BaseException:
    """Unpickle a translated error (a replay worker's error crosses a process boundary)."""
    cls: Any = _class_of(base, port)
    error: Any = cls.__new__(cls)  # an OSError's layout for `StoreUnavailable`
    error.args = args
    error.__dict__.update(state)
    return error  # type: ignore[no-any-return]


def _reduce(self: BaseException) -> tuple[Any, ...]:
    base, port = type(self).__bases__
    return (_rebuild, (base, port, self.args, dict(self.__dict__)))


def _class_of(base: type[BaseException], port: type[StoreError]) -> type[Any]:
    """The class deriving from `base` (a Redis error class) and `port`, made once."""
    cls = _CLASSES.get((base, port))
    if cls is None:
        body = {"__module__": __name__, "__reduce__": _reduce, "__doc__": base.__doc__}
        cls = _CLASSES[(base, port)] = type(base.__name__, (base, port), body)
    return cls


def translated(error: BaseException) -> BaseException:
    """`error` as an instance of its own class and of `StoreUnavailable` (transient, see the
    module docstring) or `StoreError` (kind `permission` for an ACL refusal, else `failed`):
    same args, same attributes. An error already translated is returned as it is."""
    if isinstance(error, StoreError):
        return error
    fault = classify(error)
    port: type[StoreError] = StoreUnavailable if fault is not None else StoreError
    if fault is None:
        denied = isinstance(error, DENIED)
        fault = ("permission", "Redis refused a command") if denied else ("failed", "Redis error")
    cls: Any = _class_of(type(error), port)
    new: Any = cls.__new__(cls)
    new.args = error.args
    new.__dict__.update(error.__dict__)
    new.kind, new.reason = fault
    return new  # type: ignore[no-any-return]


async def storing(call: Callable[[], Awaitable[T]]) -> T:
    """`await call()`, a Redis error re-raised `translated` (chained to the original)."""
    try:
        return await call()
    except DRIVER_ERRORS as error:
        raise translated(error) from error
