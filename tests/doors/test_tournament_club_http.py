"""The club night's desk doors: check-in (seating then seats only the checked-in), the
round's clock (a `timer` on the round, refused for a round that is not open), and the
round's slips (each table's report link with the table's credential in the fragment, and its
QR code, which encodes that link). Organiser token only. On the memory adapters.
Source: docs/rules/tournaments.md#check-in, #round-timer; docs/tournaments-in-the-browser.md."""

from __future__ import annotations

from datetime import datetime, timedelta

from fastapi import FastAPI
from fastapi.testclient import TestClient

from services.bootstrap import memory_ports, use_cases
from services.doors.asgi.http_errors import install_problem_handlers
from services.platform.settings import ServiceSettings
from services.tournaments.doors.ingest import tournament_write_router
from services.tournaments.doors.ingest_club import tournament_club_router
from services.tournaments.doors.query import tournament_read_router
from tests.doors.test_table_token_reports import bearer
from tests.doors.test_tournaments_http import AUTH, problem_of

NEW = {"tournament_id": "club", "title": "Club night", "game": "penumbra", "rounds": 2}


def memory_app() -> FastAPI:
    settings = ServiceSettings()
    cases = use_cases(memory_ports(4), settings)
    app = FastAPI()
    install_problem_handlers(app)
    app.include_router(tournament_read_router(cases.tournaments))
    app.include_router(tournament_write_router(cases.desk))
    app.include_router(tournament_club_router(cases.desk, settings))
    return app


def _created(http: TestClient, players: int) -> None:
    assert http.post("/tournaments", json=NEW, headers=AUTH).status_code == 201
    for i in range(1, players + 1):
        body = {"player_id": f"p{i}", "name": f"P{i} <b>"}
        assert http.post("/tournaments/club/players", json=body, headers=AUTH).is_success


def test_check_in_seats_only_the_checked_in() -> None:
    with TestClient(memory_app()) as http:
        _created(http, 9)
        problem_of(
            http.post("/tournaments/club/players/p1/check-in", headers=bearer("x" * 40)),
            403,
            "auth.token_rejected",
        )
        for i in range(1, 9):  # p9 never arrives
            answer = http.post(f"/tournaments/club/players/p{i}/check-in", headers=AUTH)
            assert answer.status_code == 200, answer.text
        problem_of(
            http.post("/tournaments/club/players/p1/check-in", headers=AUTH),
            422,
            "tournament.checked_in",
        )
        problem_of(
            http.post("/tournaments/club/players/zz/check-in", headers=AUTH),
            422,
            "tournament.unknown_player",
        )
        view = http.get("/tournaments/club").json()
        assert view["check_in"] is True
        assert [p["checked_in"] for p in view["players"]] == [True] * 8 + [False]
        seated = http.post("/tournaments/club/rounds", headers=AUTH).json()
        players = sorted(p for t in seated["tables"] for p in t["players"])
        assert players == sorted(f"p{i}" for i in range(1, 9))


def test_the_round_clock_is_an_event_of_the_open_round() -> None:
    with TestClient(memory_app()) as http:
        _created(http, 8)
        problem_of(
            http.post("/tournaments/club/rounds/1/timer", json={"minutes": 50}, headers=AUTH),
            422,
            "tournament.timer_round",
        )
        assert http.post("/tournaments/club/rounds", headers=AUTH).status_code == 201
        problem_of(
            http.post("/tournaments/club/rounds/1/timer", json={"minutes": 0}, headers=AUTH),
            422,
            "request.invalid",
        )
        before = http.get("/tournaments/club").json()["seq"]
        answer = http.post("/tournaments/club/rounds/1/timer", json={"minutes": 50}, headers=AUTH)
        assert answer.status_code == 200, answer.text
        assert answer.json()["version"] == before + 1
        timer = http.get("/tournaments/club").json()["rounds"][0]["timer"]
        started = datetime.fromisoformat(timer["started_at"])
        assert datetime.fromisoformat(timer["ends_at"]) - started == timedelta(minutes=50)
        assert timer["minutes"] == 50
        # a replay to before the clock started shows none
        then = http.get(f"/tournaments/club?at_seq={before}").json()
        assert then["rounds"][0]["timer"] is None


def test_slips_carry_each_tables_report_link_and_its_qr_code() -> None:
    with TestClient(memory_app()) as http:
        _created(http, 8)
        seated = http.post("/tournaments/club/rounds", headers=AUTH).json()["tables"]
        problem_of(http.post("/tournaments/club/rounds/1/slips"), 401, "auth.token_required")
        problem_of(
            http.post("/tournaments/club/rounds/2/slips", headers=AUTH),
            422,
            "tournament.unknown_round",
        )
        answer = http.post("/tournaments/club/rounds/1/slips", headers=AUTH)
        assert answer.status_code == 200, answer.text
        slips = answer.json()["tables"]
        assert [s["table"] for s in slips] == [1, 2]
        for slip, table in zip(slips, seated, strict=True):
            assert slip["players"] == [f"P{p[1:]} <b>" for p in table["players"]]
            link = slip["report_url"]
            path, _, fragment = link.partition("#")
            assert path == f"http://testserver/tournaments/club/tables/{slip['table']}/report"
            assert fragment == f"round=1&key={table['game_token']}"
            assert slip["qr_svg"].startswith("<?xml") or slip["qr_svg"].startswith("<svg")
            assert f"<title>{link.replace('&', '&amp;')}</title>" in slip["qr_svg"]
            # the link's key is the table's own: it reports its table
            body = {
                "action": "report",
                "round": 1,
                "by": table["players"][0],
                "results": [
                    {"player_id": p, "place": i, "score": 10 - i}
                    for i, p in enumerate(table["players"], 1)
                ],
            }
            key = fragment.split("key=", 1)[1]
            url = f"/tournaments/club/tables/{slip['table']}/result"
            assert http.post(url, json=body, headers=bearer(key)).status_code == 200
