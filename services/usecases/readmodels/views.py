"""Pure builders of the response bodies from domain values (no I/O)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Literal

from contracts.common import EventVoided
from contracts.envelope import Envelope
from domain.fold import GameState
from domain.standings import CategoryLabel, PlayerStanding, Standings, player_ledger
from services.usecases.readmodels.labels import category_labels, outcome_text
from services.usecases.readmodels.shapes import (
    AuditEvent,
    CategoryPoints,
    LedgerLine,
    LedgerResponse,
    PlayerLine,
    ProvisionalView,
    StandingsResponse,
)


def standings_view(
    result: Standings,
    source: Literal["projection", "replay"],
    checkpoint: str | None = None,
    updated_at: str | None = None,
) -> StandingsResponse:
    """The HTTP body of `result`: each player's breakdown labelled EN/RU (every category shown,
    0 where none), the provisional part during play, and the outcome in words."""
    labels = category_labels(result)
    return StandingsResponse(
        title=result.title,
        score_unit_label=result.score_unit_label,
        game_id=result.game_id,
        game=result.game,
        status=result.status,
        seq=result.seq,
        score_unit=result.score_unit,
        players=[_player_line(p, labels) for p in result.players],
        winner=result.winner,
        winners=result.winners,
        tie_break=result.tie_break,
        result=outcome_text(result) or None,
        source=source,
        checkpoint=checkpoint,
        updated_at=updated_at,
    )


def _player_line(player: PlayerStanding, labels: Sequence[CategoryLabel]) -> PlayerLine:
    """One player's line of `standings_view`, with every category of `labels`."""
    provisional = None
    if player.provisional is not None:
        provisional = ProvisionalView(
            categories=[
                CategoryPoints(
                    key=c.key,
                    en=c.en,
                    ru=c.ru,
                    endgame=c.endgame,
                    points=player.provisional.categories[c.key],
                )
                for c in labels
                if c.key in player.provisional.categories
            ],
            total=player.provisional.total,
        )
    return PlayerLine(
        player_id=player.player_id,
        name=player.name,
        seat=player.seat,
        rank=player.rank,
        total=player.total,
        breakdown=[
            CategoryPoints(
                key=c.key,
                en=c.en,
                ru=c.ru,
                endgame=c.endgame,
                points=player.categories.get(c.key, 0),
            )
            for c in labels
        ],
        provisional=provisional,
        resources=player.resources,
        card_lines=player.card_lines,
    )


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
