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
from contracts.names import strip_names
from domain.errors import RuleViolation
from domain.fold import Folder, GameState
from services.ports.errors import VersionConflict
from services.ports.eventlog import EMPTY_HEAD
from services.usecases.statecache import Known


@dataclass(slots=True)
class Plan:
    """One append, checked: the state after it, the new ids and the events to write.

    Event ids are keyed by their 128-bit integer (`UUID.int`, as `Known.ids`): it hashes in
    C, a `UUID` in Python (docs/profiles/fold-event-cost.md)."""

    game_id: str
    events: Sequence[Envelope]
    base: Known | None
    state: GameState | None
    added: dict[int, int] = field(default_factory=dict)
    """The new events' ids (`UUID.int`) -> seqs."""
    fresh: list[Envelope] = field(default_factory=list)
    version: int | None = None
    """The stored version read while planning (None: not read)."""
    head: str | None = None
    """The event id the base state ends with (the append's expected head; `EMPTY_HEAD`: no
    base, None: a base with no event)."""
    base_ids: dict[int, int] = field(default_factory=dict)
    """The base's event ids (`UUID.int`) -> seqs (a duplicate's seq, when not added by this plan)."""
    known: list[UUID] = field(default_factory=list)
    """The base's event ids the batch names (retries of stored events), each once, in batch
    order: what the append confirms against the stored log (`EventLog.stored_seqs`)."""

    def is_added(self, event: Envelope) -> bool:
        """Whether `event`'s id is one this plan adds (not a duplicate of the base's)."""
        return event.event_id.int in self.added

    def seq_of(self, event: Envelope) -> int:
        """The seq of `event`'s id: as this plan adds it, else the base's.

        Raises:
            KeyError: the id is neither added by this plan nor the base's."""
        key = event.event_id.int
        return self.added.get(key) or self.base_ids[key]


def _same_fact(a: Envelope, b: Envelope) -> bool:
    """Two envelopes state the same fact: equal but for the store's `recorded_at` and the
    players' names, which are kept outside the log (a forgotten player's reads back as a
    pseudonym: docs/decisions/0014-names-outside-the-log.md), so every process answers a
    retry alike, whether it folded the game from the store or kept it from the first write."""
    stored_a, _ = strip_names(a.model_copy(update={"recorded_at": None}))
    stored_b, _ = strip_names(b.model_copy(update={"recorded_at": None}))
    return stored_a == stored_b


def _check_same_event(plan: Plan, event: Envelope) -> None:
    """A repeated `event_id` is an idempotent retry only if it carries the same event.

    Raises:
        RuleViolation: `log.event_id_reused` when the id is known with a different body (a
            client bug or an id collision: the sender must not believe it was recorded).
    """
    original = next((e for e in plan.fresh if e.event_id == event.event_id), None)
    if original is None and plan.base is not None:
        original = plan.base.state.history[plan.base_ids[event.event_id.int] - 1]
    if original is not None and not _same_fact(original, event):
        raise RuleViolation(
            "log.event_id_reused",
            f"event_id {event.event_id} is already seq {original.seq} with a different body",
            "event_id",
        )


def plan_append(game_id: str, events: Sequence[Envelope], base: Known | None) -> Plan:
    """Fold `events` onto `base` (None: no event yet); known event ids are skipped.

    Cost: one working `Folder` for the batch and two dict reads of each event's id (is it the
    base's; is it new in the batch, the same read adding it), by its integer: the plan's only
    per-event work besides the fold (docs/profiles/fold-event-cost.md).

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
    elif base is None:  # planned on an empty game: the append refuses it if one landed
        plan.head = EMPTY_HEAD
    held = current = base.state.seq if base is not None else 0
    # one working fold, no state per event; a batch owns the rules state from its first event
    folder: Folder[Any] = Folder.resume(plan.state, run=len(events) > 1)
    add, added, fresh, known = folder.add, plan.added, plan.fresh, plan.known
    index = 0
    try:
        for index, event in enumerate(events):
            key = event.event_id.int
            if key in ids:  # a retry of a stored event (or a reused id: refused)
                if event.event_id not in known:
                    known.append(event.event_id)
                _check_same_event(plan, event)
                continue
            count = len(added)
            seq = added.setdefault(key, event.seq)  # refused events leave the plan unused
            if len(added) == count:  # already in this batch
                _check_same_event(plan, event)
                continue
            if seq - 1 != current:
                raise VersionConflict(seq - 1, held, index, current)
            add(event)
            current = seq
            fresh.append(event)
    except RuleViolation as violation:
        violation.index = index
        raise
    if folder.started:
        plan.state = folder.state
    return plan
