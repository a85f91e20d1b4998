"""Durable acknowledgements over HTTP (`SCORELEDGER_APPEND_REPLICAS`), on a dedicated primary
and a replica attached mid-test: an append no replica confirms is stored but answered 503
`append.replicas_unconfirmed` with Retry-After; the same events sent again once a replica is
attached are answered as duplicates (201), through both duplicate paths (found by the append
script, found while planning)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from fastapi.testclient import TestClient

from services.adapters.redis.keys import Keys
from services.bootstrap import Roles, build_app
from services.platform.settings import ServiceSettings
from tests.pipeline.factory import corrected, started
from tests.redis_fixture import RedisServer

pytestmark = [pytest.mark.redis]
KEYS = Keys(4)


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[tuple[RedisServer, RedisServer]]:
    primary = RedisServer(tmp_path / "primary")
    replica = RedisServer(tmp_path / "replica")
    (tmp_path / "primary").mkdir()
    (tmp_path / "replica").mkdir()
    primary.start()
    replica.start()
    try:
        yield primary, replica
    finally:
        replica.stop()
        primary.stop()


def attach(primary: RedisServer, replica: RedisServer) -> None:
    """REPLICAOF, then wait (on the condition) until the link is up."""
    client = redis.Redis(port=replica.port, decode_responses=True)
    client.replicaof("127.0.0.1", primary.port)
    deadline = time.monotonic() + 60
    while client.info("replication").get("master_link_status") != "up":
        assert time.monotonic() < deadline, "the replica did not sync within 60 s"
        time.sleep(0.05)
    client.close()


def test_unconfirmed_is_503_then_a_duplicate_once_a_replica_has_it(
    servers: tuple[RedisServer, RedisServer],
) -> None:
    primary, replica = servers
    settings = ServiceSettings(
        redis_url=primary.url, shards=4, append_replicas=1, append_wait_ms=100
    )
    app = build_app(Roles(inbox=False, projector=False, query=False), settings)
    first, second = started("g1"), corrected("g1", 2, "ann", 3)
    direct = redis.Redis(port=primary.port)
    with TestClient(app) as http:
        created = http.post("/games/g1/events", json=first.to_wire())
        assert created.status_code == 503
        assert created.headers["Retry-After"] == "1"
        assert created.headers["content-type"] == "application/problem+json"
        body = created.json()
        assert body["rule"] == "append.replicas_unconfirmed"
        assert (body["wanted"], body["acked"]) == (1, 0)
        assert direct.xlen(KEYS.game_stream("g1")) == 1  # stored, not acknowledged
        # the game exists with the generated token: the 503 hands it back as a 201 would
        http.headers["Authorization"] = f"Bearer {body['write_token']}"

        still = http.post("/games/g1/events", json=first.to_wire())  # no replica yet
        assert still.status_code == 503
        assert still.json()["rule"] == "append.replicas_unconfirmed"

        attach(primary, replica)
        again = http.post("/games/g1/events", json=first.to_wire())
        assert again.status_code == 201
        assert again.json()["appended"] == [
            {"event_id": str(first.event_id), "seq": 1, "duplicate": True}
        ]
        made = http.post("/games/g1/events", json=second.to_wire())
        assert made.status_code == 201
        assert made.json()["appended"][0]["duplicate"] is False
        for _ in range(2):  # planned as a duplicate (cached ids), confirmed with WAIT
            dup = http.post("/games/g1/events", json=second.to_wire())
            assert dup.status_code == 201
            assert dup.json()["appended"][0]["duplicate"] is True
        assert dup.json()["version"] == 2
        redis.Redis(port=replica.port).replicaof("NO", "ONE")  # no replica any more
        deadline = time.monotonic() + 60
        while redis.Redis(port=primary.port).info("replication")["connected_slaves"]:
            assert time.monotonic() < deadline, "the replica did not leave within 60 s"
            time.sleep(0.05)
        lone = http.post("/games/g1/events", json=second.to_wire())  # a duplicate waits too
        assert lone.status_code == 503
        assert lone.json()["rule"] == "append.replicas_unconfirmed"
    direct.close()
