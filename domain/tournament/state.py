"""The folded state of a tournament stream: its settings, players, rounds and tables.

Built by `domain.tournament.fold`; read by standings, seating (who is active, what happened
before) and the use cases. Plain dataclasses: the fold copies the state before each event, so a
state once returned is never changed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from contracts.tournament import ResultLine, TournamentCreated

TableStatus = Literal["seated", "reported", "disputed", "approved"]
EntryKind = Literal["reported", "ruled", "approved", "disputed"]


@dataclass(frozen=True, slots=True)
class TableEntry:
    """One act on a table, in stream order: `seq` of its event, `kind` (`reported`; `ruled`:
    an approval giving `results`; `approved`: a plain approval; `disputed`), `by` (reporter,
    judge or disputer), the results it gave (reports and rulings) and a dispute's reason."""

    seq: int
    kind: EntryKind
    by: str
    results: tuple[ResultLine, ...] | None = None
    reason: str | None = None


TournamentStatus = Literal["upcoming", "live", "finished"]


@dataclass(slots=True)
class Registrant:
    """A player of the tournament. `seed`: as registered (None: unseeded); `order`: the
    registration order (0-based); `from_round`: the first round they can be seated in;
    `dropped_after`: the last round seated before they dropped (None: still in);
    `checked_in`: the desk checked them in (`tournament.player_checked_in`)."""

    player_id: str
    name: str
    seed: int | None
    order: int
    from_round: int = 1
    dropped_after: int | None = None
    checked_in: bool = False

    @property
    def dropped(self) -> bool:
        """True once the player dropped."""
        return self.dropped_after is not None


@dataclass(slots=True)
class TableState:
    """One table of a round: players in seat order; its result as reported and as approved
    (what counts); the latest ruling (`ruling`: the results of the last approval that gave
    them; once there is one, a plain approval confirms it, never a report); who
    confirmed; the disputes raised (`status == "disputed"` holds it out); every report,
    ruling, approval and dispute in order (`history`)."""

    round: int
    number: int
    players: tuple[str, ...]
    reason: str
    game_id: str | None
    status: TableStatus = "seated"
    reported: tuple[ResultLine, ...] | None = None
    reported_seq: int | None = None
    reported_at: datetime | None = None
    approved: tuple[ResultLine, ...] | None = None
    approved_seq: int | None = None
    ruling: tuple[ResultLine, ...] | None = None
    confirmed: list[str] = field(default_factory=list)
    disputes: list[str] = field(default_factory=list)
    history: list[TableEntry] = field(default_factory=list)


@dataclass(slots=True)
class RoundState:
    """A seated round: its tables by number, the byes, the seating's reason, closed or not,
    and when it was seated (the event's `occurred_at`)."""

    number: int
    tables: dict[int, TableState]
    byes: tuple[str, ...]
    reason: str
    closed: bool = False
    seated_at: datetime | None = None
    timer_started_at: datetime | None = None
    timer_minutes: int | None = None
    """The round's clock (`tournament.round_timer_started`): started then, runs this long."""


@dataclass(slots=True)
class TournamentState:
    """A tournament after `seq` events: its settings (the created event's payload), players
    in registration order, rounds in order, judges in office (`judge_id` -> name) and the ids
    of those dismissed."""

    tournament_id: str
    settings: TournamentCreated
    seq: int
    players: dict[str, Registrant] = field(default_factory=dict)
    rounds: list[RoundState] = field(default_factory=list)
    judges: dict[str, str] = field(default_factory=dict)
    dismissed_judges: set[str] = field(default_factory=set)
    """Judge ids dismissed so far: a judge's token depends on the id alone, so the desk never
    appoints one of these again (the dismissed judge's token would work again)."""
    check_in: bool = False
    """True once any player was checked in: from then on only checked-in players (and late
    joiners) are seated."""

    @property
    def current_round(self) -> RoundState | None:
        """The last seated round (None before round 1)."""
        return self.rounds[-1] if self.rounds else None

    @property
    def status(self) -> TournamentStatus:
        """`upcoming` before round 1 is seated; `finished` once the last of `settings.rounds`
        rounds is seated and closed (every table approved); `live` in between."""
        if not self.rounds:
            return "upcoming"
        last = self.rounds[-1]
        if len(self.rounds) >= self.settings.rounds and last.closed:
            return "finished"
        return "live"

    def active(self, for_round: int) -> list[Registrant]:
        """Players who may be seated in `for_round`: not dropped, joined by then and, once
        check-in is in use, checked in or joined late (a late joiner joins at the desk)."""
        return [
            p
            for p in self.players.values()
            if not p.dropped
            and p.from_round <= for_round
            and (not self.check_in or p.checked_in or p.from_round > 1)
        ]

    def seed_rank(self) -> dict[str, int]:
        """Each player's effective seed, 1 = top: explicit seeds first (ascending), then the
        unseeded in registration order."""
        ranked = sorted(
            self.players.values(),
            key=lambda p: (p.seed is None, p.seed or 0, p.order),
        )
        return {p.player_id: i for i, p in enumerate(ranked, start=1)}
