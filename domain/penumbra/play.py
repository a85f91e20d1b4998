"""Handlers of Arcana, Tome, Mortal Wound, Mark and Goal events: each takes the state and a
payload and returns the new state, or raises `RuleViolation` (state is immutable, so nothing
changes on a rejection). Sources: docs/rules/penumbra.md#arcana, #mortal-wounds, #experience, #board, #goals; S1
(Arcana cap); docs/rules/penumbra.md#reserved-contracts. Trials and Contracts: `domain.penumbra.cards`.
"""

from __future__ import annotations

from contracts.penumbra import (
    ArcanaGained,
    ArcanaSpent,
    GoalRevoked,
    GoalScored,
    MarkPlaced,
    MarkRemoved,
    MortalWoundRemoved,
    MortalWoundTaken,
    TomeGained,
    TomeLost,
)
from domain.errors import RuleViolation
from domain.penumbra.state import Mark, PenumbraState, Tableau, xp_counts
from domain.values import replace, with_dict


def tableau_of(state: PenumbraState, player_id: str) -> Tableau:
    """The player's tableau. Raises RuleViolation `penumbra.player.unknown`."""
    try:
        return state.tableaux[player_id]
    except KeyError:
        raise RuleViolation(
            "penumbra.player.unknown", f"no player {player_id!r} in this game", "payload.player_id"
        ) from None


def arcana_gained(state: PenumbraState, p: ArcanaGained) -> PenumbraState:
    """Arcana into supply, clamped at `arcana_cap`; the overflow is lost (S1, EC-14, Ex 7)."""
    f = p.__dict__  # the payload's fields, each read once (a pydantic attribute read is slow)
    pid, amount = f["player_id"], f["amount"]
    t = tableau_of(state, pid)
    cap = state.options.__dict__["arcana_cap"]  # pydantic: the fields dict, one slow read
    kept = min(amount, cap - t.arcana)
    lost = amount - kept
    fields = {**t.__dict__}  # `replace` spelt out: no keyword call (a third of the events)
    fields["arcana"] = t.arcana + kept
    fields["arcana_lost"] = t.arcana_lost + lost
    return state.with_tableau(pid, with_dict(Tableau, fields))


def arcana_spent(state: PenumbraState, p: ArcanaSpent) -> PenumbraState:
    """Arcana out of supply. Raises `penumbra.arcana.not_enough` beyond the supply."""
    f = p.__dict__  # the payload's fields, each read once (a pydantic attribute read is slow)
    pid, amount = f["player_id"], f["amount"]
    t = tableau_of(state, pid)
    if amount > t.arcana:
        raise RuleViolation(
            "penumbra.arcana.not_enough",
            f"{pid} has {t.arcana} Arcana, cannot spend {amount}",
            "payload.amount",
        )
    fields = {**t.__dict__}  # `replace` spelt out, as in `arcana_gained`
    fields["arcana"] = t.arcana - amount
    return state.with_tableau(pid, with_dict(Tableau, fields))


def tome_gained(state: PenumbraState, p: TomeGained) -> PenumbraState:
    """Gain a Tome (experience only, rules line 13). Raises `penumbra.tome.already_held`."""
    f = p.__dict__  # the payload's fields, each read once (a pydantic attribute read is slow)
    pid, tome_id = f["player_id"], f["tome_id"]
    t = tableau_of(state, pid)
    for other in state.tableaux.values():
        if tome_id in other.tomes:
            raise RuleViolation(
                "penumbra.tome.already_held", f"Tome {tome_id} is already held", "payload.tome_id"
            )
    return state.with_tableau(pid, replace(t, tomes={**t.tomes, tome_id: xp_counts(f["xp"])}))


def tome_lost(state: PenumbraState, p: TomeLost) -> PenumbraState:
    """Lose a Tome and its experience. Raises `penumbra.tome.not_held`."""
    t = tableau_of(state, p.player_id)
    if p.tome_id not in t.tomes:
        raise RuleViolation(
            "penumbra.tome.not_held", f"{p.player_id} holds no Tome {p.tome_id}", "payload.tome_id"
        )
    return state.with_tableau(
        p.player_id, replace(t, tomes={k: v for k, v in t.tomes.items() if k != p.tome_id})
    )


def mortal_wound_taken(state: PenumbraState, p: MortalWoundTaken) -> PenumbraState:
    """Take a Mortal Wound card (-3 VP, rules line 11). Raises `penumbra.wound.already_held`."""
    f = p.__dict__  # the payload's fields, each read once (a pydantic attribute read is slow)
    pid, card_id = f["player_id"], f["card_id"]
    t = tableau_of(state, pid)
    for other in state.tableaux.values():
        if card_id in other.wounds:
            raise RuleViolation(
                "penumbra.wound.already_held",
                f"Mortal Wound {card_id} is already held",
                "payload.card_id",
            )
    return state.with_tableau(pid, replace(t, wounds=(*t.wounds, card_id)))


def mortal_wound_removed(state: PenumbraState, p: MortalWoundRemoved) -> PenumbraState:
    """Remove a Mortal Wound card (+3 back, EC-19). Raises `penumbra.wound.not_held`."""
    t = tableau_of(state, p.player_id)
    if p.card_id not in t.wounds:
        raise RuleViolation(
            "penumbra.wound.not_held",
            f"{p.player_id} holds no Mortal Wound {p.card_id}",
            "payload.card_id",
        )
    return state.with_tableau(
        p.player_id, replace(t, wounds=tuple(w for w in t.wounds if w != p.card_id))
    )


def mark_placed(state: PenumbraState, p: MarkPlaced) -> PenumbraState:
    """Place a Mark (rules line 30; a Spark "Mark" scores 0, EC-17).

    Raises `penumbra.mark.slot_taken`."""
    f = p.__dict__  # the payload's fields, each read once (a pydantic attribute read is slow)
    pid, slot_id = f["player_id"], f["slot_id"]
    t = tableau_of(state, pid)
    for m in t.marks:
        if m.slot_id == slot_id:
            raise RuleViolation(
                "penumbra.mark.slot_taken",
                f"{pid} already has a Mark on {slot_id}",
                "payload.slot_id",
            )
    return state.with_tableau(
        pid, replace(t, marks=(*t.marks, Mark(slot_id, f["vp_under"], f["spark"])))
    )


def mark_removed(state: PenumbraState, p: MarkRemoved) -> PenumbraState:
    """Take a Mark off its slot. Raises `penumbra.mark.no_mark`."""
    t = tableau_of(state, p.player_id)
    marks = tuple(m for m in t.marks if m.slot_id != p.slot_id)
    if len(marks) == len(t.marks):
        raise RuleViolation(
            "penumbra.mark.no_mark", f"{p.player_id} has no Mark on {p.slot_id}", "payload.slot_id"
        )
    return state.with_tableau(p.player_id, replace(t, marks=marks))


def goal_scored(state: PenumbraState, p: GoalScored) -> PenumbraState:
    """Score an active Goal card (rules line 32). Raises `penumbra.goal.scored_twice`."""
    f = p.__dict__  # the payload's fields, each read once (a pydantic attribute read is slow)
    pid, goal_id = f["player_id"], f["goal_id"]
    t = tableau_of(state, pid)
    if goal_id in t.goals:
        raise RuleViolation(
            "penumbra.goal.scored_twice",
            f"{pid} already scored Goal {goal_id}",
            "payload.goal_id",
        )
    return state.with_tableau(pid, replace(t, goals={**t.goals, goal_id: f["vp"]}))


def goal_revoked(state: PenumbraState, p: GoalRevoked) -> PenumbraState:
    """A Goal no longer active or met: 0 VP (EC-25). Raises `penumbra.goal.not_scored`."""
    t = tableau_of(state, p.player_id)
    if p.goal_id not in t.goals:
        raise RuleViolation(
            "penumbra.goal.not_scored",
            f"{p.player_id} has not scored Goal {p.goal_id}",
            "payload.goal_id",
        )
    return state.with_tableau(
        p.player_id, replace(t, goals={k: v for k, v in t.goals.items() if k != p.goal_id})
    )
