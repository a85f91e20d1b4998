"""The demo's tournament (`services.cli.demo_tournament`) on the tournament doors over the
memory adapters: stepped by the fraction of the games' events sent, it seats 2 rounds of
2 tables of 4, approves 3 of the 4 tables and leaves the last one reported; its made-up
results are fixed from round, table and seats."""

from __future__ import annotations

import httpx

from services.cli.demo_tournament import PLAYERS, DemoTournament, made_up_results
from tests.doors.test_tournaments_http import memory_app


def test_made_up_results_are_places_one_to_n_with_distinct_scores() -> None:
    players = ["p1", "p2", "p3", "p4"]
    results = made_up_results(1, 2, players)
    assert [r["place"] for r in results] == [1, 2, 3, 4]
    assert [r["score"] for r in results] == [40, 34, 28, 22]
    assert sorted(r["player_id"] for r in results) == players
    assert made_up_results(1, 2, players) == results  # the same every run
    assert made_up_results(2, 2, players) != results or made_up_results(1, 1, players) != results


async def test_the_demo_tournament_steps_with_the_games() -> None:
    transport = httpx.ASGITransport(app=memory_app())
    async with httpx.AsyncClient(transport=transport, base_url="http://demo") as client:
        tournament = DemoTournament()
        await tournament.pick_id(client)
        assert tournament.tournament_id == "demo-cup"
        await tournament.step_to(client, 0.0)
        assert tournament.done == 0
        await tournament.step_to(client, 0.25)  # 10 steps: 0.25 of them is 2.5, so 3 played
        assert tournament.done == 3
        state = (await client.get("/tournaments/demo-cup")).json()
        assert [p["name"] for p in state["players"]] == list(PLAYERS)
        assert [t["status"] for t in state["rounds"][0]["tables"]] == ["reported", "seated"]
        await tournament.step_to(client, 1.0)
        assert tournament.done == tournament.total == 10
        state = (await client.get("/tournaments/demo-cup")).json()
        statuses = [[t["status"] for t in r["tables"]] for r in state["rounds"]]
        assert statuses == [["approved", "approved"], ["approved", "reported"]]
        line = await tournament.summary(client)
        assert "2 of 2 rounds seated, 3 of 4 tables approved" in line
        again = DemoTournament()
        await again.pick_id(client)  # demo-cup is taken: another id
        assert again.tournament_id.startswith("demo-cup-")
        assert len(again.tournament_id) == len("demo-cup-") + 6
