"""Tables are scoreledger games, through HTTP: seating creates each table's game (its token
handed back), the game's end reports (and here auto-approves) the table, a referee's
correction and its void in the game move the tournament standings, a replay shows before and
after; judges hold their own tokens and, once appointed, are the only ones who approve or
dispute; auto-approval is due after the configured time, idempotently."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from services.bootstrap import UseCases, memory_ports, use_cases
from services.doors.asgi.http_errors import install_problem_handlers
from services.doors.ingest.http import ingest_router
from services.platform.settings import ServiceSettings
from services.simulator.tables import simulate_game
from services.tournaments.doors.ingest import tournament_write_router
from services.tournaments.doors.query import tournament_read_router
from tests.doors.test_tournaments_http import AUTH, TOKEN, problem_of

PLAYERS = [f"p{i}" for i in range(1, 8)]  # 7: a table of 4 and one of 3


def app_of(cases: UseCases) -> FastAPI:
    app = FastAPI()
    install_problem_handlers(app)
    app.include_router(tournament_read_router(cases.tournaments))
    app.include_router(tournament_write_router(cases.desk))
    app.include_router(ingest_router(cases.record, cases.tables))
    return app


@pytest.fixture
def cases() -> UseCases:
    return use_cases(memory_ports(4), ServiceSettings())


@pytest.fixture
def http(cases: UseCases) -> Iterator[TestClient]:
    with TestClient(app_of(cases)) as client:
        yield client


def create(http: TestClient, **settings: Any) -> None:
    new = {"tournament_id": "cup", "title": "Cup", "game": "penumbra", "rounds": 2, **settings}
    assert http.post("/tournaments", json=new, headers=AUTH).status_code == 201
    for pid in PLAYERS:
        body = {"player_id": pid, "name": pid.upper()}
        assert http.post("/tournaments/cup/players", json=body, headers=AUTH).status_code == 201


def game_events(table: dict[str, Any], key: int) -> list[dict[str, Any]]:
    """A simulated Penumbra game for the table: the simulator's events after its start,
    moved to the table's game and its players (seat for seat)."""
    events = list(simulate_game("penumbra", 5, key, players=len(table["players"])))
    start = events[0].payload
    by_seat = {p.seat: p.player_id for p in start.players}  # type: ignore[attr-defined]
    text = json.dumps([e.model_dump(mode="json") for e in events[1:]])
    for seat, sim_id in by_seat.items():
        text = text.replace(f'"{sim_id}"', f'"{table["players"][seat - 1]}"')
    moved: list[dict[str, Any]] = json.loads(text)
    for e in moved:
        e["game_id"] = table["game_id"]
    return moved


def play(http: TestClient, table: dict[str, Any], key: int) -> list[dict[str, Any]]:
    events = game_events(table, key)
    auth = {"Authorization": f"Bearer {table['game_token']}"}
    posted = http.post(f"/games/{table['game_id']}/events", json=events, headers=auth)
    assert posted.status_code == 201, posted.text
    return events


def points(http: TestClient, at_seq: int | None = None) -> dict[str, float]:
    url = "/tournaments/cup/standings" + (f"?at_seq={at_seq}" if at_seq else "")
    body = http.get(url).json()
    return {line["player_id"]: line["points"]["value"] for line in body["players"]}


def test_seating_creates_each_tables_game_with_its_players_in_seat_order(
    http: TestClient, cases: UseCases
) -> None:
    create(http)
    seated = http.post("/tournaments/cup/rounds", headers=AUTH).json()
    assert [len(t["players"]) for t in seated["tables"]] == [4, 3]
    for table in seated["tables"]:
        assert table["game_id"].startswith(f"cup.r1t{table['table']}.")
        assert table["game_refused"] is None
        assert len(table["game_token"]) == 43

    async def started(game_id: str) -> list[tuple[str, int]]:
        first = (await cases.tables.game_log.read(game_id, 1, 1))[0]
        assert first.actor == "tournament cup"
        return [(p.player_id, p.seat) for p in first.payload.players]  # type: ignore[attr-defined]

    import asyncio

    for table in seated["tables"]:
        expected = [(pid, seat) for seat, pid in enumerate(table["players"], 1)]
        assert asyncio.run(started(table["game_id"])) == expected
    # Asking again finds the games (a retry creates nothing) and gives the same tokens.
    again = http.post("/tournaments/cup/rounds/1/games", headers=AUTH).json()["games"]
    assert [(g["game_id"], g["token"], g["created"]) for g in again] == [
        (t["game_id"], t["game_token"], False) for t in seated["tables"]
    ]
    # The organiser's token is not a table's.
    table = seated["tables"][0]
    refused = http.post(
        f"/games/{table['game_id']}/events", json=game_events(table, 1)[:1], headers=AUTH
    )
    problem_of(refused, 403, "auth.token_rejected")


def test_a_games_end_gives_the_table_its_result_and_a_void_moves_the_standings(
    http: TestClient,
) -> None:
    create(http, auto_approve_after_s=0)
    seated = http.post("/tournaments/cup/rounds", headers=AUTH).json()
    games = {t["table"]: play(http, t, 10 + t["table"]) for t in seated["tables"]}
    summary = http.get("/tournaments/cup").json()
    rnd = summary["rounds"][0]
    assert [t["status"] for t in rnd["tables"]] == ["approved", "approved"]
    assert rnd["closed"] is True  # the last approval closed the round
    table = rnd["tables"][0]
    last = next(line["player_id"] for line in table["approved"] if line["place"] == 4)
    first = next(line["player_id"] for line in table["approved"] if line["place"] == 1)
    before_seq = summary["seq"]
    before = points(http)
    assert (before[last], before[first]) == (1, 7)  # placement 7/5/3/1
    # The referee gives the table's last player 500 VP (a correction), then voids it.
    t1 = seated["tables"][0]
    auth = {"Authorization": f"Bearer {t1['game_token']}"}
    seq = len(games[1]) + 2  # the start, then the simulated events
    correction = {
        **games[1][-1],
        "event_id": "00000000-0000-4000-8000-000000000001",
        "seq": seq,
        "type": "game.score_corrected",
        "schema_version": 2,
        "actor": "referee",
        "payload": {"player_id": last, "amount": 500, "reason": "recount", "referee": "Ref"},
    }
    assert (
        http.post(f"/games/{t1['game_id']}/events", json=correction, headers=auth).status_code
        == 201
    )
    corrected = points(http)
    assert (corrected[last], corrected[first]) == (7, 5)
    void = {
        **correction,
        "event_id": "00000000-0000-4000-8000-000000000002",
        "seq": seq + 1,
        "type": "game.event_voided",
        "schema_version": 1,
        "payload": {"voided_event_id": correction["event_id"], "reason": "wrong", "referee": "Ref"},
    }
    assert http.post(f"/games/{t1['game_id']}/events", json=void, headers=auth).status_code == 201
    after = points(http)
    assert after == before
    # The replay shows each step: before, after the correction, after the void.
    assert points(http, before_seq) == before
    assert points(http, before_seq + 1)[last] == 7
    assert points(http, before_seq + 2) == before
    events = http.get("/tournaments/cup").json()["seq"]
    assert events == before_seq + 2
    # Syncing by hand now changes nothing.
    url = "/tournaments/cup/tables/1/result-from-game?round=1"
    assert http.post(url, headers=AUTH).json()["outcome"] == "unchanged"


def test_result_from_game_waits_for_the_end_and_names_a_missing_game(http: TestClient) -> None:
    create(http)
    seated = http.post("/tournaments/cup/rounds", headers=AUTH).json()
    url = "/tournaments/cup/tables/2/result-from-game?round=1"
    assert http.post(url, headers=AUTH).json()["outcome"] == "waiting"
    play(http, seated["tables"][1], 12)
    # No auto-approval configured: the game reported the table; a judge approves.
    table = http.get("/tournaments/cup").json()["rounds"][0]["tables"][1]
    assert table["status"] == "reported"
    assert http.post(url, headers=AUTH).json()["outcome"] == "unchanged"
    problem_of(
        http.post("/tournaments/cup/tables/9/result-from-game?round=1", headers=AUTH),
        422,
        "tournament.unknown_table",
    )
    problem_of(http.post(url), 401, "auth.token_required")


def test_judges_hold_their_own_tokens_and_alone_approve_once_appointed(
    http: TestClient,
) -> None:
    create(http)
    seated = http.post("/tournaments/cup/rounds", headers=AUTH).json()
    play(http, seated["tables"][0], 11)
    url = "/tournaments/cup/tables/1/result"
    approve = {"action": "approve", "round": 1, "by": "someone"}
    appointed = http.post(
        "/tournaments/cup/judges", json={"judge_id": "jo", "name": "Jo"}, headers=AUTH
    )
    assert appointed.status_code == 201, appointed.text
    judge = {"Authorization": f"Bearer {appointed.json()['judge_token']}"}
    assert appointed.json()["judge_token"] != TOKEN
    problem_of(http.post(url, json=approve, headers=AUTH), 403, "auth.judge_required")
    # A judge's token seats nothing, registers nobody.
    problem_of(http.post("/tournaments/cup/rounds", headers=judge), 403, "auth.organiser_required")
    ok = http.post(url, json=approve, headers=judge)
    assert ok.status_code == 200, ok.text
    table = http.get("/tournaments/cup").json()["rounds"][0]["tables"][0]
    assert table["status"] == "approved"
    events = http.get("/tournaments/cup").json()
    assert events["seq"] >= 1
    # Dismissed: the token stops working.
    assert http.delete("/tournaments/cup/judges/jo", headers=AUTH).status_code == 200
    dispute = {"action": "dispute", "round": 1, "by": "jo", "reason": "recount"}
    problem_of(http.post(url, json=dispute, headers=judge), 403, "auth.token_rejected")
    wrong = {"Authorization": "Bearer " + "x" * 43}
    problem_of(http.post(url, json=dispute, headers=wrong), 403, "auth.token_rejected")


def test_a_dispute_holds_the_table_out_until_a_judge_rules(http: TestClient) -> None:
    create(http, auto_approve_after_s=0)
    seated = http.post("/tournaments/cup/rounds", headers=AUTH).json()
    play(http, seated["tables"][1], 12)
    url = "/tournaments/cup/tables/2/result"
    dispute = {"action": "dispute", "round": 1, "by": "p1", "reason": "miscount"}
    assert http.post(url, json=dispute, headers=AUTH).status_code == 200
    standings = http.get("/tournaments/cup/standings").json()
    assert standings["held"] == [{"round": 1, "table": 2, "status": "disputed"}]
    assert sum(line["games"] for line in standings["players"]) == 0
    # Auto-approval does not touch a disputed table.
    assert http.post("/tournaments/cup/approve-due", headers=AUTH).json()["approved"] == []
    assert http.post(url, json={"action": "approve", "round": 1}, headers=AUTH).status_code == 200
    standings = http.get("/tournaments/cup/standings").json()
    assert standings["held"] == []
    assert sum(line["games"] for line in standings["players"]) == 3


def test_auto_approval_is_due_after_the_configured_time_once(cases: UseCases) -> None:
    clock = [datetime(2026, 12, 1, 10, 0, tzinfo=UTC)]
    cases.tournaments.now = lambda: clock[0]
    with TestClient(app_of(cases)) as http:
        create(http, auto_approve_after_s=600)
        seated = http.post("/tournaments/cup/rounds", headers=AUTH).json()
        for t in seated["tables"]:
            play(http, t, 10 + t["table"])
        due = "/tournaments/cup/approve-due"
        clock[0] += timedelta(seconds=599)
        assert http.post(due, headers=AUTH).json()["approved"] == []
        clock[0] += timedelta(seconds=1)
        first = http.post(due, headers=AUTH).json()
        assert first["approved"] == [{"round": 1, "table": 1}, {"round": 1, "table": 2}]
        again = http.post(due, headers=AUTH).json()
        assert (again["approved"], again["version"]) == ([], first["version"])
        state = http.get("/tournaments/cup").json()
        assert state["rounds"][0]["closed"] is True
        kinds = [t["status"] for t in state["rounds"][0]["tables"]]
        assert kinds == ["approved", "approved"]
        # The next seating is allowed: the round closed with the auto-approvals.
        assert http.post("/tournaments/cup/rounds", headers=AUTH).status_code == 201


def test_a_void_in_a_tables_game_moves_game_score_standings_and_the_replay_keeps_both(
    http: TestClient,
) -> None:
    # Scoring by the games' own VP. Table 1's game (simulated, seed 5, key 11) ends with its
    # winner on 66 VP; their last Goal (seq 113) is worth 8 VP: voiding it leaves 58.
    create(http, auto_approve_after_s=0, scoring="game_score")
    seated = http.post("/tournaments/cup/rounds", headers=AUTH).json()
    events = {t["table"]: play(http, t, 10 + t["table"]) for t in seated["tables"]}
    t1 = seated["tables"][0]
    goal = next(e for e in events[1] if e["seq"] == 113)
    assert (goal["type"], goal["payload"]["vp"]) == ("penumbra.goal_scored", 8)
    winner = goal["payload"]["player_id"]
    before_seq = http.get("/tournaments/cup").json()["seq"]
    before = points(http)
    table_points = {p: v for p, v in before.items() if p in t1["players"]}
    assert max(table_points.values()) == table_points[winner]
    assert before[winner] == 66
    void = {
        **events[1][-1],
        "event_id": "00000000-0000-4000-8000-0000000000aa",
        "seq": events[1][-1]["seq"] + 1,
        "type": "game.event_voided",
        "schema_version": 1,
        "actor": "referee",
        "payload": {"voided_event_id": goal["event_id"], "reason": "misread", "referee": "Ref"},
    }
    auth = {"Authorization": f"Bearer {t1['game_token']}"}
    assert http.post(f"/games/{t1['game_id']}/events", json=void, headers=auth).status_code == 201
    after = points(http)
    assert after[winner] == 58
    assert {p: v for p, v in after.items() if p != winner} == {
        p: v for p, v in before.items() if p != winner
    }
    # The replay: the standings before the void and after it, one event apart.
    assert points(http, before_seq)[winner] == 66
    assert points(http, before_seq + 1)[winner] == 58
    approved = http.get("/tournaments/cup").json()["rounds"][0]["tables"][0]
    assert approved["status"] == "approved"


def test_table_games_need_no_creator_key_where_creating_the_tournament_did() -> None:
    key = "integration-key-0123456789abcdefghijkl"
    cases = use_cases(memory_ports(4), ServiceSettings(creator_key=key))
    with TestClient(app_of(cases)) as http:
        new = {"tournament_id": "cup", "title": "Cup", "game": "penumbra", "rounds": 1}
        assert http.post("/tournaments", json=new, headers=AUTH).status_code == 401
        keyed = {**AUTH, "X-Creator-Key": key}
        assert http.post("/tournaments", json=new, headers=keyed).status_code == 201
        for pid in PLAYERS:
            body = {"player_id": pid, "name": pid.upper()}
            assert http.post("/tournaments/cup/players", json=body, headers=AUTH).status_code == 201
        seated = http.post("/tournaments/cup/rounds", headers=AUTH).json()
        assert [t["game_refused"] for t in seated["tables"]] == [None, None]
        # A game of one's own still needs the key.
        events = [e.model_dump(mode="json") for e in simulate_game("penumbra", 1, 1, players=3)]
        mine = {"Authorization": "Bearer " + "m" * 40}
        posted = http.post(f"/games/{events[0]['game_id']}/events", json=events, headers=mine)
        problem_of(posted, 401, "auth.creator_key_required")


def test_tables_judges_and_leagues_on_the_assembled_app_on_redis(clean_redis_url: str) -> None:
    from services.bootstrap import Roles, build_app

    settings = ServiceSettings(redis_url=clean_redis_url, shards=4)
    with TestClient(build_app(Roles(inbox=False, projector=False), settings)) as http:
        create(http, auto_approve_after_s=0)
        judge = http.post(
            "/tournaments/cup/judges", json={"judge_id": "jo", "name": "Jo"}, headers=AUTH
        )
        assert judge.status_code == 201
        seated = http.post("/tournaments/cup/rounds", headers=AUTH).json()
        for t in seated["tables"]:
            play(http, t, 10 + t["table"])
        rnd = http.get("/tournaments/cup").json()["rounds"][0]
        assert [t["status"] for t in rnd["tables"]] == ["approved", "approved"]
        assert rnd["closed"] is True
        url = "/tournaments/cup/tables/1/result"
        dispute = {"action": "dispute", "round": 1, "reason": "recount"}
        problem_of(http.post(url, json=dispute, headers=AUTH), 403, "auth.judge_required")
        as_judge = {"Authorization": f"Bearer {judge.json()['judge_token']}"}
        assert http.post(url, json=dispute, headers=as_judge).status_code == 200
        held = http.get("/tournaments/cup/standings").json()["held"]
        assert held == [{"round": 1, "table": 1, "status": "disputed"}]
        league = {"league_id": "club", "title": "Club", "game": "penumbra"}
        assert http.post("/leagues", json=league, headers=AUTH).status_code == 201
        body = {"tournament_id": "cup"}
        assert http.post("/leagues/club/tournaments", json=body, headers=AUTH).status_code == 200
        history = http.get("/leagues/club/ratings").json()["history"]
        assert [(s["round"], s["table"]) for s in history] == [(1, 2)]  # table 1 is held out


async def test_a_table_game_fed_through_the_inbox_is_followed_too() -> None:
    import httpx

    from services.adapters.memory.inbox import MemoryInboxQueue
    from services.adapters.redis.keys import Keys
    from services.doors.ingest.inbox_entry import INBOX_FORM, game_of_entry
    from services.usecases.inbox.settle import Inbox

    ports = memory_ports(4)
    cases = use_cases(ports, ServiceSettings(shards=4))
    queue = MemoryInboxQueue(Keys(4).inbox, game_of_entry)
    inbox = Inbox(
        queue,
        Keys(4),
        cases.record,
        ports.letters,
        follow=cases.tables.after_write,
        form=INBOX_FORM,
    )
    transport = httpx.ASGITransport(app=app_of(cases))
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as http:
        new = {"tournament_id": "cup", "title": "Cup", "game": "penumbra", "rounds": 1}
        assert (await http.post("/tournaments", json=new, headers=AUTH)).status_code == 201
        for pid in PLAYERS:
            body = {"player_id": pid, "name": pid.upper()}
            await http.post("/tournaments/cup/players", json=body, headers=AUTH)
        seated = (await http.post("/tournaments/cup/rounds", headers=AUTH)).json()
        table = seated["tables"][1]
        events = game_events(table, 12)
        entry = {b"data": json.dumps(events).encode(), b"token": table["game_token"].encode()}
        await inbox.process([b"1-1"], [entry])
        assert await ports.log.version(table["game_id"]) == len(events) + 1
        state = (await http.get("/tournaments/cup")).json()
        assert state["rounds"][0]["tables"][1]["status"] == "reported"
        assert state["rounds"][0]["tables"][0]["status"] == "seated"
