"""HTTP ingest against a real Redis: 201 / 409 / 422 bodies, batches, duplicates."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
import redis
from fastapi.testclient import TestClient

from services.adapters.redis.keys import Keys
from services.bootstrap import Roles, build_app
from services.platform.settings import ServiceSettings
from tests.doors.problem_support import assert_problem
from tests.pipeline.factory import corrected, game_log, started
from tests.redis_fixture import sync_client

KEYS = Keys(4)


def wire(*events) -> list[dict]:
    return [e.to_wire() for e in events]


@pytest.fixture
def http(clean_redis_url: str) -> Iterator[TestClient]:
    """The ingest app; the write token of the game it creates is sent on every later request
    (token behaviour itself is tested in tests/web/test_auth.py and tests/usecases)."""
    settings = ServiceSettings(redis_url=clean_redis_url, shards=4)
    app = build_app(Roles(inbox=False, projector=False, query=False), settings)
    with TestClient(app) as client:

        def keep_token(response) -> None:
            if response.status_code == 201:
                token = json.loads(response.read()).get("write_token")
                if token:
                    client.headers["Authorization"] = f"Bearer {token}"

        client.event_hooks["response"].append(keep_token)
        yield client


@pytest.fixture
def sync_redis(clean_redis_url: str) -> Iterator[redis.Redis]:
    client = sync_client(clean_redis_url)
    yield client
    client.close()


def test_201_single_and_batch(http: TestClient, sync_redis: redis.Redis) -> None:
    log = game_log("g1", 4)
    one = http.post("/games/g1/events", json=log[0].to_wire())
    assert one.status_code == 201
    assert one.json().pop("write_token")  # the creating append returns the token once
    assert {k: v for k, v in one.json().items() if k != "write_token"} == {
        "appended": [{"event_id": str(log[0].event_id), "seq": 1, "duplicate": False}],
        "version": 1,
    }
    batch = http.post("/games/g1/events", json=wire(*log[1:]))
    assert batch.status_code == 201
    assert [a["seq"] for a in batch.json()["appended"]] == [2, 3, 4]
    assert batch.json()["version"] == 4
    assert sync_redis.xlen(KEYS.game_stream("g1")) == 4


def test_duplicates_answer_original_seq(http: TestClient, sync_redis: redis.Redis) -> None:
    log = game_log("g1", 3)
    http.post("/games/g1/events", json=wire(*log))
    for _ in range(2):
        again = http.post("/games/g1/events", json=wire(*log))
        assert again.status_code == 201
        assert again.json() == {
            "appended": [
                {"event_id": str(e.event_id), "seq": e.seq, "duplicate": True} for e in log
            ],
            "version": 3,
        }
    assert sync_redis.xlen(KEYS.game_stream("g1")) == 3


def test_409_names_the_current_version(http: TestClient) -> None:
    http.post("/games/g1/events", json=wire(*game_log("g1", 3)))
    winner = http.post("/games/g1/events", json=corrected("g1", 4, "ann", 1).to_wire())
    loser = http.post("/games/g1/events", json=corrected("g1", 4, "bob", 1).to_wire())
    assert winner.status_code == 201
    assert loser.status_code == 409
    body = loser.json()
    assert (body["rule"], body["expected"], body["actual"], body["version"]) == (
        "log.expected_version",
        3,
        4,
        4,
    )


def test_422_names_the_field(http: TestClient) -> None:
    event = started("g1").to_wire()
    event["payload"]["players"][0]["seat"] = 0
    response = http.post("/games/g1/events", json=[event])
    assert response.status_code == 422
    body = response.json()
    assert (body["rule"], body["status"], body["index"]) == ("schema.field", 422, 0)
    assert body["field"] == "payload.players.0.seat"
    assert body["errors"][0]["loc"][:2] == ["body", 0]
    unknown = {**started("g1").to_wire(), "type": "chess.game_started"}
    assert http.post("/games/g1/events", json=unknown).json()["field"] == "type"


def test_422_names_the_rule(http: TestClient, sync_redis: redis.Redis) -> None:
    http.post("/games/g1/events", json=started("g1").to_wire())
    response = http.post("/games/g1/events", json=corrected("g1", 2, "nobody", 3).to_wire())
    assert_problem(
        response,
        422,
        "Unprocessable Entity",
        "correction.unknown_player",
        "payload.player_id",
        "no player 'nobody' in this game",
    )
    other = http.post("/games/g1/events", json=corrected("g2", 2, "ann", 3).to_wire())
    assert (other.status_code, other.json()["rule"]) == (422, "log.game_id")
    assert sync_redis.xlen(KEYS.game_stream("g1")) == 1


def test_422_for_bad_json_and_empty_batch(http: TestClient) -> None:
    bad = http.post(
        "/games/g1/events", content=b'{"event_id": ', headers={"content-type": "application/json"}
    )
    assert bad.status_code == 422
    assert http.post("/games/g1/events", json=[]).status_code == 422
    assert json.loads(http.post("/games/g1/events", json=[]).content)["field"] == "body"
