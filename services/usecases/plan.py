"""Planning one append on a folded game (the domain check of `check.CheckedAppend`): fold
the batch's new events onto the base state with one working `Folder`, skip known event ids
(an exact retry; a reused id with another body is refused), check each seq follows.
Source: issue brief (ingest); split out of services/usecases/check.py (docs/decisions/0012-hot-reads-and-off-loop-replays.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from contracts.envelope import Envelope
from domain.errors import RuleViolation
from domain.fold import Folder, GameState
from services.ports.errors import VersionConflict
from services.usecases.statecache import Known


@dataclass(slots=True)
class Plan:
    """One append, checked: the state after it, the new ids and the events to write."""

    game_id: str
    events: Sequence[Envelope]
    base: Known | None
    state: GameState | None
    added: dict[UUID, int] = field(default_factory=dict)
    fresh: list[Envelope] = field(default_factory=list)
    version: int | None = None
    """The stored version read while planning (None: not read)."""
    head: str | None = None
    """The event id the base state ends with (the append's expected head; None: no base)."""
    base_ids: dict[UUID, int] = field(default_factory=dict)
    """The base's event ids -> seqs (a duplicate's seq, when not added by this plan)."""


def _same_fact(a: Envelope, b: Envelope) -> bool:
    """Two envelopes state the same fact: equal but for the store's `recorded_at`."""
    return a.model_copy(update={"recorded_at": None}) == b.model_copy(update={"recorded_at": None})


def _check_same_event(plan: Plan, event: Envelope) -> None:
    """A repeated `event_id` is an idempotent retry only if it carries the same event.

    Raises:
        RuleViolation: `log.event_id_reused` when the id is known with a different body (a
            client bug or an id collision: the sender must not believe it was recorded).
    """
    original = next((e for e in plan.fresh if e.event_id == event.event_id), None)
    if original is None and plan.base is not None:
        original = plan.base.state.history[plan.base_ids[event.event_id] - 1]
    if original is not None and not _same_fact(original, event):
        raise RuleViolation(
            "log.event_id_reused",
            f"event_id {event.event_id} is already seq {original.seq} with a different body",
            "event_id",
        )


def plan_append(game_id: str, events: Sequence[Envelope], base: Known | None) -> Plan:
    """Fold `events` onto `base` (None: no event yet); known event ids are skipped.

    Raises:
        RuleViolation: an event breaks a rule (its `index`: the event's position in `events`).
        VersionConflict: an event's `seq - 1` is not the version reached so far (`index` the
            event's position, `actual` the base's version, `follows` the version reached).
    """
    plan = Plan(game_id, events, base, base.state if base is not None else None)
    ids = base.ids if base is not None else {}
    plan.base_ids = ids
    if base is not None and base.state.history:
        plan.head = str(base.state.history[-1].event_id)
    held = base.state.seq if base is not None else 0
    folder: Folder[Any] = Folder.resume(plan.state)  # one working fold, no state per event
    for index, event in enumerate(events):
        try:
            if event.event_id in ids or event.event_id in plan.added:
                _check_same_event(plan, event)
                continue
            current = folder.seq if folder.started else 0
            if event.seq - 1 != current:
                raise VersionConflict(event.seq - 1, held, index, current)
            folder.add(event)
        except RuleViolation as violation:
            violation.index = index
            raise
        plan.added[event.event_id] = event.seq
        plan.fresh.append(event)
    if folder.started:
        plan.state = folder.state
    return plan
