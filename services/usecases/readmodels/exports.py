"""Exports of a game: the score sheet as CSV, a BG Stats play record, the event log as JSONL.

Pure functions (no I/O); the routes in `services.doors.web.routes` serve them.

* Score sheet CSV (`score_sheet_csv`): a header row of labels in the chosen language, then one
  row per player in rank order: `date` (the first event, the table's time zone), `status`
  (final / in progress), `winner` (yes / no; every player in first place after the tie-break),
  `rank`, `player_id`, `name`, one column per category (the label; the key when unlabelled),
  `total`. Points in the game's score unit. A shared place repeats the rank (1-1-3). With
  `bom`, a UTF-8 byte order mark first, so spreadsheet apps read Cyrillic names right.
* BG Stats play (`bgstats_play`): the JSON of BG Stats' "push plays" import, handed to the app
  as `https://app.bgstatsapp.com/createPlay.html?data=<url-encoded JSON>` (`bgstats_link`):
  `sourceName`, `sourcePlayId`, `playDate` (`YYYY-MM-DD HH:MM:SS`: the wall-clock time of the
  game's first event in the time zone `tz` (default UTC), with no offset, as the app shows
  it), `durationMin`, `location` (a string; absent when none is given), `game` {`name`,
  `bggId` (absent for a game without a confirmed BoardGameGeek id), `sourceGameId`,
  `highestWins`, `noPoints`}, `players` [{`name`, `sourcePlayerId`, `score`, `rank`,
  `winner`, `startPlayer`}], `comments` (title, modules, tie-break).
  Source: bgstatsapp.com/support/push-plays-to-bg-stats-from-other-apps-or-websites/ (as
  summarised in docs/integrating/http.md, and as open-source pushers send
  it: `location` a string); docs/integrating/http.md.
  A `.bgsplay` file is the app's own backup/share format (with `players`, `locations`,
  `games` and `plays` lists cross-referenced by id), not this record, so none is offered.
* JSONL log: `ReadModels.events_jsonl` (the stored envelopes byte for byte).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any
from urllib.parse import quote
from zoneinfo import ZoneInfo

from contracts.common import EventVoided, GameEnded, ScoreCorrected, TurnStarted
from contracts.envelope import Envelope
from contracts.games import GAMES
from domain.standings import Standings
from services.usecases.readmodels.labels import category_labels

BGG_IDS: dict[str, int] = {
    # https://boardgamegeek.com/boardgame/163068/trickerion-legends-illusion: the game's BGG
    # page, linked as such by several public game catalogues and rules references (found with
    # a code search for "boardgame/163068", 2026-12-02).
    "trickerion": 163068,
    # Penumbra: Trials of Arcana: not confirmed. Its tesera.ru page (tesera.ru/game/2364037)
    # shows a BGG rating but no id was found in any searched source, so none is guessed and
    # `bggId` is left out; BG Stats then matches the game by its name. Searched again on
    # 2026-12-02 (stored web pages, documentation and public code for "Penumbra: Trials of
    # Arcana" with BoardGameGeek): reviews and the tesera.ru page, none naming the BGG id.
}
"""BoardGameGeek ids (BG Stats matches a pushed game on `bggId` first); a game missing here
has no confirmed id and its play carries no `bggId`."""

SOURCE_NAME = "scoreledger"
BGSTATS_CREATE_PLAY = "https://app.bgstatsapp.com/createPlay.html"
REFEREE_TYPES = (ScoreCorrected.TYPE, EventVoided.TYPE)
"""A referee's later fixes: not part of the play's duration."""

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
"""Cell starts a spreadsheet would run as a formula (OWASP "CSV injection")."""

CSV_WORDS = {
    "en": {"date": "Date", "status": "Status", "winner": "Winner", "rank": "Place",
           "player_id": "Player id", "name": "Player", "total": "Total", "final": "final",
           "in_progress": "in progress", "yes": "yes", "no": "no"},
    "ru": {"date": "Дата", "status": "Статус", "winner": "Победитель", "rank": "Место",
           "player_id": "Код игрока", "name": "Игрок", "total": "Итого", "final": "завершена",
           "in_progress": "идёт", "yes": "да", "no": "нет"},
}  # fmt: skip


class NotAFinishedPlay(ValueError):
    """The game is still in progress: BG Stats would record it as a finished play."""


def spreadsheet_safe(text: str) -> str:
    """`text` with a leading `'` when a spreadsheet would read it as a formula (player names
    come from table integrations, so they are untrusted)."""
    return "'" + text if text.startswith(FORMULA_PREFIXES) else text


def _winners(result: Standings) -> set[str]:
    if result.winners:
        return set(result.winners)
    return {p.player_id for p in result.players if p.rank == 1}


def score_sheet_csv(
    result: Standings,
    events: Sequence[Envelope],
    lang: str = "en",
    tz: ZoneInfo | None = None,
    bom: bool = False,
) -> str:
    """The score sheet (see the module docstring). `lang` is `en` or `ru` (else English);
    `tz` the table's time zone for the date (UTC when None). Names are neutralised with
    `spreadsheet_safe`; numbers are written as numbers."""
    words = CSV_WORDS.get(lang, CSV_WORDS["en"])
    labels = category_labels(result)
    date = _local(events[0].occurred_at, tz).strftime("%Y-%m-%d %H:%M") if events else ""
    winners = _winners(result) if result.status == "final" else set()
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    head = ["date", "status", "winner", "rank", "player_id", "name"]
    writer.writerow(
        [
            *(words[k] for k in head),
            *(getattr(c, lang, c.en) or c.key for c in labels),
            words["total"],
        ]
    )
    for p in result.players:
        writer.writerow(
            [
                date,
                words[result.status],
                words["yes" if p.player_id in winners else "no"],
                p.rank,
                p.player_id,
                spreadsheet_safe(p.name),
                *(p.categories.get(c.key, 0) for c in labels),
                p.total,
            ]
        )
    return ("\ufeff" if bom else "") + out.getvalue()


def _local(moment: datetime, tz: ZoneInfo | None) -> datetime:
    return moment.astimezone(tz or ZoneInfo("UTC"))


def play_minutes(events: Sequence[Envelope]) -> int:
    """Minutes from the first event to `game.ended` (the last one, if a void reopened the game),
    or to the last event that is not a referee's correction or void while the game runs; so a
    correction made the next day does not lengthen the play."""
    first = events[0].occurred_at
    ends = [e for e in events if isinstance(e.payload, GameEnded)]
    played = [e for e in events if e.type not in REFEREE_TYPES]
    last = (ends or played or list(events))[-1].occurred_at
    return max(0, round((last - first).total_seconds() / 60))


def start_player(result: Standings, events: Sequence[Envelope]) -> str | None:
    """The first player in turn 1's initiative order; else the player with starting initiative
    1; else seat 1 (Trickerion: initiative decides who acts first, rules 'Initiative')."""
    for event in events:
        if isinstance(event.payload, TurnStarted) and event.payload.turn == 1:
            if event.payload.initiative_order:
                return event.payload.initiative_order[0]
            break
    players = getattr(events[0].payload, "players", ()) if events else ()
    for player in players:
        if player.initiative == 1:
            return str(player.player_id)
    return next((p.player_id for p in result.players if p.seat == 1), None)


MODULES = {
    "trickerion": {
        "dark_alley": "Dark Alley",
        "academy": "Dahlgaard's Academy",
        "dawn_of_technology": "Dawn of Technology",
        "magician_powers": "Magician Powers",
        "arcane_arts": "Arcane Arts",
    },
}
"""Game start options that are modules or expansions (the rest are rule readings), by game."""


def modules(game: str, events: Sequence[Envelope]) -> list[str]:
    """The names of the modules switched on at game start (`MODULES`), in that order."""
    options = getattr(events[0].payload, "options", None) if events else None
    if options is None:
        return []
    return [name for key, name in MODULES.get(game, {}).items() if getattr(options, key, False)]


def bgstats_play(
    result: Standings,
    events: Sequence[Envelope],
    tz: ZoneInfo | None = None,
    location: str | None = None,
    allow_in_progress: bool = False,
) -> dict[str, Any]:
    """The BG Stats play record of a game (see the module docstring for the fields).

    Raises:
        NotAFinishedPlay: the game is in progress and `allow_in_progress` is false. With it,
            the record is flagged: comments start "NOT FINISHED" and no one is the winner.
    """
    final = result.status == "final"
    if not final and not allow_in_progress:
        raise NotAFinishedPlay(f"game {result.game_id!r} is in progress: no finished play yet")
    winners = _winners(result) if final else set()
    first_player = start_player(result, events)
    title = getattr(events[0].payload, "title", None)
    used = modules(result.game, events)
    notes = [
        None if final else "NOT FINISHED: standings as of now, not a finished play",
        title,
        f"modules: {', '.join(used)}" if used else None,
        result.tie_break,
    ]
    return {
        "sourceName": SOURCE_NAME,
        "sourcePlayId": result.game_id,
        "playDate": _local(events[0].occurred_at, tz).strftime("%Y-%m-%d %H:%M:%S"),
        "durationMin": play_minutes(events),
        **({"location": location} if location else {}),
        "game": {
            "name": GAMES[result.game].title.en if result.game in GAMES else result.game,
            **({"bggId": BGG_IDS[result.game]} if result.game in BGG_IDS else {}),
            "sourceGameId": result.game,
            "highestWins": True,
            "noPoints": False,
        },
        "players": [
            {
                "name": p.name,
                "sourcePlayerId": p.player_id,
                "score": p.total,
                "rank": p.rank,
                "winner": p.player_id in winners,
                "startPlayer": p.player_id == first_player,
            }
            for p in result.players
        ],
        "comments": "; ".join(x for x in notes if x),
    }


def bgstats_link(play: dict[str, Any]) -> str:
    """The link that hands `play` to the BG Stats app (it shows its own import dialog)."""
    data = json.dumps(play, ensure_ascii=False, separators=(",", ":"))
    return f"{BGSTATS_CREATE_PLAY}?data={quote(data)}"
