"""The single-node client's pool: redis-py's `BlockingConnectionPool` that checks out an idle
connection, when nobody waits for one, as redis-py's non-blocking `ConnectionPool` does.

`BlockingConnectionPool` takes its `asyncio.Condition` and starts an `asyncio` timeout on
every checkout and takes the condition again on every release, even with idle connections in
the pool: about a fifth of a command's CPU in this process (a `GET`: 80-105 µs of CPU on
`BlockingConnectionPool`, 63-66 µs on `ConnectionPool`; docs/profiles/write-round-trips.md).
Here a checkout with an idle connection and no waiter, and a release with no waiter, are
`ConnectionPool`'s own `get_connection` / `release` (its lock, its metrics, its connection
check); a checkout finding no idle connection, or behind a waiter, is
`BlockingConnectionPool`'s: it waits up to `timeout` (then `redis.ConnectionError`), in
turn, and a release that finds someone waiting notifies one, as before. So the pool still never
raises `MaxConnectionsError`, and a newcomer does not take the fast path past a waiter. A
release that finds a waiter returns once the waiter is woken, so the releasing task's next
checkout comes after it; but, as in `BlockingConnectionPool`, another task's checkout that
runs between the wake-up and the waiter may take the connection first: the order is not
strictly first come, first served.
Source: docs/decisions/0011-faults-are-answered-not-crashed.md (the pool waits).
"""

from __future__ import annotations

import asyncio
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.connection import AbstractConnection
from redis.exceptions import MaxConnectionsError


class QuickBlockingPool(aioredis.BlockingConnectionPool):
    """`BlockingConnectionPool` with `ConnectionPool`'s checkout and release while nobody
    waits (module docstring). Same arguments as `BlockingConnectionPool`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._waiting = 0  # checkouts on the blocking path (queued on the condition)

    async def get_connection(self, *args: Any, **kwargs: Any) -> AbstractConnection:
        """An idle connection at once when nobody waits, else `BlockingConnectionPool`'s wait.
        Raises: redis.ConnectionError (none free within `timeout`)."""
        if self._available_connections and not self._waiting and not self._in_maintenance:
            try:
                connection: AbstractConnection = await aioredis.ConnectionPool.get_connection(self)  # type: ignore[no-untyped-call]
                return connection
            except MaxConnectionsError:
                pass  # taken meanwhile (the pool's lock was held): wait for one below
        self._waiting += 1
        try:
            waited: AbstractConnection = await super().get_connection()  # type: ignore[no-untyped-call]
            return waited
        finally:
            self._waiting -= 1

    async def release(self, connection: AbstractConnection) -> None:
        """Back to the pool (`ConnectionPool.release`); then, if anyone waits, one waiter is
        notified. Asked once the connection is back: a checkout that starts waiting while the
        release runs (its lock may be contended) finds the connection idle, so no wake-up is
        lost, not even when the releasing task is cancelled meanwhile."""
        if self._in_maintenance:
            await super().release(connection)
            return
        await aioredis.ConnectionPool.release(self, connection)
        if self._waiting:
            # shielded: a release cancelled while the lock is contended still wakes one
            await asyncio.shield(self._notify())

    async def _notify(self) -> None:
        """Wake one checkout waiting on the condition."""
        async with self._condition:
            self._condition.notify()
