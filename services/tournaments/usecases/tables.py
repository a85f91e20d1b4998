"""Tables are scoreledger games: the tournament creates one game per seated table and brings
each table's result in line with its game's log.

- `open_round`: after a round is seated (each table's `game_id` from
  `keys.table_game_id`), create every table's game through the same `Record` use
  case as `POST /games/{id}/events`: a `<game>.game_started` with the table's players in seat
  order (seat k starts at initiative position k), a deterministic event id (a retry is a
  duplicate, not a second game) and the table's write token (`keys.table_token`),
  which the organiser hands to the table.
- `sync_table`: read the table's game and call `Tournaments.result_from_game` (report, approve
  a referee's later void or correction, or hold the table out when the game was reopened).
- `game_changed`: the hook the game doors call after a game's end, void or correction: finds
  the tournament from the game's first event (`actor` = `tournament <id>`), checks the
  tournament's own record names this game for a table, and syncs that table; then approves
  what is due. A game nobody seated is ignored.
"""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import asdict, dataclass

import structlog

from domain.errors import RuleViolation
from domain.tournament.state import TableState, TournamentState
from services.ports.eventlog import EventLog
from services.tournaments.ports.log import TournamentLog
from services.tournaments.usecases.keys import table_token
from services.tournaments.usecases.stream import Tournaments, UnknownTournament, table_of
from services.usecases.authorize import WriteProof
from services.usecases.record import Record
from services.usecases.refusal import Refusal

ACTOR_PREFIX = "tournament "
"""The actor of a table game's first event: `tournament <tournament id>`."""

SYNC_TYPES = frozenset({"game.ended", "game.event_voided", "game.score_corrected"})
"""Game event types after which a tournament table's result may have changed."""

_TABLE_GAME = re.compile(r"\.r\d+t\d+\.[0-9a-f]{8}$")
"""A tournament table's game id (`keys.table_game_id`): only these are followed."""

log = structlog.get_logger("tournaments")


def may_move_a_table(game_id: str, body: bytes | None) -> bool:
    """Cheap filter before `game_changed` reads anything: a table game's id and a written body
    naming an end, a void or a correction (a false positive only costs an idempotent sync)."""
    return (
        body is not None
        and bool(_TABLE_GAME.search(game_id))
        and any(t.encode() in body for t in SYNC_TYPES)
    )


@dataclass(frozen=True, slots=True)
class OpenedTable:
    """A table's game: its id, its write token (for the table), and `created` (False: it
    existed from an earlier call, or `refused` names why it could not be created)."""

    round: int
    table: int
    game_id: str
    token: str
    created: bool
    refused: str | None = None

    def to_dict(self) -> dict[str, object]:
        """JSON-ready."""
        return asdict(self)


def _start_body(state: TournamentState, table: TableState) -> bytes:
    game_id = table.game_id
    assert game_id is not None
    players = [
        {
            "player_id": pid,
            "name": state.players[pid].name,
            "seat": seat,
            "initiative": seat,
        }
        for seat, pid in enumerate(table.players, start=1)
    ]
    title = f"{state.settings.title} - round {table.round}, table {table.number}"
    event = {
        "event_id": str(uuid.uuid5(uuid.NAMESPACE_URL, f"scoreledger:{game_id}:started")),
        "game_id": game_id,
        "seq": 1,
        "type": f"{state.settings.game}.game_started",
        "schema_version": 1,
        "occurred_at": _seated_at(state, table.round),
        "actor": f"{ACTOR_PREFIX}{state.tournament_id}",
        "payload": {"players": players, "title": title[:200]},
    }
    return json.dumps(event).encode()


def _seated_at(state: TournamentState, round_number: int) -> str:
    """When the table's game starts: when its round was seated (the same on every retry, so
    a retried creation is the same event)."""
    seated = state.rounds[round_number - 1].seated_at
    return seated.isoformat() if seated is not None else "2000-01-01T00:00:00+00:00"


class TableGames:
    """The tables' games of tournaments: create them, read them, follow them."""

    def __init__(self, tournaments: Tournaments, games: Record, game_log: EventLog) -> None:
        self.tournaments = tournaments
        self.games = games
        self.game_log = game_log

    @property
    def log(self) -> TournamentLog:
        """The tournament log."""
        return self.tournaments.log

    async def open_round(
        self, tournament_id: str, digest: str, round_number: int | None = None
    ) -> list[OpenedTable]:
        """Create the game of every table of `round_number` (None: the last seated round)
        that names one; idempotent (a second call finds them created).

        Raises:
            UnknownTournament: no such tournament.
        """
        state = await self.tournaments.state(tournament_id)
        if not state.rounds:
            return []
        rnd = state.rounds[(round_number or len(state.rounds)) - 1]
        opened = []
        for table in rnd.tables.values():
            if table.game_id is None:
                continue
            token = table_token(digest, table.game_id)
            body = _start_body(state, table)

            async def source(body: bytes = body) -> bytes:
                return body

            try:
                recorded = await self.games.record(table.game_id, WriteProof(token), source)
            except Refusal as refusal:
                opened.append(
                    OpenedTable(rnd.number, table.number, table.game_id, token, False, refusal.rule)
                )
                continue
            created = any(e.seq == 1 and not e.duplicate for e in recorded.result.events)
            opened.append(OpenedTable(rnd.number, table.number, table.game_id, token, created))
        return opened

    async def sync_table(
        self, tournament_id: str, round_number: int, table: int, credential: str
    ) -> str:
        """Bring the table's result in line with its game (`Tournaments.result_from_game`'s
        answer: `reported`, `approved`, `held`, `unchanged`, `waiting`).

        Raises:
            UnknownTournament; RuleViolation (`tournament.no_game`: the table has no game
            or its game has no events yet; and `result_from_game`'s).
        """
        state = await self.tournaments.state(tournament_id)
        game_id = table_of(state, round_number, table).game_id
        events = await self.game_log.read(game_id) if game_id is not None else []
        if not events:
            raise RuleViolation(
                "tournament.no_game",
                f"round {round_number} table {table} has no game with events to read",
                "table",
            )
        return await self.tournaments.result_from_game(
            tournament_id, round_number, table, events, credential
        )

    def wants(self, game_id: str, body: bytes | None) -> bool:
        """`may_move_a_table` (`services.usecases.record.AfterGameWrite`)."""
        return may_move_a_table(game_id, body)

    async def after_write(self, game_id: str, body: bytes | None) -> str | None:
        """What both game doors call after a write to `game_id` was recorded (`body`: what was
        written): when it may move a tournament table (`may_move_a_table`), `game_changed`.
        Never raises: the game's write stood; a failed sync is logged and the organiser can
        sync by hand (`POST .../result-from-game`)."""
        if not may_move_a_table(game_id, body):
            return None
        try:
            outcome = await self.game_changed(game_id)
        except Exception as error:
            log.warning("tournament.table_sync_failed", game_id=game_id, error=repr(error))
            return None
        if outcome is not None:
            log.info("tournament.table_synced", game_id=game_id, outcome=outcome)
        return outcome

    async def game_changed(self, game_id: str) -> str | None:
        """Sync the tournament table `game_id` plays, if any (then approve what is due);
        None when the game is no tournament's table. Never raises for a game that is not
        (or no longer) a table's."""
        first = await self.game_log.read(game_id, 1, 1)
        if not first or not first[0].actor.startswith(ACTOR_PREFIX):
            return None
        tournament_id = first[0].actor.removeprefix(ACTOR_PREFIX)
        credential = await self.log.digest(tournament_id)
        if credential is None:
            return None
        try:
            state = await self.tournaments.state(tournament_id)
        except UnknownTournament:
            return None
        place = _table_of_game(state, game_id)
        if place is None:
            return None
        outcome = await self.sync_table(tournament_id, *place, credential)
        await self.tournaments.approve_due(tournament_id, credential)
        return outcome


def _table_of_game(state: TournamentState, game_id: str) -> tuple[int, int] | None:
    for rnd in state.rounds:
        for table in rnd.tables.values():
            if table.game_id == game_id:
                return rnd.number, table.number
    return None
