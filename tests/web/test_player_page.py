"""The player page (`GET /players/{id}?league=L`), browser-free: the JSON record (tournaments
with the place in the tournament's standings, every game with its place, the rating after each
rated game, matching the league's rating history) and the page built from it (escaped names,
links to the tournament, games and league, EN and RU), 404s, and a forgotten player's name
never shown again."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from services.bootstrap import memory_ports, use_cases
from services.bootstrap.usecases import UseCases
from services.leagues.doors.web import league_web_router
from services.leagues.doors.web_players import player_router
from services.leagues.doors.web_rating_chart import rating_chart
from services.platform.settings import ServiceSettings
from tests.doors.test_leagues_http import league_app
from tests.doors.test_tournaments_http import AUTH, problem_of
from tests.web.test_league_page import HOSTILE, TITLE, _league, escaped_page

JSON = {"Accept": "application/json"}
ACROSS = '<b>Town</b> & "Gown"'
HTML = {"Accept": "text/html,application/xhtml+xml"}


@pytest.fixture
def served() -> Iterator[tuple[TestClient, UseCases]]:
    cases = use_cases(memory_ports(4), ServiceSettings())
    app = league_app(cases)
    app.include_router(league_web_router(cases.leagues))
    app.include_router(player_router(cases.leagues))
    with TestClient(app) as client:
        yield client, cases


def test_the_json_record_follows_the_league(served: tuple[TestClient, UseCases]) -> None:
    http, _ = served
    solo = _league(http)
    standings = http.get("/tournaments/cup/standings").json()
    first = standings["players"][0]["player_id"]
    record = http.get(f"/players/{first}?league=club", headers=JSON)
    assert record.status_code == 200, record.text
    assert record.headers["content-type"].startswith("application/json")
    body = record.json()
    assert body["league_id"] == "club"
    assert body["player_id"] == first
    [cup] = body["tournaments"]
    assert (cup["tournament_id"], cup["place"], cup["of"]) == ("cup", 1, 7)
    [game] = body["games"]
    assert (game["tournament_id"], game["round"]) == ("cup", 1)
    # the rating after each of the player's games is the league's own history
    history = http.get("/leagues/club/ratings").json()
    mine = [s for s in history["history"] if first in s["players"]]
    assert [s["players"][first]["after"] for s in mine] == [s["after"] for s in body["rating"]]
    assert body["current"] == body["rating"][-1]["after"]
    # a single game's player: a game, no tournament
    single = http.get(f"/players/{solo[0]}?league=club", headers=JSON).json()
    assert single["tournaments"] == []
    assert [(g["tournament_id"], g["game_id"]) for g in single["games"]] == [(None, "friday-1")]
    problem_of(
        http.get("/players/nobody?league=club", headers=JSON), 404, "league.player_not_found"
    )
    assert http.get("/players/p1?league=nope", headers=JSON).status_code == 404
    assert http.get("/players/p1?league=", headers=JSON).status_code == 404


def test_the_page_escapes_links_and_speaks_russian(served: tuple[TestClient, UseCases]) -> None:
    http, _ = served
    _league(http)
    html = escaped_page(http, "/players/p1?league=club", HTML)
    assert '<h1 id="player-name">&lt;b&gt;Ann&lt;/b&gt; &amp; &quot;Co&quot;</h1>' in html
    assert 'href="/tv/tournaments/cup"' in html
    assert 'href="/leagues/club/page?lang=en"' in html
    assert "<h2>Rating over time</h2>" in html
    ru = http.get("/players/p1?league=club&lang=ru", headers=HTML).text
    assert '<html lang="ru">' in ru
    assert "<h2>Рейтинг во времени</h2>" in ru
    gone = http.get("/players/nobody?league=club", headers=HTML)
    assert gone.status_code == 404
    assert gone.headers["content-type"].startswith("text/html")


def test_a_forgotten_name_does_not_come_back(served: tuple[TestClient, UseCases]) -> None:
    http, cases = served
    _league(http)
    assert HOSTILE in http.get("/players/p1?league=club", headers=JSON).json()["name"]
    assert cases.forget is not None
    http.portal.call(cases.forget.forget_tournament, "cup", "p1")  # type: ignore[union-attr]
    record = http.get("/players/p1?league=club", headers=JSON).json()
    assert record["name"].startswith("player-")
    page = http.get("/players/p1?league=club", headers=HTML).text
    assert "Ann" not in page
    assert "Ann" not in str(record)


def test_a_tournament_names_the_leagues_that_added_it(served: tuple[TestClient, UseCases]) -> None:
    http, _ = served
    problem_of(http.get("/tournaments/cup/leagues"), 404, "tournament.not_found")
    _league(http)
    held = http.get("/tournaments/cup/leagues").json()["leagues"]
    assert held == [{"league_id": "club", "title": TITLE, "page": "/leagues/club/page"}]
    # added again (the league following a later approval): still named once
    again = http.post("/leagues/club/tournaments", json={"tournament_id": "cup"}, headers=AUTH)
    assert again.status_code == 200, again.text
    assert http.get("/tournaments/cup/leagues").json()["leagues"] == held
    # a tournament no league added: named, with no league
    lone = {"tournament_id": "lone", "title": "Lone", "game": "penumbra", "rounds": 1}
    assert http.post("/tournaments", json=lone, headers=AUTH).status_code == 201
    assert http.get("/tournaments/lone/leagues").json() == {"tournament_id": "lone", "leagues": []}


def test_the_rating_chart_draws_each_game_s_ordinal() -> None:
    rating = [
        {"before": {"ordinal": 0.0}, "after": {"ordinal": 5.0}},
        {"before": {"ordinal": 5.0}, "after": {"ordinal": 2.5}},
    ]
    svg = rating_chart(rating, "en")
    points = re.search(r'<polyline points="([^"]+)"', svg)
    assert points is not None
    ys = [float(p.split(",")[1]) for p in points.group(1).split()]
    # the start (0.0) lowest, game 1 (5.0) highest, game 2 (2.5) half way, y growing downwards
    assert ys[1] < ys[2] < ys[0]
    assert ys[2] == pytest.approx((ys[0] + ys[1]) / 2)
    assert "from 0.0 to 2.5, lowest 0.0, highest 5.0" in svg
    assert 'role="img"' in svg
    assert '<title id="player-chart-title">Rating over time</title>' in svg
    assert "Рейтинг после каждой из 2 партий" in rating_chart(rating, "ru")
    assert rating_chart([], "en") == ""


def test_the_page_draws_the_rating_of_the_record(served: tuple[TestClient, UseCases]) -> None:
    http, _ = served
    _league(http)
    record = http.get("/players/p1?league=club", headers=JSON).json()
    html = http.get("/players/p1?league=club", headers=HTML).text
    assert html.count("<svg") == 1
    assert f"to {record['current']['ordinal']:.1f}," in html
    assert html.count("<circle") == len(record["rating"]) + 1
    assert 'href="/players/p1?lang=en"' in html  # the player's other leagues


def test_one_player_across_leagues(served: tuple[TestClient, UseCases]) -> None:
    http, _ = served
    _league(http)
    town = {"league_id": "town", "title": ACROSS, "game": "penumbra"}
    assert http.post("/leagues", json=town, headers=AUTH).status_code == 201
    added = http.post("/leagues/town/tournaments", json={"tournament_id": "cup"}, headers=AUTH)
    assert added.status_code == 200, added.text
    across = http.get("/players/p1", headers=JSON)
    assert across.status_code == 200, across.text
    body = across.json()
    assert [x["league_id"] for x in body["leagues"]] == ["club", "town"]
    assert body["name"] == HOSTILE
    for league in body["leagues"]:
        alone = http.get(f"/players/p1?league={league['league_id']}", headers=JSON).json()
        assert league == alone
    html = http.get("/players/p1", headers=HTML).text
    assert "<b>" not in html
    assert "<script>" not in html
    assert 'href="/players/p1?league=town&amp;lang=en"' in html
    assert "&lt;b&gt;Town&lt;/b&gt; &amp; &quot;Gown&quot;" in html
    assert html.count("<tr>") == 3  # the head and two leagues
    ru = http.get("/players/p1?lang=ru", headers=HTML).text
    assert "<h2>Лиги</h2>" in ru
    assert 'href="/players/p1?league=club&amp;lang=ru"' in ru
    problem_of(http.get("/players/nobody", headers=JSON), 404, "league.player_not_found")
    nobody = http.get("/players/nobody", headers=HTML)
    assert nobody.status_code == 404
    assert '<h1 data-i18n="player_not_found">Player not found</h1>' in nobody.text
