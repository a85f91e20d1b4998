"""The query endpoints against a real Redis: games, standings, replay, audit log, ledger, 404s."""

from __future__ import annotations

import httpx
import pytest

from domain.fold import fold
from domain.standings import standings
from tests.doors.problem_support import assert_problem
from tests.query.conftest import Seeder, load

pytestmark = pytest.mark.redis

TRICKERION = load("trickerion-demo.jsonl")
PENUMBRA = load("penumbra-demo.jsonl")


async def test_games_lists_live_games_first(api: httpx.AsyncClient, seeder: Seeder) -> None:
    await seeder.append(TRICKERION)
    await seeder.append(PENUMBRA)
    await seeder.project(TRICKERION, updated_at="2026-11-30T12:00:00+00:00")
    await seeder.project(PENUMBRA, updated_at="2026-11-30T11:00:00+00:00")
    body = (await api.get("/games")).json()
    assert [(g["game_id"], g["status"], g["seq"], g["version"]) for g in body["games"]] == [
        ("pe-demo-1", "in_progress", 8, 8),
        ("tr-demo-1", "final", 106, 106),
    ]
    assert body["games"][1]["game"] == "trickerion"


async def test_unprojected_game_is_pending(api: httpx.AsyncClient, seeder: Seeder) -> None:
    await seeder.append(PENUMBRA)
    games = (await api.get("/games")).json()["games"]
    assert games == [
        {
            "game_id": "pe-demo-1",
            "game": None,
            "status": "pending",
            "seq": 0,
            "version": 8,
            "updated_at": None,
        }
    ]
    response = await api.get("/games/pe-demo-1/standings")
    assert response.status_code == 503
    assert response.json()["rule"] == "read.projection_pending"


async def test_standings_from_projection(api: httpx.AsyncClient, seeder: Seeder) -> None:
    await seeder.seed(TRICKERION)
    body = (await api.get("/games/tr-demo-1/standings")).json()
    expected = standings(fold(TRICKERION))
    assert body["source"] == "projection"
    assert (body["status"], body["seq"], body["checkpoint"], body["winner"]) == (
        "final",
        106,
        "1700000000000-5",
        "alma",
    )
    assert body["result"] == "Winner: Alma"
    assert [(p["player_id"], p["rank"], p["total"]) for p in body["players"]] == [
        (p.player_id, p.rank, p.total) for p in expected.players
    ]
    farid = next(p for p in body["players"] if p["player_id"] == "farid")
    labels = {c["key"]: (c["en"], c["ru"], c["points"]) for c in farid["breakdown"]}
    assert labels["correction"] == ("Correction", "Поправка", -1)
    assert labels["advertise"] == ("Advertise", "Реклама", 2)
    assert {c["key"] for c in farid["breakdown"]} >= {c.key for c in expected.categories}
    assert sum(c["points"] for c in farid["breakdown"]) == farid["total"]


@pytest.mark.parametrize("n", [1, 2, 3, 10, 50, 102, 103, 104, 105, 106])
async def test_at_seq_equals_fold_of_first_n_events(
    api: httpx.AsyncClient, seeder: Seeder, n: int
) -> None:
    await seeder.append(TRICKERION)
    body = (await api.get(f"/games/tr-demo-1/standings?at_seq={n}")).json()
    expected = standings(fold(TRICKERION[:n]))
    assert body["source"] == "replay"
    assert (body["seq"], body["status"], body["winner"], body["tie_break"]) == (
        expected.seq,
        expected.status,
        expected.winner,
        expected.tie_break,
    )
    assert [(p["player_id"], p["rank"], p["total"]) for p in body["players"]] == [
        (p.player_id, p.rank, p.total) for p in expected.players
    ]
    for line, want in zip(body["players"], expected.players, strict=True):
        got = {c["key"]: c["points"] for c in line["breakdown"] if c["points"]}
        assert got == {k: v for k, v in want.categories.items() if v}
        provisional = want.provisional.total if want.provisional else None
        assert (line["provisional"] or {}).get("total") == provisional


async def test_at_seq_beyond_log_and_bad_values(api: httpx.AsyncClient, seeder: Seeder) -> None:
    await seeder.append(PENUMBRA)
    beyond = await api.get("/games/pe-demo-1/standings?at_seq=9")
    assert_problem(
        beyond,
        404,
        "Not Found",
        "read.seq_not_found",
        "at_seq",
        "game 'pe-demo-1' has 8 events; at_seq=9",
    )
    assert (await api.get("/games/pe-demo-1/standings?at_seq=0")).status_code == 422


async def test_events_paged_with_voids_marked(api: httpx.AsyncClient, seeder: Seeder) -> None:
    await seeder.append(TRICKERION)
    first = (await api.get("/games/tr-demo-1/events?limit=4")).json()
    assert [e["seq"] for e in first["events"]] == [1, 2, 3, 4]
    assert (first["version"], first["next_from_seq"]) == (106, 5)
    assert not any(e["voided"] for e in first["events"])
    tail = (await api.get("/games/tr-demo-1/events?from_seq=103&limit=10")).json()
    marks = {e["seq"]: (e["type"], e["voided"], e["voided_by_seq"]) for e in tail["events"]}
    assert marks == {
        103: ("game.ended", False, None),
        104: ("game.score_corrected", True, 106),
        105: ("game.score_corrected", False, None),
        106: ("game.event_voided", False, None),
    }
    assert tail["next_from_seq"] is None
    assert tail["events"][1]["event"]["payload"]["player_id"] == "alma"


async def test_ledger_each_point_with_its_event(api: httpx.AsyncClient, seeder: Seeder) -> None:
    await seeder.append(TRICKERION)
    state = fold(TRICKERION)
    for pid in ("alma", "farid"):
        body = (await api.get(f"/games/tr-demo-1/players/{pid}/ledger")).json()
        want = [e for e in state.ledger if e.player_id == pid]
        assert [(e["seq"], e["category"], e["amount"]) for e in body["entries"]] == [
            (e.seq, e.category, e.amount) for e in want
        ]
        types = {e.seq: e.type for e in TRICKERION}
        assert all(e["event_type"] == types[e["seq"]] for e in body["entries"])
        fame = next(p.total for p in standings(state).players if p.player_id == pid)
        assert body["totals"]["fame"] == fame
    alma = (await api.get("/games/tr-demo-1/players/alma/ledger")).json()
    assert 104 not in {e["seq"] for e in alma["entries"]}  # voided by seq 106
    farid = (await api.get("/games/tr-demo-1/players/farid/ledger")).json()
    assert farid["entries"][-1] | {"event_id": None, "occurred_at": None} == {
        "seq": 105,
        "event_id": None,
        "event_type": "game.score_corrected",
        "occurred_at": None,
        "resource": "fame",
        "category": "correction",
        "amount": -1,
        "rule": "correction",
        "note": "ref-anna: Fame counted twice",
    }
    assert {"coins", "shards"} & set(farid["totals"])  # every resource, not only Fame


async def test_unknown_game_and_player_are_404(api: httpx.AsyncClient, seeder: Seeder) -> None:
    await seeder.append(PENUMBRA)
    for path in (
        "/games/nope/standings",
        "/games/nope/standings?at_seq=1",
        "/games/nope/events",
        "/games/nope/players/dana/ledger",
    ):
        response = await api.get(path)
        assert response.status_code == 404, path
        assert response.json()["rule"] == "read.game_not_found"
    missing = await api.get("/games/pe-demo-1/players/zoe/ledger")
    assert missing.status_code == 404
    assert missing.json()["rule"] == "read.player_not_found"


async def test_games_are_paged(api: httpx.AsyncClient, seeder: Seeder) -> None:
    # Hostile input (docs/decisions/0019-hostile-input-at-every-door.md): 20,000 games came back in one 2.8 MB answer.
    await seeder.append(TRICKERION)
    await seeder.append(PENUMBRA)
    await seeder.project(TRICKERION, updated_at="2026-11-30T12:00:00+00:00")
    await seeder.project(PENUMBRA, updated_at="2026-11-30T11:00:00+00:00")
    first = (await api.get("/games", params={"limit": 1})).json()
    second = (await api.get("/games", params={"limit": 1, "page": 2})).json()
    assert [g["game_id"] for g in first["games"]] == ["pe-demo-1"]
    assert (first["page"], first["limit"], first["total"], first["next_page"]) == (1, 1, 2, 2)
    assert [g["game_id"] for g in second["games"]] == ["tr-demo-1"]
    assert second["next_page"] is None
    assert (await api.get("/games", params={"page": 3, "limit": 1})).json()["games"] == []
    default = (await api.get("/games")).json()
    assert (default["limit"], default["total"], default["next_page"]) == (100, 2, None)
    for params in ({"limit": 501}, {"limit": 0}, {"page": 0}):
        refused = await api.get("/games", params=params)
        assert refused.status_code == 422, params
        assert refused.json()["rule"] == "request.invalid"


async def test_docs_are_served_offline(api: httpx.AsyncClient) -> None:
    # Hostile input (docs/decisions/0019-hostile-input-at-every-door.md): /docs loaded Swagger UI from a CDN (a blank page offline).
    page = await api.get("/docs")
    assert page.status_code == 200
    assert "cdn." not in page.text
    assert "https://" not in page.text.split("<body>")[0]
    for asset in ("/docs/assets/swagger-ui-bundle.js", "/docs/assets/swagger-ui.css"):
        assert asset in page.text
        served = await api.get(asset)
        assert served.status_code == 200, asset
        assert len(served.content) > 10_000
    assert (await api.get("/redoc")).status_code == 404
