"""Handlers of Trial and Contract events: each returns the new state or raises `RuleViolation`.

A card id is one physical card, in one place at a time: a Trial or Contract reserved by one
player cannot be reserved, completed or fulfilled by another, and one completed or fulfilled
is gone (EC-23). Sources: docs/rules/penumbra.md#trials, #reserved-contracts, #fate; S1 erratum (one
reserved Trial); docs/rules/penumbra.md#reserved-contracts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from contracts.penumbra import (
    ContractFulfilled,
    ContractReservationRemoved,
    ContractReserved,
    TrialCompleted,
    TrialReservationCleared,
    TrialReserved,
)
from domain.errors import RuleViolation
from domain.penumbra.categories import RESERVED_TRIAL
from domain.penumbra.play import tableau_of
from domain.penumbra.state import Card, PenumbraState, changed, xp_counts
from domain.values import replace, with_dict

if TYPE_CHECKING:
    from typing import Any


def _card(f: dict[str, Any], card_id: str) -> Card:
    """The card of a payload's fields (`f`, its `__dict__`: a pydantic attribute read is slow,
    docs/profiles/fold-event-cost.md), built as `with_dict` builds copies (a frozen
    dataclass's `__init__` sets each field through `object.__setattr__`)."""
    xp = xp_counts(f["xp"])
    fields = {"card_id": card_id, "vp": f["vp"], "xp": xp, "light": f["light"], "dark": f["dark"]}
    return with_dict(Card, fields)


def _trial_holder(state: PenumbraState, trial_id: str) -> tuple[str | None, bool]:
    """(the first player in seat order who reserved it or None, whether anyone completed it).
    Plain loops: two generators over every tableau cost more than the scan itself."""
    reserver = None
    done = False
    for pid, t in state.tableaux.items():
        if reserver is None and t.reserved_trial == trial_id:
            reserver = pid
        if not done:
            for c in t.trials:
                if c.card_id == trial_id:
                    done = True
                    break
    return reserver, done


def trial_reserved(state: PenumbraState, p: TrialReserved) -> PenumbraState:
    """Reserve a Trial. Raises `penumbra.trial.one_reserved` if one is open (S1 erratum, EC-8),
    `penumbra.trial.already_completed`, `penumbra.trial.reserved_by_other`."""
    f = p.__dict__  # the payload's fields, each read once (a pydantic attribute read is slow)
    pid, trial_id = f["player_id"], f["trial_id"]
    t = tableau_of(state, pid)
    if t.reserved_trial is not None:
        raise RuleViolation(
            "penumbra.trial.one_reserved",
            f"{pid} already has Trial {t.reserved_trial} reserved ({RESERVED_TRIAL})",
            "payload.trial_id",
        )
    reserver, done = _trial_holder(state, trial_id)
    if done:
        raise RuleViolation(
            "penumbra.trial.already_completed",
            f"Trial {trial_id} is already completed",
            "payload.trial_id",
        )
    if reserver is not None:
        raise RuleViolation(
            "penumbra.trial.reserved_by_other",
            f"Trial {trial_id} is reserved by {reserver}",
            "payload.trial_id",
        )
    return state.with_tableau(pid, changed(t, "reserved_trial", trial_id))


def trial_reservation_cleared(state: PenumbraState, p: TrialReservationCleared) -> PenumbraState:
    """Give up the reserved Trial (0 VP either way, EC-7). Raises `penumbra.trial.not_reserved`."""
    t = tableau_of(state, p.player_id)
    if t.reserved_trial != p.trial_id:
        raise RuleViolation(
            "penumbra.trial.not_reserved",
            f"{p.player_id} has not reserved Trial {p.trial_id}",
            "payload.trial_id",
        )
    return state.with_tableau(p.player_id, replace(t, reserved_trial=None))


def trial_completed(state: PenumbraState, p: TrialCompleted) -> PenumbraState:
    """Complete a Trial: it joins the player's Trials and clears the reservation.

    Raises: `penumbra.trial.completed_twice` (EC-23); `penumbra.trial.not_the_reserved_one`
    when another Trial is reserved (S1: only that one may be attempted);
    `penumbra.trial.reserved_by_other`.
    """
    f = p.__dict__  # the payload's fields, each read once (a pydantic attribute read is slow)
    pid, trial_id = f["player_id"], f["trial_id"]
    t = tableau_of(state, pid)
    reserver, done = _trial_holder(state, trial_id)
    if done:
        raise RuleViolation(
            "penumbra.trial.completed_twice",
            f"Trial {trial_id} is already completed",
            "payload.trial_id",
        )
    if t.reserved_trial not in (None, trial_id):
        raise RuleViolation(
            "penumbra.trial.not_the_reserved_one",
            f"{pid} has Trial {t.reserved_trial} reserved and may only attempt it ({RESERVED_TRIAL})",
            "payload.trial_id",
        )
    if reserver not in (None, pid):
        raise RuleViolation(
            "penumbra.trial.reserved_by_other",
            f"Trial {trial_id} is reserved by {reserver}",
            "payload.trial_id",
        )
    return state.with_tableau(
        pid, replace(t, trials=(*t.trials, _card(f, trial_id)), reserved_trial=None)
    )


def _contract_holder(state: PenumbraState, contract_id: str) -> tuple[str | None, bool]:
    """(player who reserved it or None, whether anyone fulfilled it). A Contract never reserved
    nor fulfilled by anyone has no printed values kept (`_remember`, `join.joined`): no scan."""
    if contract_id not in state.printed_contracts:
        return None, False
    reserver = None
    done = False
    for pid, t in state.tableaux.items():  # plain loops, as `_trial_holder`
        if reserver is None:
            for c in t.reserved_contracts:
                if c.card_id == contract_id:
                    reserver = pid
                    break
        if not done:
            for c in t.contracts:
                if c.card_id == contract_id:
                    done = True
                    break
    return reserver, done


def contract_reserved(state: PenumbraState, p: ContractReserved) -> PenumbraState:
    """Reserve a Contract (-3 VP while unfulfilled, rules line 28). Raises
    `penumbra.contract.already_fulfilled`, `penumbra.contract.already_reserved`,
    `penumbra.contract.reservation_disagrees` (payload.vp / xp / light / dark: the card was
    reserved before with other printed values)."""
    f = p.__dict__  # the payload's fields, each read once (a pydantic attribute read is slow)
    pid, contract_id = f["player_id"], f["contract_id"]
    t = tableau_of(state, pid)
    reserver, done = _contract_holder(state, contract_id)
    if done:
        raise RuleViolation(
            "penumbra.contract.already_fulfilled",
            f"Contract {contract_id} is fulfilled",
            "payload.contract_id",
        )
    if reserver is not None:
        raise RuleViolation(
            "penumbra.contract.already_reserved",
            f"Contract {contract_id} is reserved by {reserver}",
            "payload.contract_id",
        )
    card = _card(f, contract_id)
    _agrees_with_print(state, card, "penumbra.contract.reservation_disagrees")
    state = _remember(state, card)
    return state.with_tableau(pid, changed(t, "reserved_contracts", (*t.reserved_contracts, card)))


def contract_fulfilled(state: PenumbraState, p: ContractFulfilled) -> PenumbraState:
    """Fulfil a Contract with the values in the event; its reservation (and -3) ends (EC-5).
    A fulfilment of a card once reserved (still or no longer) must agree with the reservation's
    printed values, field by field; a card never reserved scores the values given.

    Raises: `penumbra.contract.fulfilled_twice` (EC-23), `penumbra.contract.reserved_by_other`,
    `penumbra.contract.fulfilment_disagrees` (payload.vp / xp / light / dark),
    `penumbra.contract.not_reserved` when `options.contract_reservation_required`.
    """
    f = p.__dict__  # the payload's fields, each read once (a pydantic attribute read is slow)
    pid, contract_id = f["player_id"], f["contract_id"]
    t = tableau_of(state, pid)
    reserver, done = _contract_holder(state, contract_id)
    if done:
        raise RuleViolation(
            "penumbra.contract.fulfilled_twice",
            f"Contract {contract_id} is already fulfilled",
            "payload.contract_id",
        )
    if reserver not in (None, pid):
        raise RuleViolation(
            "penumbra.contract.reserved_by_other",
            f"Contract {contract_id} is reserved by {reserver}",
            "payload.contract_id",
        )
    if reserver is None and state.options.contract_reservation_required:
        raise RuleViolation(
            "penumbra.contract.not_reserved",
            f"{pid} must reserve Contract {contract_id} first",
            "payload.contract_id",
        )
    card = _card(f, contract_id)
    _agrees_with_print(state, card, "penumbra.contract.fulfilment_disagrees")
    state = _remember(state, card)
    reserved = tuple(c for c in t.reserved_contracts if c.card_id != contract_id)
    return state.with_tableau(
        pid, replace(t, contracts=(*t.contracts, card), reserved_contracts=reserved)
    )


def _agrees_with_print(state: PenumbraState, card: Card, rule: str) -> None:
    """A Contract reserved or fulfilled again repeats the printed values it was first seen
    with, even after its reservation was removed: one card, one set of values (rules line 26:
    the VP "on" the fulfilled Contracts; research §8: the reservation carries the printed
    vp/xp/light/dark). Raises `rule` (`penumbra.contract.fulfilment_disagrees` /
    `penumbra.contract.reservation_disagrees`) naming payload.vp / xp / light / dark."""
    printed = state.printed_contracts.get(card.card_id)
    if printed is None or printed == card:  # the usual case: the same card, field for field
        return
    for name in ("vp", "xp", "light", "dark"):
        was, now = getattr(printed, name), getattr(card, name)
        if was != now:
            raise RuleViolation(
                rule,
                f"Contract {card.card_id} was reserved with {name} {was}, now given {now}; "
                "repeat the card's printed values",
                f"payload.{name}",
            )


def _remember(state: PenumbraState, card: Card) -> PenumbraState:
    if card.card_id in state.printed_contracts:
        return state
    return replace(state, printed_contracts={**state.printed_contracts, card.card_id: card})


def contract_reservation_removed(
    state: PenumbraState, p: ContractReservationRemoved
) -> PenumbraState:
    """Drop a reserved Contract unfulfilled: its -3 goes (EC-6).

    Raises `penumbra.contract.not_reserved`."""
    t = tableau_of(state, p.player_id)
    reserved = tuple(c for c in t.reserved_contracts if c.card_id != p.contract_id)
    if len(reserved) == len(t.reserved_contracts):
        raise RuleViolation(
            "penumbra.contract.not_reserved",
            f"{p.player_id} has not reserved Contract {p.contract_id}",
            "payload.contract_id",
        )
    return state.with_tableau(p.player_id, replace(t, reserved_contracts=reserved))
