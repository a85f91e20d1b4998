"""A table's result as the desk writes it: what a report, confirmation, dispute or approval
appends, who may ask it with a table's token, and when an approval closes the round.
Refusals: `invalid` / `schema.field` or `request.invalid` (a missing field),
`forbidden` / `auth.table_reports_only`, `auth.table_token_other_table`; a rule breach or a
conflict becomes a `Refusal` through `refusal_of`. Source: docs/rules/tournaments.md#results.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from pydantic import ValidationError

from contracts.envelope import Payload
from contracts.tournament import (
    ResultLine,
    RoundClosed,
    TableResultApproved,
    TableResultConfirmed,
    TableResultDisputed,
    TableResultReported,
)
from domain.errors import RuleViolation
from domain.tournament.state import TournamentState
from services.ports.errors import CredentialMismatch, VersionConflict
from services.tournaments.usecases.access import ORGANISER, Caller, DeskAccess, refusal_of
from services.usecases.idempotency import same_request
from services.usecases.refusal import Refusal

TableAction = Literal["report", "confirm", "dispute", "approve"]


@dataclass(frozen=True, slots=True)
class TableRuling:
    """What a table write asks: `report` (`results`, `by`), `confirm` (`player_id`),
    `dispute` (`by`, `reason`) or `approve` (`by` the judge, `results` optional: a ruling)."""

    action: TableAction
    round: int
    results: tuple[ResultLine, ...] | None = None
    by: str = ORGANISER
    player_id: str | None = None
    reason: str | None = None


def table_may(own: tuple[int, int], ruling: TableRuling, table: int) -> None:
    """A table's token reports or confirms its own table's result, nothing else."""
    if ruling.action not in ("report", "confirm"):
        raise Refusal(
            "forbidden",
            "auth.table_reports_only",
            "a table's token reports or confirms its result; the organiser or a judge approves",
            "action",
        )
    if (ruling.round, table) != own:
        raise Refusal(
            "forbidden",
            "auth.table_token_other_table",
            f"this token is table {own[1]}'s of round {own[0]}",
            "authorization",
        )


def asked_payload(table: int, r: TableRuling) -> Payload:
    """What a table write appends first (its retry's check), a bad one refused as the write
    itself is."""
    try:
        return _table_payload(table, r)
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        field = ".".join(str(p) for p in first["loc"]) or "body"
        raise Refusal("invalid", "schema.field", first["msg"], field) from None


def _table_payload(table: int, r: TableRuling) -> Payload:
    missing = "results" if r.action == "report" and r.results is None else None
    if r.action == "confirm" and r.player_id is None:
        missing = "player_id"
    if r.action == "dispute" and not r.reason:
        missing = "reason"
    if missing is not None:
        raise Refusal("invalid", "request.invalid", f"{r.action} needs {missing}", missing)
    if r.action == "report":
        assert r.results is not None
        return TableResultReported(round=r.round, table=table, results=r.results, reported_by=r.by)
    if r.action == "confirm":
        assert r.player_id is not None
        return TableResultConfirmed(round=r.round, table=table, player_id=r.player_id)
    if r.action == "dispute":
        assert r.reason is not None
        return TableResultDisputed(round=r.round, table=table, by=r.by, reason=r.reason)
    return TableResultApproved(round=r.round, table=table, judge=r.by, results=r.results)


def closes(state: TournamentState, round_number: int, table: int) -> bool:
    """True when approving `table` leaves every table of the open round `round_number`
    approved (the round is the last seated and not closed yet)."""
    if not state.rounds or state.rounds[-1].number != round_number or state.rounds[-1].closed:
        return False
    tables = state.rounds[-1].tables
    return table in tables and all(t.status == "approved" for n, t in tables.items() if n != table)


class TableRulings(DeskAccess):
    """The desk's table writes: report, confirm, dispute, approve (a judge's ruling)."""

    async def rule_on_table(
        self,
        tournament_id: str,
        caller: str | Caller,
        table: int,
        ruling: TableRuling,
        key: str | None = None,
    ) -> TournamentState:
        """Append the table's report, confirmation, dispute or approval (after approving
        what is due). An approval that leaves every table of the open round approved also
        closes the round (same append), so the next round can be seated. `caller`: from
        `authorize_as` (a bare credential is the organiser).

        Raises:
            Refusal: `forbidden` / `auth.judge_required` (an approval or dispute by the
                organiser while the tournament has a judge; not for a request whose `key`
                stored it already: that one is answered as stored);
                `idempotency.key_reused`; the fold's rules.
        """
        if isinstance(caller, str):
            caller = Caller(caller, "organiser")
        credential = caller.credential
        if caller.table is not None:
            table_may(caller.table, ruling, table)
        ruling = named(caller, ruling)
        # A keyed request found stored is answered as stored before the judge rule: the rules
        # are not checked again on a retry (docs/request-bounds.md, Idempotency-Key), and a
        # judge appointed since must not make a stored approval read as refused.
        replay = await self._replayed(tournament_id, key)
        if replay is not None:
            same_request(replay[0].first, asked_payload(table, ruling))
            return replay[1]
        if ruling.action in ("approve", "dispute"):
            await self._judge_rule(tournament_id, caller)
        try:
            await self.cases.approve_due(tournament_id, credential)
        except (RuleViolation, VersionConflict, CredentialMismatch) as error:
            raise refusal_of(error) from None
        batch: list[Payload] = [asked_payload(table, ruling)]
        if ruling.action == "approve":
            state = await self.cases.state(tournament_id)
            if closes(state, ruling.round, table):
                batch.append(RoundClosed(round=ruling.round))
        actor = f"judge {caller.judge_id}" if caller.judge_id else ORGANISER
        return await self._record(tournament_id, batch, credential, actor, key)

    async def _judge_rule(self, tournament_id: str, caller: Caller) -> None:
        """Refuse an approval or dispute by a caller who is not a judge while the tournament
        has judges. Raises: Refusal `forbidden` / `auth.judge_required`
        (docs/tournaments.md, Judges)."""
        judges = (await self.cases.state(tournament_id)).judges
        if judges and caller.role != "judge":
            raise Refusal(
                "forbidden",
                "auth.judge_required",
                "this tournament has judges: only a judge's token approves or disputes",
                "authorization",
            )


def named(caller: Caller, ruling: TableRuling) -> TableRuling:
    """`ruling` as `caller` makes it: an approval or dispute by a judge's token names that
    judge (`by`); anything else unchanged. Pure: a retry compares what it would append
    (`same_request`) with this, before any rule is checked."""
    if ruling.action in ("approve", "dispute") and caller.judge_id is not None:
        return replace(ruling, by=caller.judge_id)
    return ruling
