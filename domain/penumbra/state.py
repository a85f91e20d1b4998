"""The Penumbra ruleset's state: one `Tableau` per player plus the game's end-game clock.

Every value is frozen; a handler returns a new state with `domain.values.replace`. The state holds
exactly what the end-game tally (docs/rules/penumbra.md#categories) reads, so each
category is a function of it (see `domain.penumbra.categories`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TypeVar

from contracts.penumbra import EXPERIENCE_KINDS, Experience, PenumbraOptions
from domain.memo import Memo
from domain.values import with_dict

T = TypeVar("T")

XpCounts = tuple[int, int, int, int, int, int]
"""Experience symbols per kind, in the order XP1..XP6."""

NO_XP: XpCounts = (0, 0, 0, 0, 0, 0)


_XP1, _XP2, _XP3, _XP4, _XP5, _XP6 = EXPERIENCE_KINDS


def xp_counts(xp: Experience) -> XpCounts:
    """A payload's kind -> count mapping as counts in XP1..XP6 order."""
    get = xp.get  # six reads spelt out: a generator cost more than the reads (per card event)
    return (get(_XP1, 0), get(_XP2, 0), get(_XP3, 0), get(_XP4, 0), get(_XP5, 0), get(_XP6, 0))


def add_xp(left: XpCounts, right: XpCounts) -> XpCounts:
    """Kind-wise sum of two experience counts."""
    a, b, c, d, e, f = (x + y for x, y in zip(left, right, strict=True))
    return (a, b, c, d, e, f)


def changed(obj: T, name: str, value: object) -> T:
    """A copy of the frozen state value `obj` with field `name` set to `value`: `values.replace`
    for one field, without its keyword call and name check (the moves name their fields; a
    move per event, docs/profiles/fold-event-cost.md). `name` must be a field of `obj`."""
    fields = {**obj.__dict__}
    fields[name] = value
    return with_dict(type(obj), fields)


@dataclass(frozen=True)
class Card:
    """A completed Trial or a Contract (fulfilled or reserved): VP, experience, Light, Dark."""

    card_id: str
    vp: int
    xp: XpCounts = NO_XP
    light: int = 0
    dark: int = 0


@dataclass(frozen=True)
class Mark:
    """A Mark on the Wizard board: its slot, the VP printed under it, whether a Spark "Mark"."""

    slot_id: str
    vp_under: int
    spark: bool = False


@dataclass(frozen=True)
class Tableau:
    """One player's scoring-relevant holdings.

    Attributes:
        arcana: Arcana in supply (0..arcana_cap); arcana_lost: Arcana lost over the cap (S1).
        trials: completed Trials; reserved_trial: the open Trial reservation (max one, S1).
        contracts: fulfilled Contracts; reserved_contracts: reserved and not yet fulfilled.
        tomes: Tome id -> its experience; wounds: Mortal Wound card ids held.
        marks: Marks on the Wizard board (Spark "Marks" included, flagged).
        goals: Goal id -> VP adjudicated for it.
        final_turn_taken: the one more turn after the Prophecy has been taken (rules line 1).
    """

    arcana: int = 0
    arcana_lost: int = 0
    trials: tuple[Card, ...] = ()
    reserved_trial: str | None = None
    contracts: tuple[Card, ...] = ()
    reserved_contracts: tuple[Card, ...] = ()
    tomes: Mapping[str, XpCounts] = field(default_factory=dict)
    wounds: tuple[str, ...] = ()
    marks: tuple[Mark, ...] = ()
    goals: Mapping[str, int] = field(default_factory=dict)
    final_turn_taken: bool = False


@dataclass(frozen=True)
class Prophecy:
    """The Prophecy whose condition ended the game's normal play (rules line 1)."""

    prophecy_id: str
    by_player: str
    turn: int


@dataclass(frozen=True)
class PenumbraState:
    """The whole ruleset state.

    Attributes:
        options: the game's ruleset options (REC defaults, docs/rules/penumbra.md).
        seats: player ids in seat order; tableaux: player id -> `Tableau`.
        turn: the last `game.turn_started` turn (0 before the first).
        prophecy: the triggering Prophecy, once one has triggered.
        printed_contracts: Contract id -> the printed values it was first reserved or
            fulfilled with (one card, one set of values; see `domain.penumbra.cards`).
    """

    options: PenumbraOptions
    seats: tuple[str, ...]
    tableaux: Mapping[str, Tableau]
    turn: int = 0
    prophecy: Prophecy | None = None
    printed_contracts: Mapping[str, Card] = field(default_factory=dict)
    memo: Memo = field(default_factory=Memo, compare=False, repr=False, hash=False)
    """Derived values kept per player while their tableau is unchanged (domain.memo); shared by
    every state of the game (copied along by `replace`), never part of the state's value."""

    def with_tableau(self, player_id: str, tableau: Tableau) -> PenumbraState:
        """A copy with one player's tableau replaced (once per event: `replace` inlined)."""
        tableaux = dict(self.tableaux)
        tableaux[player_id] = tableau
        return with_dict(PenumbraState, {**self.__dict__, "tableaux": tableaux})
