"""Joining a Penumbra game in progress: the declared round, VP, Arcana, experience, Light /
Dark, open Contract reservations, Mortal Wounds and the reserved Trial become the starting
tableaux and ledger entries citing docs/rules/penumbra.md#joined-in-progress, so a later fulfilment,
removal or Trial scores as it would have.

The declared symbols sit on one pseudo-card per player (id `(joined)`, which no card id can be:
contracts.penumbra.CardId), so experience sets and Fate keep counting from them (rules lines
13-24, 34-40); VP they do not explain goes to the category `joined`. Arcana above the cap
cannot be held (docs/rules/penumbra.md#categories).
"""

from __future__ import annotations

from contracts.envelope import Envelope
from contracts.penumbra import PenumbraJoinedInProgress
from domain.errors import RuleViolation
from domain.ledger import LedgerEntry, Resource
from domain.penumbra.categories import JOINED
from domain.penumbra.state import Card, PenumbraState, xp_counts
from domain.values import replace

JOIN_RULE = JOINED
"""The citation of every ledger entry a join declares."""
PLAYERS = "payload.joined_in_progress.players"
JOINED_CARD = "(joined)"


def joined(state: PenumbraState, join: PenumbraJoinedInProgress) -> PenumbraState:
    """The tableaux and round after a join (VP outside Arcana, experience and Fate is not held
    in a tableau: see `joined_entries`).

    Raises:
        RuleViolation: `penumbra.join.players` / `penumbra.join.arcana_over_cap` /
            `penumbra.join.card_held_twice` naming `payload.joined_in_progress.players`.
    """
    ids = [w.player_id for w in join.players]
    if sorted(ids) != sorted(state.seats):
        raise RuleViolation(
            "penumbra.join.players",
            f"declare every player once: {sorted(state.seats)}, got {ids}",
            PLAYERS,
        )
    tableaux = dict(state.tableaux)
    for w in join.players:
        if w.arcana > state.options.arcana_cap:
            raise RuleViolation(
                "penumbra.join.arcana_over_cap",
                f"{w.player_id}: {w.arcana} Arcana, a supply holds {state.options.arcana_cap}",
                PLAYERS,
            )
        card = Card(JOINED_CARD, 0, xp_counts(w.xp), w.light, w.dark)
        reserved = tuple(
            Card(c.contract_id, c.vp, xp_counts(c.xp), c.light, c.dark)
            for c in w.reserved_contracts
        )
        tableaux[w.player_id] = replace(
            tableaux[w.player_id],
            arcana=w.arcana,
            trials=(card,),
            reserved_contracts=reserved,
            wounds=w.mortal_wounds,
            reserved_trial=w.reserved_trial,
        )
    _each_card_once(join)
    printed = {c.card_id: c for t in tableaux.values() for c in t.reserved_contracts}
    return replace(state, tableaux=tableaux, turn=join.turn, printed_contracts=printed)


def _each_card_once(join: PenumbraJoinedInProgress) -> None:
    """A card is in one place: one reserved Contract, Mortal Wound or reserved Trial id is
    declared once over all players (docs/rules/penumbra.md#categories)."""
    ids = [
        card
        for w in join.players
        for card in (
            *(c.contract_id for c in w.reserved_contracts),
            *w.mortal_wounds,
            *((w.reserved_trial,) if w.reserved_trial else ()),
        )
    ]
    twice = sorted({card for card in ids if ids.count(card) > 1})
    if twice:
        raise RuleViolation(
            "penumbra.join.card_held_twice", f"each card is in one place: {twice}", PLAYERS
        )


def joined_entries(
    entries: tuple[LedgerEntry, ...], join: PenumbraJoinedInProgress, event: Envelope
) -> tuple[LedgerEntry, ...]:
    """`entries` (the category changes from empty tableaux to the joined ones) under the join
    rule, plus one `joined` VP entry per player for the declared VP they do not explain."""
    note = f"joined in round {join.turn}"
    out = [e._replace(rule=JOIN_RULE, note=f"{note}: {e.note}") for e in entries]
    for w in join.players:
        explained = sum(
            e.amount for e in entries if e.player_id == w.player_id and e.resource is Resource.VP
        )
        if w.vp != explained:
            out.append(
                LedgerEntry(
                    event.event_id,
                    event.seq,
                    w.player_id,
                    Resource.VP,
                    "joined",
                    w.vp - explained,
                    JOIN_RULE,
                    f"{note}: declared {w.vp} VP, {explained} from Arcana, experience and Fate",
                )
            )
    return tuple(out)
