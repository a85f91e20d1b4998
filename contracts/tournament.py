"""Tournament events: a tournament is an event stream of its own, in the game events' envelope
style (`tournament_id` in place of `game_id`), appended with expected version and idempotent
event ids and folded by the pure `domain.tournament` package.

Wire shape (one JSON object per event)::

    {"event_id": "<uuid>", "tournament_id": "con-2026", "seq": 1, "type": "tournament.created",
     "schema_version": 1, "occurred_at": "2026-11-30T10:00:00Z", "recorded_at": null,
     "actor": "organiser", "correlation_id": null, "causation_id": null, "payload": {...}}

Types: `tournament.created`, `tournament.player_registered`, `tournament.player_joined_late`,
`tournament.player_dropped`, `tournament.round_seated`, `tournament.table_result_reported`,
`tournament.table_result_confirmed`, `tournament.table_result_disputed`,
`tournament.table_result_approved`, `tournament.round_closed`, `tournament.judge_appointed`,
`tournament.judge_dismissed`, `tournament.player_checked_in`, `tournament.round_timer_started`.
Source: docs/rules/tournaments.md#points (Match Play Events: placement points,
results suggested by players and approved by the organiser; BGA's standings columns).
"""

from __future__ import annotations

from itertools import pairwise
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    field_validator,
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

TournamentId = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")]
"""A tournament id: 1-64 characters, letters, digits, `_ . -` (it becomes part of keys)."""

TieBreak = Literal[
    "opponents_points",
    "opponents_average",
    "buchholz",
    "median_buchholz",
    "score_difference",
    "head_to_head",
]
"""A tie-break after points (`domain.tournament.standings` defines each); the seed always
decides last."""

DEFAULT_TIE_BREAKS: tuple[TieBreak, ...] = (
    "opponents_points",
    "opponents_average",
    "buchholz",
    "median_buchholz",
    "score_difference",
    "head_to_head",
)

Points = Annotated[int, Field(ge=0, le=1000, strict=True)]
Round = Annotated[int, Field(ge=1, le=50, strict=True)]
TableNumber = Annotated[int, Field(ge=1, le=500, strict=True)]


_DESCENDING = (
    "Refused (422, rule tournament.points_order named in the message) when a later place earns "
    "more than an earlier one; equal points for neighbouring places are accepted."
)


def _descending(points: tuple[int, ...] | None) -> tuple[int, ...] | None:
    if points is not None and any(a < b for a, b in pairwise(points)):
        raise ValueError("tournament.points_order: placement points must not grow with the place")
    return points


class TournamentCreated(Payload):
    """A tournament is set up (the stream's first event).

    `scoring`: `placement` (points by place at the table) or `game_score` (the game's own
    score, Fame or VP, summed). `points_4`: placement points at a 4-player table (default
    7/5/3/1); `points_3` / `points_5`: at 3- and 5-player tables (default: scaled from
    `points_4`, see `domain.tournament.points`). `bye_points`: what a bye earns.
    `tie_breaks`: applied in order after points; the effective seed decides last. Seating: `pairing`,
    `first_round`, `remainder` (see `domain.tournament.seating`), `seating_seed`.
    `auto_approve_after_s`: a reported table result is approved after this many seconds
    without a dispute (None: a judge approves every table).
    """

    TYPE: ClassVar[str] = "tournament.created"
    title: NonEmptyText
    game: str = Field(pattern=r"^[a-z][a-z0-9_]{0,31}$")
    rounds: Round
    scoring: Literal["placement", "game_score"] = "placement"
    points_4: tuple[Points, Points, Points, Points] = Field(
        default=(7, 5, 3, 1),
        description="Placement points at a 4-player table, 1st place first. " + _DESCENDING,
    )
    points_3: tuple[Points, Points, Points] | None = Field(
        default=None,
        description="Placement points at a 3-player table (None: scaled from points_4). "
        + _DESCENDING,
    )
    points_5: tuple[Points, Points, Points, Points, Points] | None = Field(
        default=None,
        description="Placement points at a 5-player table (None: scaled from points_4). "
        + _DESCENDING,
    )
    bye_points: Points = Field(
        default=4,
        description="What a bye earns with placement scoring (nothing with game_score). A "
        "bye's points count once every table of its round has an approved result, and for "
        "good once the round closed.",
    )
    tie_breaks: tuple[TieBreak, ...] = Field(
        default=DEFAULT_TIE_BREAKS,
        max_length=6,
        json_schema_extra={"uniqueItems": True},
        description="Tie-breaks applied in this order after points; the effective seed "
        "decides last. Each at most once: a tie-break listed twice is refused (422, rule "
        "tournament.tie_break_twice named in the message). An empty list is accepted: "
        "points, then the effective seed.",
    )
    pairing: Literal["swiss", "balanced"] = "swiss"
    first_round: Literal["random", "seeded"] = "random"
    remainder: Literal["threes", "fives", "byes"] = Field(
        default="threes",
        description="What absorbs a 4k+1 head count: threes (three 3-player tables), fives "
        "(one 5-player table) or byes (one bye). The bye goes to the player with the fewest "
        "byes so far, then the fewest points, then the largest effective seed number (the "
        "tie-breaks are not consulted), then the larger player id.",
    )
    seating_seed: int = Field(default=0, ge=0, le=2**63 - 1, strict=True)
    auto_approve_after_s: int | None = Field(default=None, ge=0, le=7 * 86400, strict=True)

    @field_validator("tie_breaks")
    @classmethod
    def _once(cls, tie_breaks: tuple[TieBreak, ...]) -> tuple[TieBreak, ...]:
        if len(set(tie_breaks)) != len(tie_breaks):
            raise ValueError("tournament.tie_break_twice: each tie-break at most once")
        return tie_breaks

    @field_validator("points_4", "points_3", "points_5")
    @classmethod
    def _placement_order(cls, points: tuple[int, ...] | None) -> tuple[int, ...] | None:
        return _descending(points)


class JudgeAppointed(Payload):
    """The organiser appoints a judge. The judge's token is not in the stream: it is derived
    from the organiser token's stored digest and `judge_id` (`services.tournaments.usecases.keys`)
    and handed to the judge once. While a tournament has a judge, only a judge approves or
    disputes table results."""

    TYPE: ClassVar[str] = "tournament.judge_appointed"
    judge_id: PlayerId
    name: NonEmptyText


class JudgeDismissed(Payload):
    """The organiser dismisses a judge: their token stops working."""

    TYPE: ClassVar[str] = "tournament.judge_dismissed"
    judge_id: PlayerId


class PlayerRegistered(Payload):
    """A player registers before round 1 is seated. `seed`: 1 = top (None: registration order).

    The effective seed (seeded first round, the last tie-break, who gets a bye): players with
    a seed first, by seed ascending, then the unseeded in registration order, then late
    joiners in join order; numbered 1, 2, 3, ... Duplicate seeds are accepted: players sharing
    a seed rank in registration order."""

    TYPE: ClassVar[str] = "tournament.player_registered"
    player_id: PlayerId
    name: NonEmptyText
    seed: int | None = Field(
        default=None,
        ge=1,
        le=10_000,
        strict=True,
        description="1 = top; None: unseeded (ranked after every seeded player, in "
        "registration order). A seed another player holds is accepted: the earlier "
        "registration ranks first.",
    )


class PlayerJoinedLate(Payload):
    """A player joins after round 1 was seated; they are seated from the next round and score
    nothing for the rounds they missed. A late joiner has no seed: their effective seed comes
    after every registered player's, in join order (a `seed` sent with a late join is refused,
    rule `tournament.late_seed`)."""

    TYPE: ClassVar[str] = "tournament.player_joined_late"
    player_id: PlayerId
    name: NonEmptyText


class PlayerDropped(Payload):
    """A player leaves: never seated again; their results so far stay (opponents keep them)."""

    TYPE: ClassVar[str] = "tournament.player_dropped"
    player_id: PlayerId
    reason: NonEmptyText


class PlayerCheckedIn(Payload):
    """The player is at the venue (the desk's check-in). Once any player is checked in, a
    round seats only checked-in players (and late joiners, who join at the desk); a player
    is checked in once, never after dropping. Source: docs/rules/tournaments.md#check-in."""

    TYPE: ClassVar[str] = "tournament.player_checked_in"
    player_id: PlayerId


class RoundTimerStarted(Payload):
    """The organiser starts the open round's clock: it runs out `minutes` after this event's
    `occurred_at` (started again: restarted from then). Source: docs/rules/tournaments.md#round-timer."""

    TYPE: ClassVar[str] = "tournament.round_timer_started"
    round: Round
    minutes: int = Field(ge=1, le=600, strict=True)


class SeatedTablePayload(BaseModel):
    """One table of a seated round: its number, players in seat order (seat 1 first), why,
    and the scoreledger game that plays it (None: results are reported by hand)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    number: TableNumber
    players: tuple[PlayerId, ...] = Field(min_length=3, max_length=5)
    reason: str = Field(max_length=2000)
    game_id: GameId | None = None


class RoundSeated(Payload):
    """A round is seated: every active player at exactly one table or given a bye."""

    TYPE: ClassVar[str] = "tournament.round_seated"
    round: Round
    tables: tuple[SeatedTablePayload, ...] = Field(min_length=1, max_length=500)
    byes: tuple[PlayerId, ...] = Field(default=(), max_length=10)
    reason: str = Field(max_length=2000)


class ResultLine(BaseModel):
    """One player's result at a table: place (1 = best; tied players share a place) and the
    game score (Fame or VP)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    player_id: PlayerId
    place: int = Field(ge=1, le=5, strict=True)
    score: int = Field(ge=-1000, le=100_000, strict=True)


class TableResultReported(Payload):
    """A table's result is reported (by a player, the table's game, or a judge); it counts once
    approved. A new report before approval replaces the earlier one; once a judge ruled on the
    table (an approval with `results`) no report is taken (rule `tournament.ruling_stands`)."""

    TYPE: ClassVar[str] = "tournament.table_result_reported"
    round: Round
    table: TableNumber
    results: tuple[ResultLine, ...] = Field(min_length=3, max_length=5)
    reported_by: NonEmptyText


class TableResultConfirmed(Payload):
    """A tablemate confirms the reported result."""

    TYPE: ClassVar[str] = "tournament.table_result_confirmed"
    round: Round
    table: TableNumber
    player_id: PlayerId


class TableResultDisputed(Payload):
    """A tablemate (or a judge) disputes the table's result: the table is held out of the
    standings until a judge approves a result."""

    TYPE: ClassVar[str] = "tournament.table_result_disputed"
    round: Round
    table: TableNumber
    by: NonEmptyText
    reason: NonEmptyText


class TableResultApproved(Payload):
    """A judge approves the table's result (or it was auto-approved, `judge: "auto"`):
    `results` given here replace the reported ones for good (the judge's ruling on a dispute).
    Without `results` the approval confirms the table's latest ruling, or the report when no
    ruling was given: a dispute and a plain approval after a ruling leave the ruling in force."""

    TYPE: ClassVar[str] = "tournament.table_result_approved"
    round: Round
    table: TableNumber
    judge: NonEmptyText
    results: tuple[ResultLine, ...] | None = Field(default=None, min_length=3, max_length=5)


class RoundClosed(Payload):
    """Every table of the round has an approved result; the next round may be seated."""

    TYPE: ClassVar[str] = "tournament.round_closed"
    round: Round


TOURNAMENT_PAYLOADS: tuple[type[Payload], ...] = (
    TournamentCreated,
    PlayerRegistered,
    PlayerJoinedLate,
    PlayerDropped,
    RoundSeated,
    TableResultReported,
    TableResultConfirmed,
    TableResultDisputed,
    TableResultApproved,
    RoundClosed,
    JudgeAppointed,
    JudgeDismissed,
    PlayerCheckedIn,
    RoundTimerStarted,
)


class TournamentStream(StreamHead):
    """A tournament's stream: named by `tournament_id`."""

    STREAM_FIELD: ClassVar[str] = "tournament_id"
    tournament_id: TournamentId


class TournamentEnvelope(StreamBody, TournamentStream):
    """The metadata of a tournament event: as `contracts.envelope.Envelope`, with
    `tournament_id` naming the stream (`seq` = the 1-based position in it; an append with
    `seq = n` expects version `n - 1`; `event_id` the idempotency key)."""


TOURNAMENT_EVENTS = stream_events(TournamentEnvelope, TOURNAMENT_PAYLOADS)
"""The tournament events: envelope models per type, their tagged union, the validator."""
TOURNAMENT_ENVELOPES = TOURNAMENT_EVENTS.envelopes
AnyTournamentEvent: Any = TOURNAMENT_EVENTS.union
TOURNAMENT_EVENT_ADAPTER = TOURNAMENT_EVENTS.adapter
parse_tournament_event = TOURNAMENT_EVENTS.parse
parse_tournament_event_json = TOURNAMENT_EVENTS.parse_json
