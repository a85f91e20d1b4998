"""Attacks on the write path's cheaper client: the pool's turn (`pool.QuickBlockingPool`),
its count of connections after cancellations and faults, and hiredis packing of any command
name (`packing.hiredis_packing`) against redis-py's serializer.
Source: docs/decisions/0011-faults-are-answered-not-crashed.md (the pool waits),
docs/decisions/0012-hot-reads-and-off-loop-replays.md (packing)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any

import pytest
import redis.asyncio as aioredis
from hypothesis import given, settings
from hypothesis import strategies as st
from redis.asyncio.connection import AbstractConnection, Connection
from redis.exceptions import DataError
from redis.utils import HIREDIS_AVAILABLE

from services.adapters.redis.connect import connect, parse_target
from services.adapters.redis.pool import QuickBlockingPool


def _packed(connection: AbstractConnection, args: tuple[Any, ...]) -> bytes | str:
    try:
        return b"".join(connection.pack_command(*args))
    except (DataError, UnicodeError, TypeError) as error:
        return type(error).__name__


_ARGS = st.one_of(
    st.text(max_size=8),
    st.binary(max_size=8),
    st.integers(),
    st.floats(allow_nan=False),
    st.booleans(),
    st.none(),
)
_NAMES = st.one_of(
    st.sampled_from(["GET", "SCRIPT LOAD", "SCRIPT\tLOAD", "GET\n", " GET", "XINFO\x0bSTREAM"]),
    st.text(alphabet=" \t\n\r\x0b\x0cGETéx", min_size=1, max_size=6),
    st.binary(max_size=6).map(lambda b: b"GET" + b),
)


@pytest.mark.skipif(not HIREDIS_AVAILABLE, reason="hiredis not installed")
@settings(max_examples=300, deadline=None)
@given(name=_NAMES, args=st.lists(_ARGS, max_size=3))
def test_any_command_packs_as_the_serializer_packs_it(name: Any, args: list[Any]) -> None:
    """A name of words split by any whitespace (the serializer's `split()`), not only by a
    space, is the same command as before the direct path."""
    from services.adapters.redis.packing import _PACKER, hiredis_packing

    assert _PACKER is not None
    command = (name, *args)
    try:
        before: bytes | str = b"".join(_PACKER.pack(*command))
    except (DataError, UnicodeError, TypeError) as error:
        before = type(error).__name__
    assert _packed(hiredis_packing(Connection)(), command) == before


@pytest.fixture
def single_url(clean_redis_url: str) -> str:
    """The session's single node (a cluster client has redis-py's pools, not this one)."""
    if parse_target(clean_redis_url).cluster:
        pytest.skip("the single-node client's pool")
    return clean_redis_url


def _task(command: Awaitable[Any]) -> asyncio.Task[Any]:
    """A task awaiting `command` (the client's commands are typed as awaitables)."""

    async def run() -> Any:
        return await command

    return asyncio.create_task(run())


def _pool(client: Any) -> QuickBlockingPool:
    pool = client.connection_pool
    assert isinstance(pool, QuickBlockingPool)
    return pool


@pytest.mark.redis
async def test_cancelled_waiters_and_commands_leave_no_connection_in_use(single_url: str) -> None:
    """Checkouts cancelled while waiting, commands cancelled mid-flight and a blocking read
    holding a connection: afterwards every connection is back and the pool still serves."""
    client = connect(single_url, max_connections=2, pool_timeout_s=5)
    pool = _pool(client)
    try:
        hold = _task(client.xread({"feed:{s1}": "$"}, block=300))
        tasks = [_task(client.incr("n:{s1}")) for _ in range(60)]
        tasks += [_task(client.blpop(["q:{s1}"], 0.2)) for _ in range(4)]
        await asyncio.sleep(0)
        for task in tasks[::3]:
            task.cancel()
        await asyncio.sleep(0.01)
        for task in tasks[1::5]:
            task.cancel()
        await asyncio.gather(hold, *tasks, return_exceptions=True)
        assert not pool._in_use_connections
        assert not pool._waiting
        assert len(pool._available_connections) <= 2
        replies = await asyncio.gather(*(client.incr("m:{s1}") for _ in range(20)))
        assert sorted(replies) == list(range(1, 21))
        assert not pool._in_use_connections
    finally:
        await client.aclose()


@pytest.mark.redis
async def test_a_connection_error_mid_command_returns_the_connection(single_url: str) -> None:
    """A command whose connection is killed (CLIENT KILL) fails, the pool's count stays
    right, and the next commands answer on a new connection."""
    client = connect(single_url, max_connections=1, pool_timeout_s=5)
    other = connect(single_url, max_connections=1)
    pool = _pool(client)
    try:
        name = "breakwrite-victim"
        await client.client_setname(name)
        blocked = _task(client.blpop(["never:{s1}"], 0.3))  # retried once
        waiting = _task(client.incr("after:{s1}"))
        await asyncio.sleep(0.1)
        await other.execute_command("CLIENT", "KILL", "SKIPME", "yes", "TYPE", "normal")
        await asyncio.gather(blocked, return_exceptions=True)
        assert await asyncio.wait_for(waiting, 5) == 1
        assert not pool._in_use_connections
        assert not pool._waiting
    finally:
        await client.aclose()
        await other.aclose()


@pytest.mark.redis
@pytest.mark.parametrize("blocking", [False, True], ids=["quick", "redis-py"])
async def test_a_task_checking_out_again_at_once_goes_before_a_waiter(
    single_url: str, blocking: bool
) -> None:
    """`BlockingConnectionPool` serves the releasing task's own next checkout before the
    waiter it woke (the `pool` docstring once said a newcomer never overtakes a waiter); the
    quick pool's release returns once the waiter is woken (its notice shielded from a
    cancel), so the waiter goes first. Either way it is served and nothing stays in use."""
    client = connect(single_url, max_connections=1, pool_timeout_s=5)
    pool: Any = _pool(client)
    if blocking:
        pool = aioredis.BlockingConnectionPool.from_url(single_url, max_connections=1, timeout=5)
    served: list[str] = []

    async def wait() -> None:
        connection = await pool.get_connection()
        served.append("waiter")
        await pool.release(connection)

    try:
        mine = await pool.get_connection()
        waiter = asyncio.create_task(wait())
        await asyncio.sleep(0.05)  # it waits for the only connection
        await pool.release(mine)
        again = await pool.get_connection()  # the same task, at once
        served.append("releaser")
        await pool.release(again)
        await waiter
        assert served == (["releaser", "waiter"] if blocking else ["waiter", "releaser"])
        assert not pool._in_use_connections
    finally:
        await client.aclose()
        await pool.disconnect()


@pytest.mark.redis
async def test_a_waiter_behind_a_blocking_read_times_out_then_the_pool_serves(
    single_url: str,
) -> None:
    """A projector's blocking XREAD holds the only connection: a command waits `timeout`, then
    fails (a 503, never a wait without end nor another's connection); afterwards all is back."""
    from services.ports.errors import StoreUnavailable

    client = connect(single_url, max_connections=1, pool_timeout_s=0.2)
    pool = _pool(client)
    try:
        hold = _task(client.xread({"feed:{s1}": "$"}, block=600))
        await asyncio.sleep(0.05)
        with pytest.raises(StoreUnavailable):
            await client.get("k:{s1}")
        assert not pool._waiting
        await hold
        assert await client.incr("n:{s1}") == 1
        assert not pool._in_use_connections
        assert len(pool._available_connections) == 1
    finally:
        await client.aclose()


@pytest.mark.redis
async def test_a_release_cancelled_while_it_waits_to_notify_still_wakes_the_waiter(
    single_url: str,
) -> None:
    """The task releasing is cancelled (its request went away) while the condition's lock is
    contended: the connection is back, and the waiter must still be woken, not left to time
    out beside an idle connection."""
    client = connect(single_url, max_connections=1, pool_timeout_s=2)
    pool = _pool(client)
    try:
        connection = await pool.get_connection()
        waiter = asyncio.create_task(pool.get_connection())
        await asyncio.sleep(0.05)  # it waits for the only connection
        await pool._condition.acquire()  # contended, as by another checkout
        releasing = asyncio.create_task(pool.release(connection))
        await asyncio.sleep(0.05)  # back in the pool; the release waits for the lock
        releasing.cancel()
        await asyncio.gather(releasing, return_exceptions=True)
        pool._condition.release()
        got = await asyncio.wait_for(waiter, 1)
        assert got is connection
        await pool.release(got)
        assert not pool._in_use_connections
    finally:
        await client.aclose()
