"""The frame of a tournament's live stream, `GET /tournaments/{tournament_id}/live`: event
`tournament`, SSE `id` = the tournament's seq (its number of events), `data` a
`TournamentFrame`, the whole state each time (a client that missed frames loses nothing).
Resume: send the last `id` back as `Last-Event-ID`; at the current seq nothing comes until the
next change, else the current state at once (docs/integrating/live.md). Published in
`contracts/openapi.json` through `contracts.frames.SSE_EVENTS`; checked against frames a
running service sends (`tests/web/test_frames.py`).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema

from contracts.tournament import ResultLine


class _Frame(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


Settings = Annotated[
    dict[str, Any],
    WithJsonSchema(
        {
            "type": "object",
            "description": "the `tournament.created` payload (contracts/schemas/tournament.created.json)",
        }
    ),
]
"""The tournament's settings: the payload of its `tournament.created` event."""


class Winner(_Frame):
    """First place of a finished tournament."""

    player_id: str
    name: str
    points: float


class TournamentPlayer(_Frame):
    """A registered player (`seed` null: unseeded; `dropped_after` null: still playing)."""

    player_id: str
    name: str
    seed: int | None
    from_round: int
    dropped_after: int | None
    checked_in: bool


class RoundTimer(_Frame):
    """A round's clock (ISO 8601 UTC)."""

    started_at: str
    minutes: int
    ends_at: str


class TableAct(_Frame):
    """One act on a table: a report, ruling, approval or dispute."""

    seq: int
    kind: Literal["reported", "ruled", "approved", "disputed"]
    by: str
    results: list[ResultLine] | None
    reason: str | None


class TableView(_Frame):
    """A table of a round, players in seat order."""

    table: int
    players: list[str]
    reason: str
    game_id: str | None
    status: Literal["seated", "reported", "disputed", "approved"]
    reported: list[ResultLine] | None
    approved: list[ResultLine] | None
    confirmed: list[str]
    disputes: list[str]
    history: list[TableAct]


class RoundView(_Frame):
    """A seated round (`timer` null: not started)."""

    round: int
    closed: bool
    timer: RoundTimer | None
    byes: list[str]
    reason: str
    tables: list[TableView]


class TournamentView(_Frame):
    """The body of `GET /tournaments/{tournament_id}`."""

    tournament_id: str
    seq: int = Field(ge=0)
    status: Literal["upcoming", "live", "finished"]
    winner: Winner | None
    settings: Settings
    check_in: bool
    players: list[TournamentPlayer]
    rounds: list[RoundView]


class LeanLine(_Frame):
    """A standings line, each figure its value (sources: `GET .../standings`)."""

    place: int
    player_id: str
    name: str
    seed: int
    points: float
    games: int
    byes: int
    tie_breaks: dict[str, float]
    decided_by: str | None
    dropped: bool
    explain: str


class HeldTable(_Frame):
    """A table held out of the standings."""

    round: int
    table: int
    status: str


class LeanStandings(_Frame):
    """The standings after `seq`, each figure its value only."""

    tournament_id: str
    seq: int = Field(ge=0)
    rounds_seated: int
    players: list[LeanLine]
    held: list[HeldTable]


class TournamentFrame(_Frame):
    """A frame of `GET /tournaments/{tournament_id}/live` (event `tournament`)."""

    seq: int = Field(ge=0)
    tournament: TournamentView
    standings: LeanStandings
