"""Project-wide fixtures: a real Redis for every Redis test (see tests/redis_fixture.py), the
markers of every test that reaches a server (tests/resource_marks.py), and the run's process
check: a run that leaves a process of its own alive fails, naming it."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from services.adapters.redis.connect import RedisClient, connect
from services.runtime import pool as replay_pool
from tests import procs
from tests.postgres_fixture import fresh_database, provide_postgres_url
from tests.redis_fixture import RedisServer, flush_all, provide_redis_url
from tests.resource_marks import _unmarked_resource_guard, mark_by_fixtures

__all__ = ["_unmarked_resource_guard"]  # the guard is an autouse fixture of every test

ROOT = Path(__file__).resolve().parents[1]
LEAK_GRACE_S = 10.0
"""How long the run's own processes get to end after the last fixture stopped (at load 8)."""


def pytest_sessionstart(session: pytest.Session) -> None:
    """The run becomes its descendants' subreaper: an orphan stays countable as the run's.
    (The replay pool is not held for the session: each app's lifespan ends the workers it
    started, as in production; a session-long pool made tests/doors' 200-write test fail.)"""
    procs.become_subreaper()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test whose fixtures provide Redis, PostgreSQL or a browser gets that marker
    (tests/resource_marks.py)."""
    mark_by_fixtures(items)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """After every fixture has stopped its servers: fail the run if a process it started is
    still alive after `LEAK_GRACE_S` seconds, naming each (and then SIGKILL it by its id)."""
    replay_pool.stop_shared_pool()  # a pool a test used without an app
    procs.reap_zombies()
    left = procs.wait_until_none(_leftovers, LEAK_GRACE_S)
    if not left:
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    lines = ["", f"{len(left)} process(es) of this test run still alive at its end:"]
    lines += [f"  {proc}" for proc in left]
    for proc in left:
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGKILL)
    if reporter is not None:
        reporter.write_line("\n".join(lines), red=True, bold=True)
    else:
        print("\n".join(lines), file=sys.stderr)
    session.exitstatus = pytest.ExitCode.TESTS_FAILED


def _leftovers() -> list[procs.Proc]:
    """The run's live descendants but its own multiprocessing resource tracker (it ends when
    the run's process does: it reads a pipe only the run still holds)."""
    from multiprocessing import resource_tracker

    tracker = getattr(resource_tracker._resource_tracker, "_pid", None)
    return [proc for proc in procs.descendants(os.getpid()) if proc.pid != tracker]


@pytest.fixture(scope="session", autouse=True)
def _own_runtime_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """`XDG_RUNTIME_DIR` of this run (of this xdist worker): the demo's state file
    (services/cli/demo_state.py) of one worker's demo is never read by another's commands, nor
    a developer's running demo by the tests."""
    before = os.environ.get("XDG_RUNTIME_DIR")
    os.environ["XDG_RUNTIME_DIR"] = str(tmp_path_factory.mktemp("runtime"))
    yield
    if before is None:
        os.environ.pop("XDG_RUNTIME_DIR", None)
    else:
        os.environ["XDG_RUNTIME_DIR"] = before


OWN_POOL_LIFE = frozenset(
    {
        "tests/query/test_replay_pool_life.py",  # the pool's holders and its end are the subject
        "tests/query/test_replay_offloop.py",  # a broken pool is dropped and made anew
        "tests/doors/test_faults_pool.py",  # with a pool held across apps its 200 writes failed
    }
)
"""Modules whose apps start and end their own replay workers, as in production."""


@pytest.fixture(scope="module", autouse=True)
def _replay_workers_per_module(request: pytest.FixtureRequest) -> Iterator[None]:
    """The replay pool held for the module's tests (`hold_shared_pool`): each app still warms
    and lets go of it as in production, but the worker processes (a spawn, imports and a
    warm-up replay, seconds of CPU on a busy machine) start once per module, not once per app;
    a worker opens another app's log at its first replay. The module's end stops the pool, so
    the next module starts afresh (`OWN_POOL_LIFE`: not held)."""
    path = Path(str(request.path)).resolve().relative_to(ROOT).as_posix()
    if path in OWN_POOL_LIFE:
        yield
        return
    replay_pool.hold_shared_pool()
    try:
        yield
    finally:
        replay_pool.let_go_shared_pool()


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """URL of the session's Redis: `REDIS_URL`, else a container, else a local redis-server
    (a local cluster, `redis+cluster://...`, with `SCORELEDGER_TEST_REDIS=cluster`)."""
    try:
        with provide_redis_url(tmp_path_factory.mktemp("redis")) as url:
            yield url
    except (RuntimeError, ValueError, FileNotFoundError, TimeoutError) as error:
        pytest.fail(str(error))


@pytest.fixture
async def redis_client(redis_url: str) -> AsyncIterator[RedisClient]:
    """The app's async client (`connect`, single node or cluster) on a clean db: emptied before
    the test; closed after it."""
    flush_all(redis_url)
    client = connect(redis_url)
    try:
        yield client
    finally:
        await client.aclose()


@pytest.fixture
def clean_redis_url(redis_url: str) -> str:
    """`redis_url`, with its db flushed first (for tests that open their own clients)."""
    flush_all(redis_url)
    return redis_url


@pytest.fixture
def aof_redis(tmp_path: Path) -> Iterator[RedisServer]:
    """A dedicated redis-server with `--appendonly yes --appendfsync always`; `.restart()` it."""
    with RedisServer(tmp_path, appendonly=True, appendfsync="always") as server:
        yield server


@pytest.fixture(scope="session")
def postgres_server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """URL of the session's PostgreSQL server (tests/postgres_fixture.py: the env URL, the local
    server, a container, or the binaries; a failure fails the test, never skips it)."""
    try:
        with provide_postgres_url(tmp_path_factory.mktemp("postgres")) as url:
            yield url
    except (RuntimeError, TimeoutError, OSError) as error:
        pytest.fail(str(error))


@pytest.fixture
def postgres_url(postgres_server_url: str) -> Iterator[str]:
    """A database of this test's own on the session's server, created before it, dropped after."""
    with fresh_database(postgres_server_url) as url:
        yield url
