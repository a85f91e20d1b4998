"""Tournament use cases: record events on a tournament's stream (checked by the pure fold,
appended with expected version and idempotent ids), seat the next round with the seating
engine, and read the standings at any seq.

The doors (CLI today) call these; they know the `TournamentLog` port only. A concurrent writer
makes an append fail with `VersionConflict`; `record` re-reads, re-checks and retries a few
times, so two judges approving two tables at once both land.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

from contracts.envelope import Payload
from contracts.tournament import (
    RoundSeated,
    SeatedTablePayload,
    TournamentCreated,
    TournamentEnvelope,
    parse_tournament_event,
)
from domain.errors import RuleViolation
from domain.tournament.fold import evolve, fold
from domain.tournament.history import History
from domain.tournament.seating import Entrant, Seating, SeatingRules, seat_round
from domain.tournament.standings import Standings, standings
from domain.tournament.state import TournamentState
from services.ports.errors import VersionConflict
from services.ports.eventlog import AppendResult
from services.ports.tournaments import TournamentLog

SeatMethod = Callable[[Sequence[Entrant], int, History, SeatingRules, str | int], Seating]
"""A seating method: `domain.tournament.seating.seat_round` (or `greedy_round`, to compare)."""


class UnknownTournament(LookupError):
    """No stream for the tournament id (no event appended yet)."""


def history_of(state: TournamentState) -> History:
    """Who met whom, seat counts and byes over the state's seated rounds."""
    return History.of((tuple(t.players for t in r.tables.values()), r.byes) for r in state.rounds)


def entrants_of(state: TournamentState, table: Standings, for_round: int) -> list[Entrant]:
    """Every registered player as seating sees them: effective seed, points now, and dropped
    (or not yet joined for `for_round`) as not to be seated."""
    points = {line.player_id: float(line.points.value) for line in table.lines}
    seeds = state.seed_rank()
    active = {p.player_id for p in state.active(for_round)}
    return [
        Entrant(pid, seeds[pid], points.get(pid, 0.0), pid not in active) for pid in state.players
    ]


def rules_of(settings: TournamentCreated) -> SeatingRules:
    """The seating rules a tournament was created with."""
    return SeatingRules(
        pairing=settings.pairing, first_round=settings.first_round, remainder=settings.remainder
    )


class Tournaments:
    """The tournament use cases over one `TournamentLog`."""

    def __init__(
        self,
        log: TournamentLog,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
        retries: int = 3,
    ) -> None:
        self.log = log
        self.now = now
        self.retries = retries

    async def state(self, tournament_id: str, at_seq: int | None = None) -> TournamentState:
        """The folded tournament (after `at_seq` when given: a replay to that point).

        Raises:
            UnknownTournament: no such stream.
        """
        events = await self.log.read(tournament_id, 1, at_seq)
        if not events:
            raise UnknownTournament(tournament_id)
        return fold(events)

    async def standings(self, tournament_id: str, at_seq: int | None = None) -> Standings:
        """The standings now, or as they stood after `at_seq`."""
        return standings(await self.state(tournament_id, at_seq))

    async def record(
        self,
        tournament_id: str,
        payloads: Sequence[Payload],
        actor: str,
        credential: str | None = None,
    ) -> tuple[TournamentState, AppendResult]:
        """Check `payloads` in order against the tournament's rules and append them as one
        all-or-nothing batch at the version they were checked on; re-read and retry on a
        concurrent append (up to `retries` times).

        Raises:
            RuleViolation: a payload breaks a rule (nothing appended).
            VersionConflict: still conflicting after the retries.
            CredentialMismatch: `credential` is not the tournament's.
        """
        for attempt in range(self.retries + 1):
            events = await self.log.read(tournament_id)
            state = fold(events) if events else None
            batch: list[TournamentEnvelope] = []
            for payload in payloads:
                event = self._envelope(tournament_id, len(events) + len(batch) + 1, payload, actor)
                state = evolve(state, event)
                batch.append(event)
            try:
                result = await self.log.append(tournament_id, batch, credential)
            except VersionConflict:
                if attempt == self.retries:
                    raise
                continue
            assert state is not None
            return state, result
        raise AssertionError("unreachable")  # pragma: no cover

    def _envelope(self, tid: str, seq: int, payload: Payload, actor: str) -> TournamentEnvelope:
        return parse_tournament_event(
            {
                "event_id": str(uuid.uuid4()),
                "tournament_id": tid,
                "seq": seq,
                "type": payload.TYPE,
                "schema_version": payload.SCHEMA_VERSION,
                "occurred_at": self.now().isoformat(),
                "actor": actor,
                "payload": payload.model_dump(mode="json"),
            }
        )

    async def seat_next_round(
        self,
        tournament_id: str,
        actor: str,
        credential: str | None = None,
        method: SeatMethod = seat_round,
        game_ids: Callable[[int, int], str | None] = lambda round_, table: None,
    ) -> Seating:
        """Seat the next round with `method` from the stream's state and append it.

        `game_ids(round, table)` names the scoreledger game that plays each table (None: the
        result is reported by hand).

        Raises:
            UnknownTournament: no such stream.
            RuleViolation: the previous round is not closed, all rounds are played, ...
            domain.tournament.tables.SeatingError: the active players cannot be seated.
        """
        state = await self.state(tournament_id)
        number = len(state.rounds) + 1
        if number > state.settings.rounds:
            raise RuleViolation(
                "tournament.rounds_done", f"all {state.settings.rounds} rounds are seated", "round"
            )
        entrants = entrants_of(state, standings(state), number)
        seating = method(
            entrants,
            number,
            history_of(state),
            rules_of(state.settings),
            state.settings.seating_seed,
        )
        payload = RoundSeated(
            round=number,
            tables=tuple(
                SeatedTablePayload(
                    number=t.number,
                    players=t.players,
                    reason=t.reason[:2000],
                    game_id=game_ids(number, t.number),
                )
                for t in seating.tables
            ),
            byes=seating.byes,
            reason=seating.reason[:2000],
        )
        await self.record(tournament_id, [payload], actor, credential)
        return seating
