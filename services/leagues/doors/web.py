"""The league page: `GET /leagues/{id}/page` (HTML, served with the query role; `/leagues/{id}`
itself is the league's JSON). Read-only and rendered on the server (no script): the league's
title, game and counting rule, its standings (place, player, league points, the additions
counted of those played, the rating's ordinal mu - 3 sigma with mu and sigma; each name
linking to the player's page), and the additions in order, each tournament linking to its
room screen and standings, each game to its scoreboard. `?lang=en|ru` (default `en`). Every text from the league (title, names, ids)
is HTML-escaped; ids in links are URL-quoted as well. An unknown league gets the not-found
page with HTTP 404, as the tournament pages do. Source: issue brief (league pages beside the
tournament pages; standings with rating).
"""

from __future__ import annotations

from html import escape
from typing import Annotated, Literal
from urllib.parse import quote

from fastapi import APIRouter, Path, Query, Response
from fastapi.responses import HTMLResponse

from contracts.games import game_info
from domain.league.fold import LeagueState
from domain.league.ratings import Rating
from domain.league.standings import LeagueLine
from domain.tournament.standings import fixed
from services.leagues.doors.web_page import PAGES, server_page
from services.leagues.doors.web_players import player_href
from services.leagues.usecases.stream import Leagues, UnknownLeague

Lid = Annotated[str, Path(max_length=64, description="the league id")]
Lang = Literal["en", "ru"]

TEXT: dict[Lang, dict[str, str]] = {
    "en": {
        "league": "League",
        "game": "Game",
        "count_all": "every event counts",
        "count_best": "a player's best {best} events count",
        "standings": "Standings",
        "place": "#",
        "player": "Player",
        "points": "Points",
        "counted": "Events counted",
        "rating": "Rating",
        "unrated": "not rated",
        "additions": "Tournaments and games",
        "tournament": "tournament",
        "single_game": "game",
        "room": "room screen",
        "table": "standings",
        "none": "Nothing added yet.",
    },
    "ru": {
        "league": "Лига",
        "game": "Игра",
        "count_all": "учитываются все события",
        "count_best": "учитываются {best} лучших событий игрока",
        "standings": "Таблица",
        "place": "№",
        "player": "Игрок",
        "points": "Очки",
        "counted": "Учтено событий",
        "rating": "Рейтинг",
        "unrated": "без рейтинга",
        "additions": "Турниры и партии",
        "tournament": "турнир",
        "single_game": "партия",
        "room": "экран зала",
        "table": "таблица",
        "none": "Пока ничего не добавлено.",
    },
}
"""The page's words, per language."""


def _game_name(key: str, lang: Lang) -> str:
    """The game's name in `lang` ("Penumbra: Trials of Arcana"), from the game catalogue
    (`contracts.games`); the key itself for a game no longer registered."""
    try:
        title = game_info(key).title
    except KeyError:
        return key
    return title.ru if lang == "ru" else title.en


def render_league(
    state: LeagueState, lines: list[LeagueLine], ratings: dict[str, Rating], lang: Lang = "en"
) -> str:
    """The league page's HTML for `state`, its standings `lines` and `ratings` (by player id).
    Every league-given text is escaped (`html.escape`, quotes too)."""
    t = TEXT[lang]
    s = state.settings
    title = escape(s.title)
    rule = t["count_all"] if s.count == "all" else t["count_best"].format(best=s.best)
    rows = "\n".join(_row(line, ratings.get(line.player_id), t, state.league_id) for line in lines)
    additions = "\n".join(_addition(a.kind, a.source_id, t) for a in state.additions.values())
    main = f"""  <main class="league">
    <h1 id="league-title">{title}</h1>
    <p id="league-rule">{t["league"]} · {t["game"]}: {escape(_game_name(s.game, lang))} · {rule}</p>
    <h2>{t["standings"]}</h2>
    <table id="league-standings">
      <thead><tr><th>{t["place"]}</th><th>{t["player"]}</th><th>{t["points"]}</th><th>{t["counted"]}</th><th>{t["rating"]}</th></tr></thead>
      <tbody>
{rows}
      </tbody>
    </table>
    <h2>{t["additions"]}</h2>
    {f'<ul id="league-additions">{additions}</ul>' if additions else f"<p>{t['none']}</p>"}
  </main>"""
    return server_page(lang, title, ("?lang=en", "?lang=ru"), main)


def _row(line: LeagueLine, rating: Rating | None, t: dict[str, str], league_id: str) -> str:
    """One standings row: the name linking to the player's page, the counted additions of
    those played; the rating's ordinal (mu, sigma), one decimal."""
    counted = sum(p.counted for p in line.parts)
    shown = (
        f"{rating.ordinal:.1f} <small>(μ {rating.mu:.1f}, σ {rating.sigma:.1f})</small>"
        if rating is not None
        else t["unrated"]
    )
    points = fixed(line.points)
    return (
        f'        <tr data-player="{escape(line.player_id)}"><td>{line.place}</td>'
        f'<td><a href="{escape(player_href(line.player_id, league_id))}">{escape(line.name)}</a>'
        f"</td><td>{points}</td><td>{counted} / {line.played}</td>"
        f"<td>{shown}</td></tr>"
    )


def _addition(kind: str, source_id: str, t: dict[str, str]) -> str:
    """One addition: a tournament links to its room screen and standings, a game to its
    scoreboard."""
    name, path = escape(source_id), quote(source_id, safe="")
    if kind == "tournament":
        return (
            f'<li>{t["tournament"]} <a href="/tv/tournaments/{path}">{name}</a> '
            f'(<a href="/tournaments/{path}/standings">{t["table"]}</a>)</li>'
        )
    return f'<li>{t["single_game"]} <a href="/games/{path}">{name}</a></li>'


def league_web_router(leagues: Leagues) -> APIRouter:
    """The league page, bound to the league use cases."""
    router = APIRouter(tags=["web"])

    @router.get("/leagues/{league_id}/page", include_in_schema=False, response_model=None)
    async def league_page(league_id: Lid, lang: Annotated[Lang, Query()] = "en") -> Response:
        """The league page (404: the not-found page)."""
        try:
            state = await leagues.state(league_id)
        except UnknownLeague:
            return PAGES.static("league-notfound.html", 404)
        lines = await leagues.standings(league_id, state.seq)
        _, ratings = await leagues.ratings(league_id, state.seq)
        return HTMLResponse(render_league(state, lines, ratings, lang))

    return router
