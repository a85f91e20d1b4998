"""The player page: `GET /players/{player_id}?league=L` (served with the query role), one URL
for two bodies: the page for a browser (the request accepts `text/html`), the player's league
record as JSON otherwise (`Accept: application/json`).

A player id is the one a league keeps across the tournaments and single games it adds (a
tournament's registrant id, a game's player id), so the league names the player's club.
Without `league` the page lists every league naming the id (`player_leagues`). The record
(`domain.league.player`): the player's tournaments with their place, the games they played
with their place, and their rating after each rated game (a table and an inline SVG line,
`rating_chart`). The name is the league's, read through its kept names: a forgotten player
shows the pseudonym.
Rendered on the server (no script), `?lang=en|ru`; every league-given text is HTML-escaped,
ids in links URL-quoted. Unknown league or player: 404 (the not-found page, or a problem).
Rule source: docs/rules/tournaments.md#leagues.
"""

from __future__ import annotations

from html import escape
from typing import Annotated, Any, Literal
from urllib.parse import quote

from fastapi import APIRouter, Path, Query, Request, Response
from fastapi.responses import HTMLResponse, JSONResponse

from domain.league.player import PlayerRecord
from services.leagues.doors.web_page import PAGES, server_page
from services.leagues.doors.web_player_leagues import across_dict, render_across
from services.leagues.doors.web_rating_chart import rating_chart
from services.leagues.usecases.player_leagues import player_across
from services.leagues.usecases.stream import Leagues, UnknownLeague
from services.platform.problems import ProblemResponse, problem, problem_responses

Pid = Annotated[str, Path(max_length=64, description="the player id the league keeps")]
Lang = Literal["en", "ru"]

TEXT: dict[Lang, dict[str, str]] = {
    "en": {
        "player": "Player",
        "league": "League",
        "tournaments": "Tournaments",
        "tournament": "Tournament",
        "place": "Place",
        "points": "Points",
        "games": "Games",
        "game": "Game",
        "single": "single game",
        "round": "round {round}, table {table}",
        "rating": "Rating over time",
        "after": "Rating after",
        "now": "Rating now",
        "unrated": "not rated yet",
        "none": "None yet.",
        "all": "All leagues of this player",
    },
    "ru": {
        "player": "Игрок",
        "league": "Лига",
        "tournaments": "Турниры",
        "tournament": "Турнир",
        "place": "Место",
        "points": "Очки",
        "games": "Партии",
        "game": "Партия",
        "single": "отдельная партия",
        "round": "тур {round}, стол {table}",
        "rating": "Рейтинг во времени",
        "after": "Рейтинг после",
        "now": "Рейтинг сейчас",
        "unrated": "пока без рейтинга",
        "none": "Пока нет.",
        "all": "Все лиги игрока",
    },
}
"""The page's words, per language."""


def player_href(player_id: str, league_id: str) -> str:
    """The player page's path: `/players/p%201?league=club`."""
    return f"/players/{quote(player_id, safe='')}?league={quote(league_id, safe='')}"


def _rating(r: dict[str, float]) -> str:
    """Ordinal (mu, sigma), one decimal."""
    return f"{r['ordinal']:.1f} <small>(μ {r['mu']:.1f}, σ {r['sigma']:.1f})</small>"


def _where(g: dict[str, Any], t: dict[str, str], titles: dict[str, str]) -> str:
    """A game's link: its tournament (by title) with round and table, or a single game."""
    tid = g["tournament_id"]
    label = (
        t["single"]
        if tid is None
        else f"{escape(titles.get(tid, tid))}, {t['round'].format(round=g['round'], table=g['table'])}"
    )
    if g["game_id"] is None:  # a table reported by hand: no game stream to link
        return label
    return f'<a href="/games/{quote(g["game_id"], safe="")}">{label}</a>'


def _game_of(step: dict[str, Any]) -> dict[str, Any]:
    """A rating step as a game entry (`_where`'s shape): `tournament:<id>` names the tournament."""
    kind, _, source = str(step["addition"]).partition(":")
    return {**step, "tournament_id": source if kind == "tournament" else None}


def _table(rows: list[str], head: list[str], table_id: str, t: dict[str, str]) -> str:
    """A table with `head` cells, or the "none yet" line."""
    if not rows:
        return f"<p>{t['none']}</p>"
    cells = "".join(f"<th>{h}</th>" for h in head)
    body = "\n".join(rows)
    return (
        f'<table id="{table_id}"><thead><tr>{cells}</tr></thead><tbody>\n{body}\n</tbody></table>'
    )


def render_player(record: PlayerRecord, lang: Lang = "en") -> str:
    """The player page's HTML for `record`; every league-given text escaped."""
    t = TEXT[lang]
    name = escape(record.name)
    lid = quote(record.league_id, safe="")
    tournaments = [
        f'<tr><td><a href="/tv/tournaments/{quote(x["tournament_id"], safe="")}">'
        f"{escape(x['title'])}</a></td><td>{x['place'] or '–'} / {x['of']}</td>"
        f"<td>{'–' if x['points'] is None else x['points']}</td></tr>"
        for x in record.tournaments
    ]
    titles = {x["tournament_id"]: x["title"] for x in record.tournaments}
    games = [
        f"<tr><td>{_where(g, t, titles)}</td><td>{g['place']} / {g['of']}</td></tr>"
        for g in record.games
    ]
    steps = [
        f"<tr><td>{_where(_game_of(s), t, titles)}</td><td>{_rating(s['after'])}</td></tr>"
        for s in record.rating
    ]
    now = t["unrated"] if record.current is None else _rating(record.current.to_dict())
    main = f"""  <main class="league player">
    <h1 id="player-name">{name}</h1>
    <p id="player-league">{t["player"]} · {t["league"]}: <a href="/leagues/{lid}/page?lang={lang}">{escape(record.league_title)}</a></p>
    <p id="player-now">{t["now"]}: {now}</p>
    <p><a id="player-all" href="/players/{quote(record.player_id, safe="")}?lang={lang}">{t["all"]}</a></p>
    <h2>{t["tournaments"]}</h2>
    {_table(tournaments, [t["tournament"], t["place"], t["points"]], "player-tournaments", t)}
    <h2>{t["games"]}</h2>
    {_table(games, [t["game"], t["place"]], "player-games", t)}
    <h2>{t["rating"]}</h2>
    {rating_chart(record.rating, lang)}
    {_table(steps, [t["game"], t["after"]], "player-rating", t)}
  </main>"""
    langs = (f"?league={lid}&amp;lang=en", f"?league={lid}&amp;lang=ru")
    return server_page(lang, name, langs, main)


def _not_found(page: bool) -> Response:
    """No such player (in the league): the not-found page, or a 404 problem."""
    if page:
        return PAGES.static("player-notfound.html", 404)
    return ProblemResponse(problem(404, "league.player_not_found", "player_id", "no such player"))


def player_router(leagues: Leagues) -> APIRouter:
    """`GET /players/{player_id}`, bound to the league use cases."""
    router = APIRouter(tags=["leagues"])
    answers: dict[int | str, dict[str, Any]] = {
        200: {"content": {"application/json": {}, "text/html": {}}},
        **problem_responses(404, 422),
    }

    @router.get("/players/{player_id}", response_model=None, responses=answers)
    async def get_player(
        request: Request,
        player_id: Pid,
        league: Annotated[
            str | None, Query(max_length=64, description="the league keeping the id")
        ] = None,
        lang: Annotated[Lang, Query()] = "en",
    ) -> Response:
        """The player's league record: `{league_id, player_id, name, tournaments: [{
        tournament_id, title, place, of, points}], games: [{tournament_id, round, table,
        game_id, place, of}], rating: [{addition, round, table, game_id, before, after}],
        current}` (ratings as `{mu, sigma, ordinal}`); the page when the request accepts
        `text/html`; `league_title` beside the ids. Without `league`: the player in every
        league naming the id, `{player_id, name, leagues: [record, ...]}` by league id.
        404: no such league, or the league (without `league`: any league) names no such player."""
        page = "text/html" in request.headers.get("accept", "")
        vary = {"Vary": "Accept"}  # one URL, two bodies: a cache must not mix them up
        if league is None:
            records = await player_across(leagues, player_id)
            if not records:
                return _not_found(page)
            if page:
                return HTMLResponse(render_across(player_id, records, lang), headers=vary)
            return JSONResponse(across_dict(player_id, records), headers=vary)
        try:
            record = await leagues.player(league, player_id)
        except UnknownLeague:
            record = None
        if record is None:
            return _not_found(page)
        if page:
            return HTMLResponse(render_player(record, lang), headers=vary)
        return JSONResponse(record.to_dict(), headers=vary)

    return router
