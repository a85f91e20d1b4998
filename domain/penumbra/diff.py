"""Penumbra's ledger diff: the VP entries one event makes, from the tableaux before and after.

Every category is a function of a player's tableau (domain.penumbra.categories), so an event's
entries are the categories whose value changed, each by its change, plus an ARCANA entry per
change of an Arcana supply (docs/rules/penumbra.md#reserved-contracts). The diff is most of
Penumbra's fold (docs/profiles/fold-event-cost.md), so it does the least it can: no tableau
replaced, no work; the Arcana category is the supply itself; the seven card categories are
kept per player (`state.memo`) and only those whose inputs were replaced are computed again.
"""

from __future__ import annotations

from itertools import compress
from operator import ne
from uuid import UUID

from contracts.envelope import Envelope
from domain.ledger import LedgerEntry, Resource
from domain.penumbra.categories import CARD_CATEGORIES, RULE_LINE, CardVp, card_vp, card_vp_since
from domain.penumbra.state import PenumbraState, Tableau

_INDEXES = range(len(CARD_CATEGORIES))
_RULES = tuple(RULE_LINE[key] for key in CARD_CATEGORIES)
_ARCANA_RULE = RULE_LINE["arcana"]
# LedgerEntry(...) without its Python-level __new__, built inline: a helper call per entry
# cost about 1.5% of the fold (docs/profiles/fold-event-cost.md)
_tuple_new = tuple.__new__
_VP, _ARCANA = Resource.VP, Resource.ARCANA


def ledger_changes(
    old: PenumbraState, new: PenumbraState, event: Envelope
) -> tuple[LedgerEntry, ...]:
    """One VP entry per (player, category) whose VP changed from `old` to `new`, amount = the
    change, plus one ARCANA entry per change of an Arcana supply (noting Arcana lost), in seat
    order, each player's Arcana entries first, then the categories in the rules' order.

    A tableaux mapping, tableau or field that is the very same object in `old` and `new` scores
    the same (the values are immutable; a move replaces only what it changes)."""
    before_all, after_all = old.tableaux, new.tableaux
    if before_all is after_all:  # a turn, the Prophecy: no tableau replaced
        return ()
    entries: list[LedgerEntry] = []
    event_id: UUID | None = None
    seq = 0
    for pid in new.seats:
        before, after = before_all[pid], after_all[pid]
        if before is after:
            continue
        if event_id is None:
            fields = event.__dict__  # one slow pydantic read for the two fields
            event_id, seq = fields["event_id"], fields["seq"]
        supply, was_supply = after.arcana, before.arcana
        lost = after.arcana_lost - before.arcana_lost
        if supply != was_supply or lost:
            note = f"supply {was_supply} -> {supply}"
            if lost:
                note += f", {lost} lost over the cap ({_ARCANA_RULE})"
            amount = supply - was_supply
            entry = (event_id, seq, pid, _ARCANA, "arcana", amount, _ARCANA_RULE, note)
            entries.append(_tuple_new(LedgerEntry, entry))
            if amount:
                note = f"arcana {was_supply} -> {supply} VP"
                entry = (event_id, seq, pid, _VP, "arcana", amount, _ARCANA_RULE, note)
                entries.append(_tuple_new(LedgerEntry, entry))
        if (
            after.trials is before.trials
            and after.contracts is before.contracts
            and after.reserved_contracts is before.reserved_contracts
            and after.tomes is before.tomes
            and after.wounds is before.wounds
            and after.marks is before.marks
            and after.goals is before.goals
        ):
            continue  # the seven card categories read none of what changed
        was, now = _card_vp_change(old, new, pid, before, after)
        for i in compress(_INDEXES, map(ne, was, now)):  # the categories that changed
            key, was_vp, now_vp = CARD_CATEGORIES[i], was[i], now[i]
            note = f"{key} {was_vp} -> {now_vp} VP"
            entry = (event_id, seq, pid, _VP, key, now_vp - was_vp, _RULES[i], note)
            entries.append(_tuple_new(LedgerEntry, entry))
    return tuple(entries)


def _card_vp_change(
    old: PenumbraState, new: PenumbraState, pid: str, before: Tableau, after: Tableau
) -> tuple[CardVp, CardVp]:
    """`card_vp` of the player's tableau `before` (in `old`) and `after` (in `new`), from the
    memo's last (tableau, VP) of the player under the same options: only the categories whose
    inputs were replaced since are computed (`card_vp_since`; an event changing the supply or
    the final turn alone leaves the memo as it was: its card fields are still `before`'s)."""
    options, memo = new.options, new.memo
    key = ("vp", pid)
    kept = memo.latest(key)
    if kept is not None and kept[0][1] is options and old.options is options:
        (t0, _), was = kept
        if t0 is not before:
            was = card_vp_since(before, options, t0, was)
    else:
        was = card_vp(before, old.options)
    now = card_vp_since(after, options, before, was)
    memo.put(key, (after, options), now)
    return was, now
