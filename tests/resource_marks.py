"""Every test that reaches Redis, PostgreSQL or a browser carries that marker, and the run
fails a test that reaches one without it.

Two halves, so a marker says what a test needs and `-m "not redis"` really leaves Redis out:
- at collection, a test whose fixtures (their whole closure) include a server fixture gets the
  server's marker (`RESOURCE_FIXTURES`): the fixture is where the server comes from;
- at run time, a test without the marker that opens a Redis or PostgreSQL connection, starts a
  redis-server or launches Chromium fails with `UnmarkedResourceError` naming the marker to
  add (a test may build its own client from a URL it found elsewhere, which the fixtures miss).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

RESOURCE_FIXTURES: dict[str, frozenset[str]] = {
    "redis": frozenset(
        {
            "redis_url",
            "redis_client",
            "clean_redis_url",
            "aof_redis",
            "cluster_url",
            "clean_cluster_url",
            "single_url",
            "any_url",
            "ha_cluster",
            "own_cluster",
            "server",  # tests/deploy: an ACL redis-server per module
        }
    ),
    "postgres": frozenset({"postgres_url", "postgres_server_url", "archive_url"}),
    "browser": frozenset({"browser", "page"}),
}
"""Marker -> the fixtures that provide (or reach) that server."""


class UnmarkedResourceError(RuntimeError):
    """A test reached a server whose marker it lacks (the message names the marker)."""


def mark_by_fixtures(items: list[pytest.Item]) -> None:
    """Add the `redis` / `postgres` / `browser` marker to each item whose fixture closure
    includes one of that marker's `RESOURCE_FIXTURES`."""
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        for marker, fixtures in RESOURCE_FIXTURES.items():
            if names & fixtures and item.get_closest_marker(marker) is None:
                item.add_marker(marker)


def _refuse(marker: str, what: str, nodeid: str) -> Callable[..., Any]:
    def refuse(*_args: object, **_kwargs: object) -> Any:
        raise UnmarkedResourceError(
            f"{nodeid} {what} without the `{marker}` marker: add "
            f"`pytestmark = pytest.mark.{marker}` (or use the {marker} fixtures)"
        )

    return refuse


def _guards() -> list[tuple[str, str, Any, str]]:
    """(marker, what, owner, attribute) of every entry point the guard closes."""
    import redis.asyncio.connection as aconn
    import redis.connection as sconn

    from services.adapters.redis.launcher import RedisProcess

    guards: list[tuple[str, str, Any, str]] = [
        ("redis", "opened a Redis connection", sconn.AbstractConnection, "connect"),
        ("redis", "opened a Redis connection", aconn.AbstractConnection, "connect"),
        ("redis", "started a redis-server", RedisProcess, "start"),  # the one launcher
    ]
    try:
        import psycopg

        guards += [
            ("postgres", "opened a PostgreSQL connection", psycopg.Connection, "connect"),
            ("postgres", "opened a PostgreSQL connection", psycopg.AsyncConnection, "connect"),
            ("postgres", "opened a PostgreSQL connection", psycopg, "connect"),
        ]
    except ImportError:  # pragma: no cover - psycopg is a test dependency
        pass
    try:
        from playwright.async_api import BrowserType

        guards.append(("browser", "launched a browser", BrowserType, "launch"))
    except ImportError:  # pragma: no cover - playwright is a test dependency
        pass
    return guards


SERVER_PROGRAMS: dict[str, str] = {
    "redis-server": "redis",
    "redis-cli": "redis",
    "postgres": "postgres",
    "pg_ctl": "postgres",
    "initdb": "postgres",
    "psql": "postgres",
    "chromium": "browser",
}
"""Program name -> the marker of a test that starts it as a subprocess."""


def _program(args: object) -> str:
    """The base name of the program a `Popen` call starts ('' when it cannot be told)."""
    first = args if isinstance(args, str | bytes) else next(iter(args), "")  # type: ignore[call-overload]
    text = first.decode() if isinstance(first, bytes) else str(first)
    return text.replace("\\", "/").rsplit("/", 1)[-1].split(" ", 1)[0]


def _guard_popen(monkeypatch: pytest.MonkeyPatch, node: pytest.Item) -> None:
    """Refuse a subprocess of a server program whose marker the test lacks."""
    import subprocess

    original = subprocess.Popen.__init__

    def init(self: subprocess.Popen[Any], args: Any, *rest: Any, **kwargs: Any) -> None:
        marker = SERVER_PROGRAMS.get(_program(args))
        if marker is not None and node.get_closest_marker(marker) is None:
            _refuse(marker, f"started {_program(args)}", node.nodeid)()
        original(self, args, *rest, **kwargs)

    monkeypatch.setattr(subprocess.Popen, "__init__", init)


@pytest.fixture(autouse=True)
def _unmarked_resource_guard(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Close the servers' entry points to a test that lacks their marker."""
    node = request.node
    for marker, what, owner, attribute in _guards():
        if node.get_closest_marker(marker) is None:
            monkeypatch.setattr(owner, attribute, _refuse(marker, what, node.nodeid))
    _guard_popen(monkeypatch, node)
