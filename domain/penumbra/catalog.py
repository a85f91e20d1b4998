"""The fixed VP of the Penumbra tally, read from the catalogue the schemas are built from.

`contracts/catalogue/penumbra/cards.json` holds the card kinds the events name, the bounds of
their values and the VP the rules fix (docs/rules/penumbra.md#categories); the contracts take
their bounds from it (`contracts.penumbra.CARDS`) and the tally its amounts, so one file serves
both.
"""

from __future__ import annotations

from contracts.penumbra import CARDS

_FIXED = CARDS["fixed_vp"]

MORTAL_WOUND_VP: int = _FIXED["mortal_wound_each"]
"""Each Mortal Wound card held (docs/rules/penumbra.md#mortal-wounds): -3."""

RESERVED_CONTRACT_VP: int = _FIXED["reserved_contract_each"]
"""A Contract reserved and not fulfilled (docs/rules/penumbra.md#reserved-contracts): -3."""

SIX_DIFFERENT_SET_VP: int = _FIXED["six_different_set"]
"""Each set of six different experience symbols (docs/rules/penumbra.md#experience): 7."""

IDENTICAL_SET_VP: tuple[int, ...] = tuple(_FIXED["identical_set"])
"""VP of n identical symbols of one kind for n = 0..5 (docs/rules/penumbra.md#experience)."""

CARD_KINDS: tuple[str, ...] = tuple(k["kind"] for k in CARDS["kinds"])
"""The kinds of card the events name (trial, contract, tome, mortal_wound, board_slot, goal,
prophecy)."""
