"""League events: a league is an event stream of its own, in the tournament events' envelope
style (`league_id` names the stream), appended with expected version and idempotent event ids
and folded by the pure `domain.league` package.

A league adds tournaments and single games. Each addition carries the results it adds, read
when it was added (a tournament's standings points and its approved tables; a game's final
places and scores), so a replay of the league gives the same standings and ratings whatever
happened to the sources since. Adding the same tournament or game again replaces its earlier
results in place (a referee's later void or correction is taken over by a new event, never an
edit). Types: `league.created`, `league.tournament_added`, `league.game_added`.
Source: issue brief (leagues: best N or all, a multiplayer rating per game, replayable).
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    model_validator,
)

from contracts.envelope import (
    GameId,
    NonEmptyText,
    Payload,
    PlayerId,
    StreamBody,
    StreamHead,
    stream_events,
)
from contracts.tournament import Points, ResultLine, TournamentId

LeagueId = TournamentId
"""A league id: 1-64 characters, letters, digits, `_ . -`."""


class LeagueCreated(Payload):
    """A league is set up (the stream's first event).

    `game`: the game its ratings are of (every added tournament and game must be of it).
    `count`: `all` (every addition counts) or `best` (a player's `best` highest additions).
    `points_4`: league points for a single game's places at a 4-player table (3 and 5 players
    scaled as in tournaments, `domain.tournament.points`); a tournament adds each player's
    tournament points.
    """

    TYPE: ClassVar[str] = "league.created"
    title: NonEmptyText
    game: str = Field(pattern=r"^[a-z][a-z0-9_]{0,31}$")
    count: Literal["all", "best"] = "all"
    best: int | None = Field(default=None, ge=1, le=100, strict=True)
    points_4: tuple[Points, Points, Points, Points] = (7, 5, 3, 1)

    @model_validator(mode="after")
    def _best_given(self) -> LeagueCreated:
        if (self.count == "best") != (self.best is not None):
            raise ValueError("best: give it exactly when count is 'best'")
        return self


class LeaguePlayer(BaseModel):
    """A player as an addition names them."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    player_id: PlayerId
    name: NonEmptyText


class TournamentPoints(BaseModel):
    """A player's tournament points (placement points or game score summed; fractions as
    decimals with at most 4 places)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    player_id: PlayerId
    points: float = Field(ge=-1_000_000, le=1_000_000)


class LeagueTable(BaseModel):
    """One game of a tournament (an approved table) as the ratings see it."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    round: int = Field(ge=1, le=50, strict=True)
    table: int = Field(ge=1, le=500, strict=True)
    game_id: GameId | None = None
    results: tuple[ResultLine, ...] = Field(min_length=2, max_length=5)


class TournamentAdded(Payload):
    """A tournament is added (or added again: replaces its earlier results): its standings
    points per player and its approved tables in round and table order, as of its `at_seq`."""

    TYPE: ClassVar[str] = "league.tournament_added"
    tournament_id: TournamentId
    title: NonEmptyText
    at_seq: int = Field(ge=1, strict=True)
    players: tuple[LeaguePlayer, ...] = Field(min_length=1, max_length=1000)
    points: tuple[TournamentPoints, ...] = Field(max_length=1000)
    tables: tuple[LeagueTable, ...] = Field(max_length=5000)


class GameAdded(Payload):
    """A single game is added (or added again): its final places (tie-break included) and
    scores, as of its `at_seq`."""

    TYPE: ClassVar[str] = "league.game_added"
    game_id: GameId
    at_seq: int = Field(ge=1, strict=True)
    players: tuple[LeaguePlayer, ...] = Field(min_length=2, max_length=5)
    results: tuple[ResultLine, ...] = Field(min_length=2, max_length=5)


LEAGUE_PAYLOADS: tuple[type[Payload], ...] = (LeagueCreated, TournamentAdded, GameAdded)


class LeagueStream(StreamHead):
    """A league's stream: named by `league_id`."""

    STREAM_FIELD: ClassVar[str] = "league_id"
    league_id: LeagueId


class LeagueEnvelope(StreamBody, LeagueStream):
    """The metadata of a league event: as `contracts.tournament.TournamentEnvelope`, with
    `league_id` naming the stream."""


LEAGUE_EVENTS = stream_events(LeagueEnvelope, LEAGUE_PAYLOADS)
"""The league events: envelope models per type, their tagged union, the validator."""
LEAGUE_ENVELOPES = LEAGUE_EVENTS.envelopes
AnyLeagueEvent: Any = LEAGUE_EVENTS.union
LEAGUE_EVENT_ADAPTER = LEAGUE_EVENTS.adapter
parse_league_event = LEAGUE_EVENTS.parse
parse_league_event_json = LEAGUE_EVENTS.parse_json
