"""Pure builders of the audit and ledger bodies from domain values (no I/O); the standings' are
`services.usecases.readmodels.render`'s."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from contracts.common import EventVoided
from contracts.envelope import Envelope
from domain.fold import GameState
from domain.standings import player_ledger
from services.usecases.readmodels.shapes import AuditEvent, LedgerLine, LedgerResponse


def voids_by_target(events: Iterable[Envelope]) -> dict[str, int]:
    """voided event id -> seq of the `game.event_voided` that voided it."""
    return {
        str(e.payload.voided_event_id): e.seq for e in events if isinstance(e.payload, EventVoided)
    }


def audit_events(page: Sequence[Envelope], voids: dict[str, int]) -> list[AuditEvent]:
    """One page of the audit log, each event marked voided (and by which seq) or not."""
    return [
        AuditEvent(
            seq=e.seq,
            event_id=str(e.event_id),
            type=e.type,
            occurred_at=e.occurred_at.isoformat(),
            recorded_at=e.recorded_at.isoformat() if e.recorded_at else None,
            actor=e.actor,
            voided=str(e.event_id) in voids,
            voided_by_seq=voids.get(str(e.event_id)),
            event=e.to_wire(),
        )
        for e in page
    ]


def ledger_view(state: GameState, player_id: str) -> LedgerResponse:
    """Every ledger entry of `player_id` (voided events' entries excluded: the fold refolds
    without them) with its event's type and time, and the sum per resource."""
    by_id = {e.event_id: e for e in state.history}
    entries = player_ledger(state, player_id)
    totals: dict[str, int] = defaultdict(int)
    lines = []
    for entry in entries:
        event = by_id[entry.event_id]
        totals[str(entry.resource)] += entry.amount
        lines.append(
            LedgerLine(
                seq=entry.seq,
                event_id=str(entry.event_id),
                event_type=event.type,
                occurred_at=event.occurred_at.isoformat(),
                resource=str(entry.resource),
                category=entry.category,
                amount=entry.amount,
                rule=entry.rule,
                note=entry.note,
            )
        )
    return LedgerResponse(
        game_id=state.game_id,
        player_id=player_id,
        seq=state.seq,
        entries=lines,
        totals=dict(totals),
    )
