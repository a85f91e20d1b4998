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
While redis-py's OpenTelemetry metrics are off (no provider manager: this service sets none),
the fast checkout and release are `ConnectionPool`'s without the calls that would record them
(two pool-name lookups and five awaited recorders that return at once, per command) and
without its deprecated-arguments wrapper; the lock, the connection check (a connection with
unread data or a closed one is reconnected) and the release event (re-authentication) stay.
The lock's sections await nothing, so a lock nobody holds or waits for is not taken (`_free`:
two coroutines and a loop check less a command), and the release event is not sent while its
one listener is redis-py's re-authentication and the connection holds no token to send.
Source: docs/decisions/0011-faults-are-answered-not-crashed.md (the pool waits).

`quick_sending(cls)` is the pool's connection class without a task per command sent: redis-py
sends each command through `asyncio.wait_for(writer.drain(), socket_timeout)`, which makes a
task, a timer and one more loop turn for every command, although `drain` has nothing to wait for
when the socket took all the bytes at once (the usual case: a few hundred bytes on an idle
connection). Then nothing is awaited; when bytes stay buffered (a slow reader) or the transport
is closing, the `drain` is awaited under `wait_for` as before, with redis-py's errors (a timeout:
`TimeoutError`, a socket error: `ConnectionError`, anything else: the connection is dropped).
"""

from __future__ import annotations

import asyncio
from asyncio import StreamWriter
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.connection import AbstractConnection
from redis.event import (
    AsyncAfterConnectionReleasedEvent,
    AsyncReAuthConnectionListener,
    EventDispatcher,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import MaxConnectionsError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.observability.providers import get_observability_instance

_QUICK: dict[type[AbstractConnection], type[AbstractConnection]] = {}


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
            if _untraced():
                idle = await self._idle()
                if idle is not None:
                    return idle
            else:
                try:
                    connection: AbstractConnection = await aioredis.ConnectionPool.get_connection(
                        self
                    )  # type: ignore[no-untyped-call]
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
        if _untraced():
            await self._put_back(connection)
        else:
            await aioredis.ConnectionPool.release(self, connection)
        if self._waiting:
            # shielded: a release cancelled while the lock is contended still wakes one
            await asyncio.shield(self._notify())

    async def _idle(self) -> AbstractConnection | None:
        """`ConnectionPool.get_connection` of an idle connection, unrecorded (module
        docstring); None when none is idle any more (taken while the lock was held)."""
        if _free(self._lock):  # nothing to wait for: the lock's section without its awaits
            if not self._available_connections:
                return None
            connection: AbstractConnection = self._available_connections.pop()
            self._in_use_connections.add(connection)
        else:
            async with self._lock:
                if not self._available_connections:
                    return None
                connection = self._available_connections.pop()
                self._in_use_connections.add(connection)
        try:
            if not await _clean(connection):
                # a reply nobody read (out of step) or no socket: a new one; redis-py's own
                # `ensure_connection` skips its unread-data check while its maintenance
                # notifications are "auto" (its default), so it is not relied on for that
                await connection.disconnect()
                await self.ensure_connection(connection)  # connects, or raises
        except BaseException:
            await self.release(connection)
            raise
        return connection

    async def _put_back(self, connection: AbstractConnection) -> None:
        """`ConnectionPool.release`, unrecorded (module docstring)."""
        if _free(self._lock) and not connection.should_reconnect():  # type: ignore[no-untyped-call]
            self._in_use_connections.remove(connection)  # the lock's section: nothing awaited
            self._available_connections.append(connection)
        else:
            async with self._lock:
                self._in_use_connections.remove(connection)
                if connection.should_reconnect():  # type: ignore[no-untyped-call]
                    await connection.disconnect()
                self._available_connections.append(connection)
        dispatcher = self._event_dispatcher
        assert dispatcher is not None  # ConnectionPool makes one when not given
        if getattr(connection, "_re_auth_token", True) is None and _reauth_only(dispatcher):
            return  # the re-authentication listener alone, and no token to send
        await dispatcher.dispatch_async(AsyncAfterConnectionReleasedEvent(connection))  # type: ignore[no-untyped-call]

    async def _notify(self) -> None:
        """Wake one checkout waiting on the condition."""
        async with self._condition:
            self._condition.notify()


def _free(lock: asyncio.Lock) -> bool:
    """Whether `async with lock` would take `lock` at once: unlocked, nobody queued (a woken
    waiter that has not run yet is still queued: it goes first)."""
    return not lock.locked() and not getattr(lock, "_waiters", True)


def _reauth_only(dispatcher: EventDispatcher) -> bool:
    """Whether redis-py's re-authentication listener is all that listens to a release (it sends
    `AUTH` only when the connection holds a token from a streaming credential provider)."""
    mapping = getattr(dispatcher, "_event_listeners_mapping", None)
    listeners = mapping.get(AsyncAfterConnectionReleasedEvent) if mapping is not None else None
    return listeners is not None and all(
        type(listener) is AsyncReAuthConnectionListener for listener in listeners
    )


def _untraced() -> bool:
    """Whether redis-py's OpenTelemetry recorders are off (they return at once then)."""
    return get_observability_instance().get_provider_manager() is None


async def _clean(connection: AbstractConnection) -> bool:
    """Whether `connection` is connected with nothing unread (`ensure_connection` has nothing
    to do); False also when the check itself fails (`ensure_connection` then reconnects)."""
    if not connection.is_connected:
        return False
    try:
        return not await connection.can_read()
    except (RedisConnectionError, RedisTimeoutError, OSError):
        return False


def quick_sending(cls: type[AbstractConnection]) -> type[AbstractConnection]:
    """`cls` whose commands are sent without a task when the socket takes them at once (module
    docstring); one class per `cls`, `cls` itself when it is one already."""
    if getattr(cls, "_quick_sending", False):
        return cls
    if cls not in _QUICK:

        async def send_packed_command(
            self: AbstractConnection, command: Any, check_health: bool = True
        ) -> None:
            writer = self._writer
            if (
                writer is None
                or not self.socket_timeout
                or (check_health and self.health_check_interval)
                or isinstance(command, str | bytes)
            ):
                # not connected yet, no timeout, a health check or one bare command: as before
                await cls.send_packed_command(self, command, check_health)
                return
            await _send_quickly(self, writer, command)

        _QUICK[cls] = type(
            cls.__name__,
            (cls,),
            {"send_packed_command": send_packed_command, "_quick_sending": True},
        )
    return _QUICK[cls]


async def _send_quickly(self: AbstractConnection, writer: StreamWriter, command: Any) -> None:
    """`AbstractConnection.send_packed_command` on a connected connection with a socket
    timeout and no health check due, awaiting `drain` only when it has to wait.
    Raises: redis `TimeoutError` / `ConnectionError`, as redis-py's."""
    try:
        writer.writelines(command)
        transport = writer.transport
        if transport.is_closing() or transport.get_write_buffer_size():
            await asyncio.wait_for(writer.drain(), self.socket_timeout)
    except TimeoutError:  # asyncio.TimeoutError (before OSError, its base)
        await self.disconnect(nowait=True)
        raise RedisTimeoutError("Timeout writing to socket") from None
    except OSError as e:
        await self.disconnect(nowait=True)
        err_no, errmsg = ("UNKNOWN", e.args[0]) if len(e.args) == 1 else e.args[:2]
        raise RedisConnectionError(f"Error {err_no} while writing to socket. {errmsg}.") from e
    except BaseException:
        await self.disconnect(nowait=True)  # a half-sent command: the connection is unusable
        raise
