"""The demo's tournament (`services.tournaments.cli.demo`) on the tournament doors and the game
ingest door over the memory adapters: stepped by the fraction of the games' events sent, it
seats 2 rounds of 2 tables of 4, plays every table's game with the simulator (the game's end
reports the table), approves 3 of the 4 tables and leaves the last one reported."""

from __future__ import annotations

from typing import Any

import httpx
from fastapi import FastAPI

from domain.fold import fold
from domain.standings import standings
from domain.tournament.results import results_from_game
from services.bootstrap import UseCases, memory_ports, use_cases
from services.cli.remote import post_batch
from services.doors.asgi.http_errors import install_problem_handlers
from services.doors.ingest.http import ingest_router
from services.platform.settings import ServiceSettings
from services.simulator.tables import play_seated_table
from services.tournaments.cli.demo import PLAYERS, SEED, DemoTournament
from services.tournaments.doors.ingest import tournament_write_router
from services.tournaments.doors.query import tournament_read_router


def demo_app() -> tuple[FastAPI, UseCases]:
    """The tournament doors and the game ingest door (following tournament tables) on one
    set of memory use cases, as the demo's service has them."""
    cases = use_cases(memory_ports(4), ServiceSettings())
    app = FastAPI()
    install_problem_handlers(app)
    app.include_router(tournament_read_router(cases.tournaments))
    app.include_router(tournament_write_router(cases.desk))
    app.include_router(ingest_router(cases.record, cases.tables))
    return app, cases


def test_a_seated_tables_game_is_the_simulators_game_with_the_tables_players() -> None:
    players = ["p3", "p7", "p1", "p5"]
    events = play_seated_table(SEED, 11, "demo-cup.r1t1.0123abcd", players)
    assert events[0].seq == 2  # seq 1 is the tournament's own game_started
    assert [e.seq for e in events] == list(range(2, len(events) + 2))
    assert {e.game_id for e in events} == {"demo-cup.r1t1.0123abcd"}
    assert events[-1].type == "game.ended"
    named = {
        e.payload.player_id  # type: ignore[attr-defined]
        for e in events
        if hasattr(e.payload, "player_id")
    }
    assert named == set(players)
    assert play_seated_table(SEED, 11, "demo-cup.r1t1.0123abcd", players) == events  # each run


async def test_the_demo_tournament_steps_with_the_games() -> None:
    app, cases = demo_app()
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://demo") as client:
        tournament = DemoTournament(post_batch)
        await tournament.pick_id(client)
        assert tournament.tournament_id == "demo-cup"
        # 20 steps: create, seat, 6 batches of round 1's games, wait for their results,
        # approve both tables, seat, 6 batches of round 2's, wait, approve table 1
        assert tournament.total == 20
        await tournament.step_to(client, 0.0)
        assert tournament.done == 0
        await tournament.step_to(client, 0.25)  # 0.25 of 20 is 5: create, seat, 3 batches
        assert tournament.done == 5
        state = (await client.get("/tournaments/demo-cup")).json()
        assert [p["name"] for p in state["players"]] == list(PLAYERS)
        assert [t["status"] for t in state["rounds"][0]["tables"]] == ["seated", "seated"]
        game_1 = state["rounds"][0]["tables"][0]["game_id"]
        whole = play_seated_table(SEED, 11, game_1, tournament.tables[(1, 1)])
        # table 1 had 2 of its 3 batches (ceil(n/3), then ceil of the rest over 2)
        first = -(-len(whole) // 3)
        second = -(-(len(whole) - first) // 2)
        assert len(await cases.tables.game_log.read(game_1)) == 1 + first + second
        await tournament.step_to(client, 1.0)
        assert tournament.done == tournament.total
        state = (await client.get("/tournaments/demo-cup")).json()
        statuses = [[t["status"] for t in r["tables"]] for r in state["rounds"]]
        assert statuses == [["approved", "approved"], ["approved", "reported"]]
        posted = 0
        for r in state["rounds"]:
            for t in r["tables"]:
                await _played(cases, t, tournament.tables[(r["round"], t["table"])])
                posted += len(await cases.tables.game_log.read(t["game_id"])) - 1
        assert tournament.posted == posted
        table = (await client.get("/tournaments/demo-cup/standings")).json()
        assert table["players"][0]["points"]["value"] > 0
        line = await tournament.summary(client)
        assert (
            f"2 of 2 rounds seated, 4 table games played by the simulator ({posted} events), "
            "3 of 4 tables approved, 1 awaiting approval" in line
        )
        again = DemoTournament(post_batch)
        await again.pick_id(client)  # demo-cup is taken: another id
        assert again.tournament_id.startswith("demo-cup-")
        assert len(again.tournament_id) == len("demo-cup-") + 6


async def _played(cases: UseCases, table: dict[str, Any], players: list[str]) -> None:
    """The table's game holds the tournament's start and the whole simulated game, and the
    table's result is that game's final standings, with VP scored."""
    events = await cases.tables.game_log.read(table["game_id"])
    assert events[0].actor.startswith("tournament ")
    assert events[-1].type == "game.ended"
    game = standings(fold(events))
    assert game.status == "final"
    expected = results_from_game(game, tuple(players))
    got = table["approved"] or table["reported"]
    assert sorted((r["player_id"], r["place"], r["score"]) for r in got) == sorted(
        (r.player_id, r.place, r.score) for r in expected
    )
    assert max(r["score"] for r in got) > 0  # VP scored: no more 0-VP leaders
