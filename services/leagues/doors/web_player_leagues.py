"""The player page across leagues: `GET /players/{player_id}` without `?league=` (served with
the query role). One line per league naming the player (`services.leagues.usecases.player_leagues`):
the league, the player's tournaments and games there, and the rating now, each league linked
to the player's page in it. Server-rendered, `?lang=en|ru`; league-given texts HTML-escaped,
ids in links URL-quoted. Rule source: docs/rules/tournaments.md#leagues.
"""

from __future__ import annotations

from html import escape
from typing import Any
from urllib.parse import quote

from domain.league.player import PlayerRecord
from services.leagues.doors.web_page import server_page

TEXT = {
    "en": {
        "player": "Player",
        "leagues": "Leagues",
        "league": "League",
        "tournaments": "Tournaments",
        "games": "Games",
        "now": "Rating",
        "unrated": "not rated yet",
        "intro": "The id {pid} in every league that names it.",
    },
    "ru": {
        "player": "Игрок",
        "leagues": "Лиги",
        "league": "Лига",
        "tournaments": "Турниры",
        "games": "Партии",
        "now": "Рейтинг",
        "unrated": "пока без рейтинга",
        "intro": "Код {pid} во всех лигах, где он есть.",
    },
}
"""The page's words, per language."""


def across_dict(player_id: str, records: list[PlayerRecord]) -> dict[str, Any]:
    """The JSON body: `{player_id, name, leagues: [record, ...]}` (the name the first league
    keeps; each record as `GET /players/{id}?league=` answers it)."""
    return {
        "player_id": player_id,
        "name": records[0].name,
        "leagues": [r.to_dict() for r in records],
    }


def _row(record: PlayerRecord, lang: str, t: dict[str, str]) -> str:
    """One league's line: the league (linked to the player's page in it) and its counts."""
    pid, lid = quote(record.player_id, safe=""), quote(record.league_id, safe="")
    now = "–" if record.current is None else f"{record.current.ordinal:.1f}"
    return (
        f'<tr><td><a href="/players/{pid}?league={lid}&amp;lang={lang}">'
        f"{escape(record.league_title)}</a></td><td>{len(record.tournaments)}</td>"
        f"<td>{len(record.games)}</td><td>{now}</td></tr>"
    )


def render_across(player_id: str, records: list[PlayerRecord], lang: str = "en") -> str:
    """The page's HTML: the player's name and one table row per league in `records`."""
    t = TEXT[lang]
    name = escape(records[0].name)
    pid = quote(player_id, safe="")
    rows = "\n".join(_row(r, lang, t) for r in records)
    head = "".join(f"<th>{t[k]}</th>" for k in ("league", "tournaments", "games", "now"))
    main = f"""  <main class="league player">
    <h1 id="player-name">{name}</h1>
    <p id="player-intro">{t["player"]} · {escape(t["intro"].format(pid=player_id))}</p>
    <h2>{t["leagues"]}</h2>
    <div class="table-box"><table id="player-leagues"><thead><tr>{head}</tr></thead><tbody>
{rows}
</tbody></table></div>
  </main>"""
    return server_page(lang, name, (f"/players/{pid}?lang=en", f"/players/{pid}?lang=ru"), main)
