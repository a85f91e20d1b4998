"""The scoreboard's read APIs against the real stack: the games list (players, leader, turn,
stale, paging), the replayed ledger, and the compact live frames."""

from __future__ import annotations

import asyncio
import json

import pytest

from services.usecases.readmodels.render import compact
from tests.web import sse
from tests.web.builders import example, referee
from tests.web.conftest import Stack

pytestmark = pytest.mark.redis
GAME = "pen-demo-3p"


async def test_games_list_has_players_leader_turn_and_stale(stack: Stack) -> None:
    await stack.append(list(example()[:30]))
    await stack.wait_projected(GAME, 30)
    body = (await stack.client.get("/board/games")).json()
    assert (body["page"], body["pages"], body["total"]) == (1, 1, 1)
    (row,) = body["games"]
    standings = (await stack.client.get(f"/games/{GAME}/standings")).json()
    assert [p["player_id"] for p in row["players"]] == [
        p["player_id"] for p in standings["players"]
    ]
    assert row["leader"] == [p["player_id"] for p in standings["players"] if p["rank"] == 1]
    turns = [e.payload.turn for e in example()[:30] if e.type == "game.turn_started"]
    assert row["turn"] == turns[-1]
    assert row["status"] == "in_progress"  # just stored: not stale
    stack.settings.stale_after_s = 0.05  # the route reads the setting per request
    await asyncio.sleep(0.1)
    assert (await stack.client.get("/board/games")).json()["games"][0]["status"] == "stale"


async def test_games_list_pages(stack: Stack) -> None:
    base = list(example()[:1])
    for i in range(3):
        await stack.append([e.model_copy(update={"game_id": f"g-{i}"}) for e in base])
    for i in range(3):  # a live list reorders as games are projected: page a settled one
        await stack.wait_projected(f"g-{i}", 1)
    first = (await stack.client.get("/board/games", params={"per_page": 2})).json()
    second = (await stack.client.get("/board/games", params={"per_page": 2, "page": 2})).json()
    assert (first["pages"], len(first["games"]), len(second["games"])) == (2, 2, 1)
    ids = {g["game_id"] for g in first["games"] + second["games"]}
    assert ids == {"g-0", "g-1", "g-2"}
    assert (await stack.client.get("/board/games", params={"per_page": 0})).status_code == 422


async def test_replayed_ledger_is_the_ledger_at_that_seq(stack: Stack) -> None:
    events = list(example()[:60])
    await stack.append(events)
    at = (await stack.client.get(f"/games/{GAME}/replay/ledger/oren", params={"at_seq": 20})).json()
    assert at["seq"] == 20
    assert all(e["seq"] <= 20 for e in at["entries"])
    standings = (await stack.client.get(f"/games/{GAME}/standings", params={"at_seq": 20})).json()
    oren = next(p for p in standings["players"] if p["player_id"] == "oren")
    assert at["totals"].get("vp", 0) == oren["total"]
    missing = await stack.client.get(f"/games/{GAME}/replay/ledger/nobody")
    assert missing.status_code == 404
    beyond = await stack.client.get(f"/games/{GAME}/replay/ledger/oren", params={"at_seq": 61})
    assert beyond.status_code == 404


async def test_live_frames_are_full_on_connect_then_compact(stack: Stack) -> None:
    events = list(example("trickerion-4p-dark-alley-academy"))  # 31 categories
    game = events[0].game_id
    await stack.append(events[:40])
    await stack.wait_projected(game, 40)
    async with stack.client.stream("GET", f"/games/{game}/live") as response:
        reader = sse.events(response)
        first = await anext(reader)
        assert "compact" not in first.json()
        full = first.json()["standings"]
        assert full["players"][0]["breakdown"][0]["en"]  # labels on connect
        fix = referee(events[:40], {"player_id": "alma", "amount": 5})
        await stack.append([fix])
        nxt = await asyncio.wait_for(anext(reader), timeout=5)
    frame = nxt.json()
    assert frame["compact"] is True
    print(f"frames: full {len(first.data)} bytes, compact {len(nxt.data)} bytes")
    assert len(nxt.data) < len(first.data) / 4, (len(nxt.data), len(first.data))
    alma = next(p for p in frame["standings"]["players"] if p["player_id"] == "alma")
    before = next(p for p in full["players"] if p["player_id"] == "alma")
    assert alma["total"] == before["total"] + 5
    assert alma["points"]["correction"] == 5
    assert 0 not in alma["points"].values()  # zero categories left out
    # the compact form is a function of the full body
    now = (await stack.client.get(f"/games/{game}/standings")).json()
    assert json.loads(json.dumps(compact(now)))["players"] == frame["standings"]["players"]
