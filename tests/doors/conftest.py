"""Fixtures for the door tests: `server`, a dedicated redis-server to stop, freeze or break
(also the adversarial tests' through their conftest)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.redis_fixture import RedisServer


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RedisServer]:
    """A redis-server of the test's own (its data survives a restart through an explicit
    SAVE), stopped after the test."""
    with RedisServer(tmp_path) as redis_server:
        yield redis_server
