"""Events common to every game: players, turns, corrections, voids, the game's end.

Source: docs/decisions/0001-events-are-immutable-facts.md ("at least: a game started ..., turn and initiative changes, a correction, a
void, the game ended"); docs/decisions/0001-events-are-immutable-facts.md (corrections are new events, never edits).
"""

from __future__ import annotations

from typing import ClassVar
from uuid import UUID

from pydantic import Field, model_validator

from contracts.envelope import NonEmptyText, Payload, PlayerId


class Player(Payload):
    """A seated player.

    `seat` is the 1-based seat at the table. `initiative` is the 1-based starting initiative
    position (1 acts first; Trickerion's tie-break uses it), or null for games without one.
    """

    player_id: PlayerId
    name: NonEmptyText
    seat: int = Field(ge=1, le=8, strict=True)
    initiative: int | None = Field(default=None, ge=1, le=8, strict=True)


class GameStartedBase(Payload):
    """Fields shared by every game's `*.game_started` event (each game adds typed options)."""

    players: tuple[Player, ...] = Field(min_length=1, max_length=6)
    title: str | None = Field(default=None, max_length=200)

    @model_validator(mode="after")
    def _unique_players(self) -> GameStartedBase:
        ids = [p.player_id for p in self.players]
        if len(set(ids)) != len(ids):
            raise ValueError("players: player_id values must be unique")
        seats = [p.seat for p in self.players]
        if len(set(seats)) != len(seats):
            raise ValueError("players: seat values must be unique")
        inits = [p.initiative for p in self.players if p.initiative is not None]
        if len(set(inits)) != len(inits):
            raise ValueError("players: initiative positions must be unique")
        return self


class TurnStarted(Payload):
    """A new turn (Trickerion) or round (Penumbra) begins.

    `initiative_order` lists every player id, first to act first; it sets the initiative
    positions 1..N for this turn (Trickerion: Advertise cost, end-game tie-break).
    """

    TYPE: ClassVar[str] = "game.turn_started"
    turn: int = Field(ge=1, le=99, strict=True)
    initiative_order: tuple[PlayerId, ...] | None = Field(default=None, max_length=8)


class InitiativeChanged(Payload):
    """The initiative order changes within a turn (e.g. a card moves a player on the track)."""

    TYPE: ClassVar[str] = "game.initiative_changed"
    initiative_order: tuple[PlayerId, ...] = Field(min_length=1, max_length=8)
    reason: NonEmptyText


class ScoreCorrected(Payload):
    """A referee's manual score adjustment: a new fact, never an edit of an old one.

    `amount` is in the game's score unit (Trickerion: Fame; Penumbra: VP) and lands in
    `category` of the breakdown (default `correction`). Schema v2; v1 had `points` and no
    `category` (upcast in `contracts.upcasting`).
    """

    TYPE: ClassVar[str] = "game.score_corrected"
    SCHEMA_VERSION: ClassVar[int] = 2
    player_id: PlayerId
    amount: int = Field(ge=-1000, le=1000, strict=True)
    category: str = Field(default="correction", pattern=r"^[a-z0-9_]{1,40}$")
    reason: NonEmptyText
    referee: NonEmptyText


class EventVoided(Payload):
    """An earlier event of the same game is declared void; standings are computed without it.

    Nothing is rewritten: the voided event stays in the log, marked. Rejected if the game
    would then be inconsistent (a later event depends on the voided one). Voiding the
    `game.ended` event turns a final game back to in progress, so the referee must say so:
    `reopens_game: true` (rule `void.game_ended_needs_reopen`); the flag on a void of any
    other event is refused (`void.reopen_not_game_ended`). Optional with default false, so
    stored v1 voids parse unchanged (docs/decisions/0008-upcast-on-read.md).
    """

    TYPE: ClassVar[str] = "game.event_voided"
    voided_event_id: UUID
    reason: NonEmptyText
    referee: NonEmptyText
    reopens_game: bool = Field(default=False, strict=True)


class GameEnded(Payload):
    """The game is over: end-game scoring runs and the standings become final."""

    TYPE: ClassVar[str] = "game.ended"
    reason: str | None = Field(default=None, max_length=200)


COMMON_PAYLOADS: tuple[type[Payload], ...] = (
    TurnStarted,
    InitiativeChanged,
    ScoreCorrected,
    EventVoided,
    GameEnded,
)
