"""The tournament readings over HTTP (docs/tournament-rules.md): a seed with a late join is
refused naming the rule and field, duplicate seeds are accepted and ranked by registration,
the created event's refusals name the field and the rule."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from tests.doors.test_tournaments_http import AUTH, NEW, memory_app, problem_of

PLAYERS = "/tournaments/cup/players"


@pytest.fixture
def http() -> Iterator[TestClient]:
    with TestClient(memory_app()) as client:
        yield client


def test_a_seed_with_a_late_join_is_refused_and_duplicate_seeds_are_accepted(
    http: TestClient,
) -> None:
    assert http.post("/tournaments", json=NEW, headers=AUTH).status_code == 201
    for pid, seed in (("ann", 2), ("bob", 2), ("cat", None), ("dan", 1)):
        body = {"player_id": pid, "name": pid.title(), "seed": seed}
        assert http.post(PLAYERS, json=body, headers=AUTH).status_code == 201
    assert http.post("/tournaments/cup/rounds", headers=AUTH).status_code == 201
    late = {"player_id": "eve", "name": "Eve", "seed": 1}
    body = problem_of(http.post(PLAYERS, json=late, headers=AUTH), 422, "tournament.late_seed")
    assert body["field"] == "seed"
    assert "eve" not in {p["player_id"] for p in http.get("/tournaments/cup").json()["players"]}
    del late["seed"]
    assert http.post(PLAYERS, json=late, headers=AUTH).status_code == 201
    standings = http.get("/tournaments/cup/standings").json()["players"]
    # nobody has points: the effective seed orders them, dan 1, ann 2, bob 2 (later), cat, eve
    assert [(line["player_id"], line["seed"]) for line in standings] == [
        ("dan", 1),
        ("ann", 2),
        ("bob", 3),
        ("cat", 4),
        ("eve", 5),
    ]


@pytest.mark.parametrize(
    ("settings", "field", "rule"),
    [
        ({"points_4": [1, 3, 5, 7]}, "points_4", "tournament.points_order"),
        ({"tie_breaks": ["buchholz", "buchholz"]}, "tie_breaks", "tournament.tie_break_twice"),
    ],
)
def test_a_creation_refusal_names_the_field_and_the_rule(
    http: TestClient, settings: dict[str, object], field: str, rule: str
) -> None:
    body = problem_of(
        http.post("/tournaments", json={**NEW, **settings}, headers=AUTH), 422, "request.invalid"
    )
    assert body["field"] == field
    assert rule in body["detail"]


def test_no_tie_breaks_is_accepted(http: TestClient) -> None:
    assert (
        http.post("/tournaments", json={**NEW, "tie_breaks": []}, headers=AUTH).status_code == 201
    )
    assert http.get("/tournaments/cup").json()["settings"]["tie_breaks"] == []
