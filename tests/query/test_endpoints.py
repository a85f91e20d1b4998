"""The query endpoints against a real Redis: games, standings, replay, audit log, ledger, 404s."""

from __future__ import annotations

import httpx
import pytest

from domain.fold import fold
from domain.standings import standings
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
        ("tr-demo-1", "final", 11, 11),
    ]
    assert body["games"][1]["game"] == "trickerion"


async def test_unprojected_game_is_pending(api: httpx.AsyncClient, seeder: Seeder) -> None:
    await seeder.append(PENUMBRA)
    games = (await api.get("/games")).json()["games"]
    assert games == [{"game_id": "pe-demo-1", "game": None, "status": "pending", "seq": 0, "version": 8, "updated_at": None}]
    response = await api.get("/games/pe-demo-1/standings")
    assert response.status_code == 503
    assert response.json()["error"] == "projection_pending"


async def test_standings_from_projection(api: httpx.AsyncClient, seeder: Seeder) -> None:
    await seeder.append(TRICKERION)
    await seeder.project(TRICKERION)
    body = (await api.get("/games/tr-demo-1/standings")).json()
    assert body["source"] == "projection"
    assert (body["status"], body["seq"], body["checkpoint"], body["winner"]) == ("final", 11, "1700000000000-5", "alice")
    assert body["result"] == "Winner: Alice"
    assert [(p["player_id"], p["rank"], p["total"]) for p in body["players"]] == [
        ("alice", 1, 5), ("chen", 2, 4), ("boris", 3, 2)
    ]
    alice = body["players"][0]["breakdown"]
    assert {c["key"]: (c["en"], c["ru"], c["points"]) for c in alice} == {
        "advertise": ("Advertise", "Реклама", 2),
        "correction": ("Correction", "Поправка", 3),
    }


@pytest.mark.parametrize("n", range(1, len(TRICKERION) + 1))
async def test_at_seq_equals_fold_of_first_n_events(api: httpx.AsyncClient, seeder: Seeder, n: int) -> None:
    await seeder.append(TRICKERION)
    body = (await api.get(f"/games/tr-demo-1/standings?at_seq={n}")).json()
    expected = standings(fold(TRICKERION[:n]))
    assert body["source"] == "replay"
    assert (body["seq"], body["status"], body["winner"]) == (expected.seq, expected.status, expected.winner)
    assert [(p["player_id"], p["rank"], p["total"]) for p in body["players"]] == [
        (p.player_id, p.rank, p.total) for p in expected.players
    ]
    for line, want in zip(body["players"], expected.players, strict=True):
        got = {c["key"]: c["points"] for c in line["breakdown"] if c["points"]}
        assert got == {k: v for k, v in want.categories.items() if v}


async def test_at_seq_beyond_log_and_bad_values(api: httpx.AsyncClient, seeder: Seeder) -> None:
    await seeder.append(PENUMBRA)
    beyond = await api.get("/games/pe-demo-1/standings?at_seq=9")
    assert beyond.status_code == 404
    assert beyond.json() == {"error": "seq_not_found", "message": "game 'pe-demo-1' has 8 events; at_seq=9", "field": "at_seq"}
    assert (await api.get("/games/pe-demo-1/standings?at_seq=0")).status_code == 422


async def test_events_paged_with_voids_marked(api: httpx.AsyncClient, seeder: Seeder) -> None:
    await seeder.append(TRICKERION)
    first = (await api.get("/games/tr-demo-1/events?limit=4")).json()
    assert [e["seq"] for e in first["events"]] == [1, 2, 3, 4]
    assert (first["version"], first["next_from_seq"]) == (11, 5)
    second = (await api.get("/games/tr-demo-1/events?from_seq=5&limit=4")).json()
    marks = {e["seq"]: (e["voided"], e["voided_by_seq"]) for e in second["events"]}
    assert marks == {5: (True, 6), 6: (False, None), 7: (False, None), 8: (False, None)}
    assert second["events"][0]["event"]["payload"]["player_id"] == "chen"
    last = (await api.get("/games/tr-demo-1/events?from_seq=9&limit=4")).json()
    assert [e["seq"] for e in last["events"]] == [9, 10, 11]
    assert last["next_from_seq"] is None


async def test_ledger_each_point_with_its_event(api: httpx.AsyncClient, seeder: Seeder) -> None:
    await seeder.append(TRICKERION)
    body = (await api.get("/games/tr-demo-1/players/chen/ledger")).json()
    # chen's 5 at seq 5 was voided: only the 4 at seq 9 remains.
    assert [(e["seq"], e["event_type"], e["category"], e["amount"]) for e in body["entries"]] == [
        (9, "game.score_corrected", "advertise", 4)
    ]
    assert body["totals"] == {"fame": 4}
    assert body["entries"][0]["note"] == "ref-anna: advertised twice"


async def test_unknown_game_and_player_are_404(api: httpx.AsyncClient, seeder: Seeder) -> None:
    await seeder.append(PENUMBRA)
    for path in ("/games/nope/standings", "/games/nope/standings?at_seq=1", "/games/nope/events",
                 "/games/nope/players/dana/ledger"):
        response = await api.get(path)
        assert response.status_code == 404, path
        assert response.json()["error"] == "game_not_found"
    missing = await api.get("/games/pe-demo-1/players/zoe/ledger")
    assert missing.status_code == 404
    assert missing.json()["error"] == "player_not_found"
