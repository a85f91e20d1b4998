"""The league page (`GET /leagues/{id}/page`), browser-free: its standings table row for row
as the league's JSON standings (place, name, points, additions counted of played, rating
ordinal), its links to the tournament and the game added, names and title HTML-escaped,
EN and RU, and the not-found page for an unknown league."""

from __future__ import annotations

from collections.abc import Iterator
from html.parser import HTMLParser

import pytest
from fastapi.testclient import TestClient

from services.bootstrap import memory_ports, use_cases
from services.leagues.doors.web import league_web_router
from services.platform.settings import ServiceSettings
from tests.doors.test_leagues_http import add_cup_to_club, league_app, single_game
from tests.doors.test_tournament_tables_http import PLAYERS, play
from tests.doors.test_tournaments_http import AUTH

HOSTILE = '<b>Ann</b> & "Co"'
TITLE = "Club <script>alert(1)</script>"


class Page(HTMLParser):
    """The cells of `#league-standings`'s body rows (text, entities decoded) and every link."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self.links: list[str] = []
        self.in_body = False
        self.cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "tbody":
            self.in_body = True
        elif tag == "tr" and self.in_body:
            self.rows.append([])
        elif tag == "td" and self.in_body:
            self.cell = []
        elif tag == "a":
            self.links.append(dict(attrs).get("href") or "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "tbody":
            self.in_body = False
        elif tag == "td" and self.cell is not None:
            self.rows[-1].append("".join(self.cell))
            self.cell = None

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)


def escaped_page(http: TestClient, url: str, headers: dict[str, str] | None = None) -> str:
    """The HTML page at `url` (200, text/html), in which `HOSTILE` and `TITLE` stayed text:
    no `<b>Ann` nor `<script>` markup from them."""
    page = http.get(url, headers=headers)
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    html = page.text
    assert "<b>Ann" not in html
    assert "<script>" not in html
    return html


@pytest.fixture
def http() -> Iterator[TestClient]:
    cases = use_cases(memory_ports(4), ServiceSettings())
    app = league_app(cases)
    app.include_router(league_web_router(cases.leagues))
    with TestClient(app) as client:
        yield client


def _league(http: TestClient) -> list[str]:
    """Tournament `cup` (7 players, p1 named HOSTILE), one round played and approved at once;
    league `club` titled TITLE adding it and a 3-player game `friday-1`; the game's players."""
    new = {"tournament_id": "cup", "title": "Cup", "game": "penumbra", "rounds": 1}
    new["auto_approve_after_s"] = 0  # type: ignore[assignment]
    assert http.post("/tournaments", json=new, headers=AUTH).status_code == 201
    for pid in PLAYERS:
        body = {"player_id": pid, "name": HOSTILE if pid == "p1" else pid.upper()}
        assert http.post("/tournaments/cup/players", json=body, headers=AUTH).status_code == 201
    seated = http.post("/tournaments/cup/rounds", headers=AUTH).json()
    for t in seated["tables"]:
        play(http, t, 10 + t["table"])
    league = {"league_id": "club", "title": TITLE, "game": "penumbra"}
    assert http.post("/leagues", json=league, headers=AUTH).status_code == 201
    add_cup_to_club(http)
    solo = single_game(http, "friday-1")
    game = http.post("/leagues/club/games", json={"game_id": "friday-1"}, headers=AUTH)
    assert game.status_code == 200, game.text
    return solo


def test_the_league_page_shows_the_standings_with_ratings_and_links(http: TestClient) -> None:
    _league(http)
    html = escaped_page(http, "/leagues/club/page")  # the name and the title never markup
    assert "&lt;b&gt;Ann&lt;/b&gt; &amp; &quot;Co&quot;" in html
    assert '<h1 id="league-title">Club &lt;script&gt;alert(1)&lt;/script&gt;</h1>' in html
    parsed = Page()
    parsed.feed(html)
    table = http.get("/leagues/club/standings").json()["players"]
    assert len(parsed.rows) == len(table) == 10  # 7 of the tournament, 3 of the game
    for row, line in zip(parsed.rows, table, strict=True):
        rating = line["rating"]
        ordinal = f"{rating['ordinal']:.1f}"
        assert row[:4] == [str(line["place"]), line["name"], line["points"], "1 / 1"]
        assert row[4].startswith(f"{ordinal} (μ {rating['mu']:.1f}, σ {rating['sigma']:.1f})")
    assert HOSTILE in [row[1] for row in parsed.rows]  # decoded back: the name as given
    assert {"/tv/tournaments/cup", "/tournaments/cup/standings", "/games/friday-1"} <= set(
        parsed.links
    )
    # each name opens the player's page in this league
    players = {f"/players/{line['player_id']}?league=club" for line in table}
    assert players <= set(parsed.links)


def test_the_league_page_speaks_russian_and_404s_an_unknown_league(http: TestClient) -> None:
    _league(http)
    ru = http.get("/leagues/club/page?lang=ru").text
    assert '<html lang="ru">' in ru
    assert "<h2>Таблица</h2>" in ru
    assert "<th>Рейтинг</th>" in ru
    assert "учитываются все события" in ru
    en = http.get("/leagues/club/page").text
    assert '<html lang="en">' in en
    assert "<h2>Standings</h2>" in en
    assert "every event counts" in en
    # the game by its name, not its key `penumbra`
    assert "Game: Penumbra: Trials of Arcana ·" in en
    assert "Игра: Пенумбра. Испытания Арканы ·" in ru
    missing = http.get("/leagues/nope/page")
    assert missing.status_code == 404
    assert missing.headers["content-type"].startswith("text/html")
    assert "<title>League not found — scoreledger</title>" in missing.text
    assert http.get("/leagues/club/page?lang=xx").status_code == 422
