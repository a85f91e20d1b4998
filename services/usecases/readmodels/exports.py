"""Exports of a game: the score sheet as CSV, a BG Stats play record, the event log as JSONL.

Pure functions (no I/O); the routes in `services.web.routes` serve them.

* Score sheet CSV (`score_sheet_csv`): one row per player in rank order; columns `rank`,
  `player_id`, `name`, one column per breakdown category (header = the category key), `total`.
  Points in the game's score unit (Fame for Trickerion, VP for Penumbra). A shared place
  repeats the rank (competition ranking, 1-1-3).
* BG Stats play (`bgstats_play`): the JSON that BG Stats' "push plays" import reads, handed to
  the app as `https://app.bgstatsapp.com/createPlay.html?data=<url-encoded JSON>`
  (`bgstats_link`): `sourceName`, `sourcePlayId`, `playDate` (`YYYY-MM-DD HH:MM:SS`, UTC),
  `durationMin`, `game` {`name`, `sourceGameId`, `highestWins`, `noPoints`}, `players`
  [{`name`, `sourcePlayerId`, `score`, `winner`, `startPlayer`}], `comments`.
  Source: bgstatsapp.com "Push plays to BG Stats from other apps or websites" (the format as
  used by several open-source apps); research/anchors.md §2.1.
* JSONL log: `RedisEventLog.export_jsonl` (the stored envelopes byte for byte, the format
  `scoreledger score` / `publish` read).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from datetime import UTC
from typing import Any
from urllib.parse import quote

from contracts.envelope import Envelope
from domain.standings import Standings
from services.usecases.readmodels.labels import category_labels

GAME_NAMES = {
    "trickerion": "Trickerion: Legends of Illusion",
    "penumbra": "Penumbra: Trials of Arcana",
}
"""Display names of the games, as BG Stats users know them."""

SOURCE_NAME = "scoreledger"
BGSTATS_CREATE_PLAY = "https://app.bgstatsapp.com/createPlay.html"


FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
"""Cell starts a spreadsheet would run as a formula (OWASP "CSV injection")."""


def spreadsheet_safe(text: str) -> str:
    """`text` with a leading `'` when a spreadsheet would read it as a formula (player names
    come from table integrations, so they are untrusted)."""
    return "'" + text if text.startswith(FORMULA_PREFIXES) else text


def score_sheet_csv(result: Standings) -> str:
    """The score sheet: a header row, then one row per player (rank order). See module doc.

    Names are neutralised with `spreadsheet_safe`; numbers are written as numbers."""
    labels = category_labels(result)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["rank", "player_id", "name", *(c.key for c in labels), "total"])
    for p in result.players:
        writer.writerow(
            [
                p.rank,
                p.player_id,
                spreadsheet_safe(p.name),
                *(p.categories.get(c.key, 0) for c in labels),
                p.total,
            ]
        )
    return out.getvalue()


def bgstats_play(result: Standings, events: Sequence[Envelope]) -> dict[str, Any]:
    """The BG Stats play record of a game (see the module docstring for the fields).

    `winner` marks every player in first place after the tie-break (`Standings.winners`; during
    play, the current leaders by rank). `startPlayer` is the player in seat 1. `playDate` is the
    first event's `occurred_at` (UTC) and `durationMin` the minutes to the last event.
    """
    first, last = events[0].occurred_at, events[-1].occurred_at
    winners = (
        set(result.winners)
        if result.winners
        else {p.player_id for p in result.players if p.rank == 1}
    )
    title = getattr(events[0].payload, "title", None)
    return {
        "sourceName": SOURCE_NAME,
        "sourcePlayId": result.game_id,
        "playDate": first.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S"),
        "durationMin": max(0, round((last - first).total_seconds() / 60)),
        "game": {
            "name": GAME_NAMES.get(result.game, result.game),
            "sourceGameId": result.game,
            "highestWins": True,
            "noPoints": False,
        },
        "players": [
            {
                "name": p.name,
                "sourcePlayerId": p.player_id,
                "score": p.total,
                "winner": p.player_id in winners,
                "startPlayer": p.seat == 1,
            }
            for p in result.players
        ],
        "comments": "; ".join(
            x
            for x in (
                title,
                "final" if result.status == "final" else "in progress (not final)",
                result.tie_break,
            )
            if x
        ),
    }


def bgstats_link(play: dict[str, Any]) -> str:
    """The link that hands `play` to the BG Stats app (it shows its own import dialog)."""
    data = json.dumps(play, ensure_ascii=False, separators=(",", ":"))
    return f"{BGSTATS_CREATE_PLAY}?data={quote(data)}"
