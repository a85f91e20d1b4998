"""The markers say what a test reaches: an unmarked test that reaches Redis, PostgreSQL or a
browser fails (tests/resource_marks.py), and a server fixture marks the tests that use it."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import redis

from tests.resource_marks import UnmarkedResourceError, mark_by_fixtures


def test_an_unmarked_test_cannot_open_a_redis_connection() -> None:
    # This test has no `redis` marker, so the guard is active here.
    client = redis.Redis(host="127.0.0.1", port=6379, socket_connect_timeout=0.2)
    with pytest.raises(UnmarkedResourceError, match="`redis` marker"):
        client.ping()


def test_an_unmarked_test_cannot_start_redis_server() -> None:
    with pytest.raises(UnmarkedResourceError, match="started redis-server"):
        subprocess.Popen(["/usr/bin/redis-server", "--port", "0"])


def test_an_unmarked_test_cannot_open_a_postgres_connection() -> None:
    import psycopg

    with pytest.raises(UnmarkedResourceError, match="`postgres` marker"):
        psycopg.connect("postgresql://127.0.0.1:5432/test", connect_timeout=1)


def test_other_programs_still_start() -> None:
    assert subprocess.run(["true"], check=False).returncode == 0


@dataclass
class FakeItem:
    """The part of `pytest.Item` that `mark_by_fixtures` uses."""

    fixturenames: list[str]
    marks: list[str] = field(default_factory=list)

    def get_closest_marker(self, name: str) -> Any:
        return name if name in self.marks else None

    def add_marker(self, name: str) -> None:
        self.marks.append(name)


def test_a_server_fixture_marks_the_test() -> None:
    items = [
        FakeItem(["request", "redis_url"]),
        FakeItem(["postgres_url", "postgres_server_url"]),
        FakeItem(["tmp_path"]),
        FakeItem(["redis_client"], marks=["redis"]),
    ]
    mark_by_fixtures(items)  # type: ignore[arg-type]
    assert [item.marks for item in items] == [["redis"], ["postgres"], [], ["redis"]]


def test_an_unmarked_test_cannot_start_the_one_launcher(tmp_path: Path) -> None:
    """The repository's one redis-server launcher (services/adapters/redis/launcher.py) is
    closed too: the demo's, the bench's and the tests' servers all start through it."""
    from services.adapters.redis.launcher import RedisProcess

    with pytest.raises(UnmarkedResourceError, match="started a redis-server"):
        RedisProcess(tmp_path).start()
