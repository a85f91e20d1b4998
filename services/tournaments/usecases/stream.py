"""Tournament use cases: record events on a tournament's stream (checked by the pure fold,
appended with expected version and idempotent ids), seat the next round with the seating
engine, and read the standings at any seq.

The doors (CLI today) call these; they know the `TournamentLog` port only. A concurrent writer
makes an append fail with `VersionConflict`; `record` re-reads, re-checks and retries a few
times, so two judges approving two tables at once both land.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import structlog

from contracts.envelope import Envelope, Payload
from contracts.tournament import (
    TOURNAMENT_EVENTS,
    RoundClosed,
    RoundSeated,
    SeatedTablePayload,
    TableResultApproved,
    TableResultReported,
    TournamentCreated,
    TournamentEnvelope,
)
from domain.errors import RuleViolation
from domain.fold import fold as fold_game
from domain.standings import standings as game_standings
from domain.tournament.fold import admit, fold
from domain.tournament.history import History
from domain.tournament.results import follow_up
from domain.tournament.seating import Entrant, Seating, SeatingRules, seat_round
from domain.tournament.standings import Standings, standings
from domain.tournament.state import TableState, TournamentState
from services.ports.errors import VersionConflict
from services.ports.eventlog import AppendResult
from services.tournaments.ports.approvals import ApprovalSchedule, DueEntry
from services.tournaments.ports.log import TournamentLog

log = structlog.get_logger("tournaments")

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


@dataclass(eq=False)  # no slots: callers may replace a method on one instance
class Tournaments:
    """The tournament use cases over one `TournamentLog`."""

    log: TournamentLog
    now: Callable[[], datetime] = lambda: datetime.now(UTC)
    retries: int = 3
    schedule: ApprovalSchedule | None = None  # None: auto-approval only on writes and approve-due
    # `SideNames.count` of the names kept apart
    names_count: Callable[[str], Awaitable[int]] | None = None
    # Told of every stored batch (`LeagueFollow.tournament_changed`; set by bootstrap,
    # which builds the leagues over these use cases).
    changed: Callable[[str, Sequence[TournamentEnvelope]], Awaitable[object]] | None = field(
        init=False, default=None
    )

    async def names_stamp(self, tournament_id: str) -> int:
        """Changes when the names a reader sees change without a new event (a player
        forgotten): the count of names kept beside the stream (0: none kept apart)."""
        return 0 if self.names_count is None else await self.names_count(tournament_id)

    async def state(self, tournament_id: str, at_seq: int | None = None) -> TournamentState:
        """The folded tournament (after `at_seq` when given: a replay to that point).

        Raises:
            UnknownTournament: no such stream.
        """
        events = await self.log.read(tournament_id, 1, at_seq)
        if not events:
            raise UnknownTournament(tournament_id)
        return fold(events)

    async def listing(self, limit: int) -> list[TournamentState]:
        """The `limit` most recently created tournaments, folded, newest first (a stream
        that no longer folds, e.g. one forgotten meanwhile, is left out)."""
        states = []
        for tournament_id in await self.log.streams(limit):
            try:
                states.append(await self.state(tournament_id))
            except (UnknownTournament, RuleViolation):
                continue
        return states

    async def standings(self, tournament_id: str, at_seq: int | None = None) -> Standings:
        """The standings now, or as they stood after `at_seq`."""
        return standings(await self.state(tournament_id, at_seq))

    async def record(
        self,
        tournament_id: str,
        payloads: Sequence[Payload],
        actor: str,
        credential: str | None = None,
        event_ids: Sequence[str] | None = None,
        still: Callable[[TournamentState | None], None] | None = None,
    ) -> tuple[TournamentState, AppendResult]:
        """Check `payloads` in order against the tournament's rules and append them as one
        all-or-nothing batch at the version they were checked on; re-read and retry on a
        concurrent append (up to `retries` times). `event_ids` (one per payload) makes the
        append idempotent across callers: a known id is a duplicate, nothing written.
        `still`: called with each read's state before the payloads are checked; raises
        `RuleViolation` when what the caller decided on has changed meanwhile.

        Raises:
            RuleViolation: a payload breaks a rule (nothing appended).
            VersionConflict: still conflicting after the retries.
            CredentialMismatch: `credential` is not the tournament's.
        """
        for attempt in range(self.retries + 1):
            events = await self.log.read(tournament_id)
            state = fold(events) if events else None
            if still is not None:
                still(state)
            batch: list[TournamentEnvelope] = []
            for i, payload in enumerate(payloads):
                event_id = event_ids[i] if event_ids is not None else str(uuid.uuid4())
                seq = len(events) + len(batch) + 1
                event = self._envelope(tournament_id, seq, payload, actor, event_id)
                state = admit(state, event)
                batch.append(event)
            assert state is not None
            await self._schedule(state, batch)
            try:
                result = await self.log.append(tournament_id, batch, credential)
            except VersionConflict:
                if attempt == self.retries:
                    raise
                continue
            assert state is not None
            await self._tell(tournament_id, batch)
            return state, result
        raise AssertionError("unreachable")  # pragma: no cover

    async def _tell(self, tournament_id: str, batch: Sequence[TournamentEnvelope]) -> None:
        """Tell `changed` of a stored batch; its failure is logged, never the write's (the
        batch is stored: the next approval or a league's own addition catches up)."""
        if self.changed is None:
            return
        try:
            await self.changed(tournament_id, batch)
        except Exception as error:  # the write succeeded; a follower's fault must not undo that
            log.warning("tournament.follow_failed", tournament_id=tournament_id, error=repr(error))

    async def _schedule(self, state: TournamentState, batch: Sequence[TournamentEnvelope]) -> None:
        """Schedule the auto-approval of each result `batch` reports (before the append: an
        append that then fails leaves an entry whose approval finds nothing to do, while one
        scheduled after could be lost with the process)."""
        wait = state.settings.auto_approve_after_s
        if self.schedule is None or wait is None:
            return
        for event in batch:
            if isinstance(event.payload, TableResultReported):
                due = event.occurred_at + timedelta(seconds=wait)
                due_ms = -(-int(due.timestamp() * 1_000_000) // 1000)  # ceil: due <= due_ms
                await self.schedule.schedule(DueEntry(event.tournament_id, due_ms))

    def _envelope(
        self, tid: str, seq: int, payload: Payload, actor: str, event_id: str
    ) -> TournamentEnvelope:
        return TOURNAMENT_EVENTS.new(tid, seq, payload, self.now(), actor, event_id)

    async def seat_next_round(
        self,
        tournament_id: str,
        actor: str,
        credential: str | None = None,
        method: SeatMethod = seat_round,
        game_ids: Callable[[int, int], str | None] = lambda round_, table: None,
        event_ids: Sequence[str] | None = None,
    ) -> Seating:
        """Seat the next round with `method` from the stream's state and append it.

        `game_ids(round, table)` names the scoreledger game that plays each table (None: the
        result is reported by hand); `event_ids`: the `round_seated` event's id (`record`).

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
        await self.record(tournament_id, [payload], actor, credential, event_ids)
        return seating

    async def result_from_game(
        self,
        tournament_id: str,
        round_number: int,
        table_number: int,
        game_events: Sequence[Envelope],
        credential: str | None = None,
    ) -> str:
        """Bring a table's result in line with its game's log (call it after the game ends and
        after any later referee's void or correction in it). Returns what was appended:

        - `reported`: the first result from the final game (also approved at once when
          `auto_approve_after_s` is 0: `approved`);
        - `approved`: the table was approved and the game's standings changed since (a void
          or correction, itself a referee's act): the new result is approved, by the game,
          while the tournament has no judge in office;
        - `held`: the game is no longer final (its `game.ended` voided), or an approved
          table's game changed while the tournament has a judge (the table's token is the
          players', so it must not overturn a judge's ruling): the table is disputed, held
          out of the standings until a judge rules;
        - `unchanged` / `waiting`: nothing to append (same result; game not final yet, or the
          table is disputed and waits for a judge).

        Raises:
            UnknownTournament, RuleViolation (unknown round or table; another game than the
            table's, `tournament.wrong_game`; the game's players are not the table's,
            `tournament.game_players`); the game's own `RuleViolation`.
        """
        state = await self.state(tournament_id)
        table = table_of(state, round_number, table_number)
        game = game_standings(fold_game(game_events))
        if table.game_id is not None and game.game_id != table.game_id:
            raise RuleViolation(
                "tournament.wrong_game",
                f"round {round_number} table {table_number} is played as game {table.game_id}",
                "game_id",
            )
        r, t = round_number, table_number
        actor = f"game {game.game_id}"
        # Ids derived from the game's version: the follow-up and a hand sync racing on the
        # same game append one fact, the other's is a duplicate (never two reports).
        at = f"game:{game.game_id}@{game_events[-1].event_id}:{r}:{t}"

        def ids(*kinds: str) -> list[str]:
            return [_derived_id(tournament_id, f"{at}:{kind}") for kind in kinds]

        outcome, batch, kinds = follow_up(state, table, game, r, t, actor)
        if batch:
            await self.record(tournament_id, batch, actor, credential, ids(*kinds))
        return outcome

    async def approve_due(
        self, tournament_id: str, credential: str | None = None
    ) -> list[tuple[int, int]]:
        """Approve (judge `auto`) every reported, undisputed table whose report is at least
        `auto_approve_after_s` old (none when the tournament has no auto-approval), and close
        the open round when every table of it is approved (also after approvals that came
        from the tables' games); the `(round, table)` pairs approved, in one append.
        Idempotent: each event's id is derived from what it settles (the report it approves,
        the round it closes), so two callers racing append it once (the loser's append is a
        duplicate, or its re-check finds nothing to do; either way the loser's answer does not
        name those tables)."""
        state = await self.state(tournament_id)
        wait = state.settings.auto_approve_after_s
        now = self.now()
        due = [
            (r.number, t.number, t.reported_seq)
            for r in state.rounds
            for t in r.tables.values()
            if wait is not None
            and t.status == "reported"
            and t.reported_at is not None
            and (now - t.reported_at).total_seconds() >= wait
        ]
        batch: list[Payload] = [
            TableResultApproved(round=rn, table=tn, judge="auto") for rn, tn, _ in due
        ]
        ids = [_derived_id(tournament_id, f"auto-approve:{seq}") for _, _, seq in due]
        current = state.current_round
        approved = {tn for rn, tn, _ in due if current is not None and rn == current.number}
        if (
            current is not None
            and not current.closed
            and all(t.status == "approved" or n in approved for n, t in current.tables.items())
        ):
            batch.append(RoundClosed(round=current.number))
            ids.append(_derived_id(tournament_id, f"close:{current.number}"))
        if not batch:
            return []

        def still(now: TournamentState | None) -> None:
            # a dispute or a new report since the read above: not this approval's to settle
            for rn, tn, seq in due:
                table = None if now is None else now.rounds[rn - 1].tables[tn]
                if table is None or table.status != "reported" or table.reported_seq != seq:
                    raise RuleViolation(
                        "tournament.result_changed",
                        f"round {rn} table {tn} changed since its report was due",
                        "payload.table",
                    )

        try:
            _, result = await self.record(
                tournament_id, batch, "auto-approval", credential, ids, still
            )
        except RuleViolation:
            return []  # another caller approved (and closed) first: its re-check failed
        # a racing caller's approval (same derived id) is a duplicate here: not ours to count
        appended = result.events[: len(due)]
        return [(rn, tn) for (rn, tn, _), e in zip(due, appended, strict=True) if not e.duplicate]


def _derived_id(tournament_id: str, what: str) -> str:
    """A stable event id for an event any caller may append (dedupe by id)."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"scoreledger:tournament:{tournament_id}:{what}"))


def table_of(state: TournamentState, round_number: int, table_number: int) -> TableState:
    """The table of a seated round.

    Raises:
        RuleViolation: `tournament.unknown_round`, `tournament.unknown_table`.
    """
    if not 1 <= round_number <= len(state.rounds):
        raise RuleViolation(
            "tournament.unknown_round", f"round {round_number} is not seated", "round"
        )
    tables = state.rounds[round_number - 1].tables
    if table_number not in tables:
        raise RuleViolation(
            "tournament.unknown_table", f"round {round_number} has no table {table_number}", "table"
        )
    return tables[table_number]
