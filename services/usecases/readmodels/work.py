"""The replays a worker process runs (`offloop.Replays`): module-level functions of a game's
events (seq order) and picklable arguments, returning picklable results. Pure, no I/O.
The O(n)-sized answers (series, timeline) come back as JSON bytes, serialized here.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from contracts.envelope import Envelope
from domain.fold import GameState, fold
from domain.standings import standings
from services.usecases.readmodels import replay
from services.usecases.readmodels.errors import NotFound
from services.usecases.readmodels.exports import bgstats_link, bgstats_play, score_sheet_csv
from services.usecases.readmodels.render import view
from services.usecases.readmodels.shapes import EventsPage, LedgerResponse, StandingsResponse
from services.usecases.readmodels.views import (
    audit_events,
    ledger_view,
    voids_by_target,
)


def json_bytes(value: Any) -> bytes:
    """`value` as JSON the way FastAPI's `JSONResponse` renders it (UTF-8, compact), for a
    worker to serialize a long answer off the loop."""
    return json.dumps(
        value, ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":")
    ).encode("utf-8")


def standings_replay(events: Sequence[Envelope]) -> StandingsResponse:
    """The standings after `events` (source `replay`)."""
    return standings_of(fold(events))


def standings_of(state: GameState) -> StandingsResponse:
    """The standings of a folded game (source `replay`)."""
    return view(standings(state), "replay")


def series_json(events: Sequence[Envelope]) -> bytes:
    """`replay.series` as JSON."""
    return json_bytes(replay.series(events))


def timeline_json(events: Sequence[Envelope]) -> bytes:
    """`replay.timeline` as JSON."""
    return json_bytes(replay.timeline(events))


def dispute(events: Sequence[Envelope], event_id: str, now: datetime) -> dict[str, Any]:
    """`replay.compare_without` (raises `LookupError` for an event not in the log)."""
    return replay.compare_without(events, event_id, now)


def dispute_of(state: GameState, event_id: str, now: datetime) -> dict[str, Any]:
    """`replay.compare_state` (raises `LookupError` for an event not in the game)."""
    return replay.compare_state(state, event_id, now)


def events_page(
    events: Sequence[Envelope], game_id: str, version: int, from_seq: int, limit: int
) -> EventsPage:
    """The audit log page from `from_seq`, `limit` events; voids found anywhere in `events`."""
    page = [e for e in events if from_seq <= e.seq < from_seq + limit]
    return events_page_of(page, voids_by_target(events), game_id, version, from_seq, limit)


def events_page_of(
    page: Sequence[Envelope],
    voids: dict[str, int],
    game_id: str,
    version: int,
    from_seq: int,
    limit: int,
) -> EventsPage:
    """The audit log page of `page` (the events from `from_seq`, at most `limit`), each marked
    voided by `voids` (voided event id -> the void's seq, of the whole log at `version`)."""
    last = from_seq + limit - 1
    return EventsPage(
        game_id=game_id,
        version=version,
        from_seq=from_seq,
        limit=limit,
        next_from_seq=last + 1 if last < version else None,
        events=audit_events(page, voids),
    )


def ledger(events: Sequence[Envelope], player_id: str) -> LedgerResponse:
    """The player's ledger after `events`.

    Raises:
        NotFound: `player_not_found`.
    """
    return ledger_of(fold(events), player_id)


def ledger_of(state: GameState, player_id: str) -> LedgerResponse:
    """The player's ledger in a folded game.

    Raises:
        NotFound: `player_not_found`.
    """
    if player_id not in {p.player_id for p in state.players}:
        raise NotFound(
            "player_not_found",
            f"no player {player_id!r} in game {state.game_id!r}",
            "player_id",
        )
    return ledger_view(state, player_id)


def score_sheet(events: Sequence[Envelope], lang: str, tz: ZoneInfo, bom: bool) -> str:
    """`exports.score_sheet_csv` of the folded log."""
    return score_sheet_csv(standings(fold(events)), events, lang, tz, bom)


def bgstats(
    events: Sequence[Envelope], tz: ZoneInfo, location: str | None, in_progress: bool
) -> dict[str, Any]:
    """The BG Stats play, its link and whether the game ended (raises `NotAFinishedPlay`)."""
    result = standings(fold(events))
    play = bgstats_play(result, events, tz, location, in_progress)
    return {"play": play, "link": bgstats_link(play), "final": result.status == "final"}
