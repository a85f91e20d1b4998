"""Penumbra: Trials of Arcana event payloads (wire types `penumbra.*`).

Score unit: VP (победные очки). What the events carry is exactly what the end-game tally of
`docs/rules/penumbra.md` needs: Arcana in supply, completed Trials, Mortal Wounds,
experience symbols, fulfilled / reserved Contracts, Marks on the Wizard board, Goals, Light and
Dark. The rules print no list of cards (docs/rules/penumbra.md#categories), so each event carries
the card's printed or realised values; the kinds of card, the values' bounds and the fixed VP are
catalogue data in `contracts/catalogue/penumbra/cards.json`, read here and by `domain.penumbra`. Turns use the common `game.turn_started`; the end is the common `game.ended`.
Source: docs/rules/penumbra.md (the events' printed values: #reserved-contracts; the open readings as options).
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator

from contracts import catalogue
from contracts.common import GameStartedBase, Player
from contracts.envelope import NonEmptyText, Payload, PlayerId

ExperienceKind = Literal["XP1", "XP2", "XP3", "XP4", "XP5", "XP6"]
"""One of the six experience symbol kinds: opaque ids, names in options
(docs/rules/penumbra.md#experience)."""

EXPERIENCE_KINDS: tuple[ExperienceKind, ...] = ("XP1", "XP2", "XP3", "XP4", "XP5", "XP6")
"""The kinds in order; equal to the catalogue's `experience_kinds` (a test checks it)."""

CARDS: dict[str, Any] = catalogue.read("penumbra", "cards.json")
"""The Penumbra catalogue (`contracts/catalogue/penumbra/cards.json`): card kinds, bounds, fixed VP."""

MAX_PLAYERS: int = CARDS["players"]["max"]
"""Penumbra seats 1 to 4 players (docs/rules/penumbra.md#end-of-game): the schema's bound and
the rules' (`domain.penumbra`), one catalogue value."""


def bounded(name: str, **extra: Any) -> Any:
    """A strict int `Field` bounded by the catalogue's `bounds[name]` (min..max)."""
    limits = CARDS["bounds"][name]
    return Field(ge=limits["min"], le=limits["max"], strict=True, **extra)


CardId = Annotated[str, StringConstraints(pattern=CARDS["card_id_pattern"])]
"""A card, slot or Prophecy id: 1-64 characters, letters, digits, `_ . : -` (the catalogue's
`card_id_pattern`; the rules print no card list, so ids are the table's own)."""

SymbolCount = Annotated[int, bounded("symbol_count")]
Experience = dict[ExperienceKind, SymbolCount]
"""Experience symbols on one card: kind -> count (a card with two of a kind counts 2,
docs/rules/penumbra.md#experience)."""

PrintedVp = Annotated[int, bounded("printed_vp")]
"""VP printed on a card; 0 is valid (docs/rules/penumbra.md#totals)."""


class PenumbraOptions(BaseModel):
    """Ruleset options recorded in `penumbra.game_started`; each default is the recommended
    reading (docs/rules/options.md#ruleset-options).

    Attributes:
        six_plus_identical: VP for 6+ identical experience symbols
            (docs/rules/penumbra.md#experience): `cap` (default: G(n>=5) = 9), `extrapolate`
            (quarter-squares, G(6) = 12), `chunk` (blocks of 5 plus the rest, G(6) = 9 + 1 = 10).
        reserved_contract_penalty: the -3 for a Contract reserved and not fulfilled
            (docs/rules/penumbra.md#reserved-contracts): `per_contract` (default: -3 each) or
            `once` (-3 in all if any is open).
        arcana_cap: Arcana a supply holds; gains above it are lost
            (docs/rules/penumbra.md#arcana).
        tie_break: a tie on total (docs/rules/penumbra.md#winner): `shared` (default: shared
            place) or `fewer_wounds_then_arcana` (fewer Mortal Wounds wins, then more Arcana).
        tie_break_ranks: `shared` (default: tied VP share the place in the ranks) or `ordered`
            (ranks follow `tie_break`; with `shared` there is nothing to order by,
            docs/rules/penumbra.md#winner).
        xp_on_unfulfilled: count experience symbols on reserved, unfulfilled Contracts (default
            false; the rules' experience line omits "fulfilled",
            docs/rules/penumbra.md#experience).
        contract_reservation_required: a Contract must be reserved before it is fulfilled
            (our decision, not a reading of the text: default false, since it is unverified
            that Contracts are reserved at all in print,
            docs/rules/penumbra.md#reserved-contracts).
        experience_names: display names of XP1..XP6 (names set per game; the printed names
            are not known, so the default names are the ids, docs/rules/penumbra.md#experience).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    six_plus_identical: Literal["cap", "extrapolate", "chunk"] = "cap"
    reserved_contract_penalty: Literal["per_contract", "once"] = "per_contract"
    arcana_cap: int = bounded("arcana_cap", default=CARDS["bounds"]["arcana_cap"]["default"])
    tie_break: Literal["shared", "fewer_wounds_then_arcana"] = "shared"
    tie_break_ranks: Literal["shared", "ordered"] = "shared"
    xp_on_unfulfilled: bool = False
    contract_reservation_required: bool = False
    experience_names: dict[ExperienceKind, NonEmptyText] = Field(
        default_factory=lambda: {k: str(k) for k in EXPERIENCE_KINDS}
    )

    @field_validator("experience_names")
    @classmethod
    def _all_six_named(cls, names: dict[ExperienceKind, str]) -> dict[ExperienceKind, str]:
        if set(names) != set(EXPERIENCE_KINDS):
            raise ValueError("experience_names: name each of XP1..XP6 exactly once")
        return names


class ContractNow(BaseModel):
    """A Contract reserved and not yet fulfilled when scoring joins, with the card's printed
    values (as `penumbra.contract_reserved` carries them): -3 VP while open
    (docs/rules/penumbra.md#reserved-contracts)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    contract_id: CardId
    vp: PrintedVp = 0
    xp: Experience = Field(default_factory=dict)
    light: SymbolCount = 0
    dark: SymbolCount = 0


class WizardNow(BaseModel):
    """One player's standing when scoring starts mid-game, as counted at the table
    (docs/rules/penumbra.md#joined-in-progress): total `vp` now (Arcana included), `arcana` in
    supply, experience symbols and Light / Dark obtained so far (so experience sets and Fate
    continue exactly, docs/rules/penumbra.md#experience, docs/rules/penumbra.md#fate), the
    Contracts reserved and open (`reserved_contracts`, so a later fulfilment lifts their -3,
    docs/rules/penumbra.md#reserved-contracts), the Mortal Wound cards held (`mortal_wounds`,
    so a later removal gives the 3 back, docs/rules/penumbra.md#mortal-wounds) and the Trial
    reserved (`reserved_trial`, docs/rules/penumbra.md#reserved-trial)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    player_id: PlayerId
    vp: int = Field(ge=-200, le=400, strict=True)
    arcana: int = Field(default=0, ge=0, le=99, strict=True)
    xp: Experience = Field(default_factory=dict)
    light: SymbolCount = 0
    dark: SymbolCount = 0
    reserved_contracts: tuple[ContractNow, ...] = Field(default=(), max_length=12)
    mortal_wounds: tuple[CardId, ...] = Field(default=(), max_length=12)
    reserved_trial: CardId | None = None


class PenumbraJoinedInProgress(BaseModel):
    """Scoring joins a game in progress: `turn` is the round being played (the next
    `game.turn_started` must be later), `players` every player's standing now. Each declared
    amount is a ledger entry under the rule `penumbra.joined_in_progress`; VP not explained by
    Arcana, experience and Fate lands in the category `joined`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    turn: int = Field(ge=1, le=99, strict=True)
    players: tuple[WizardNow, ...] = Field(min_length=1, max_length=MAX_PLAYERS)


class PenumbraGameStarted(GameStartedBase):
    """A Penumbra game starts (1-4 players,
    docs/rules/penumbra.md#end-of-game) with its ruleset options; `joined_in_progress`
    when scoring starts mid-game (see `PenumbraJoinedInProgress`)."""

    TYPE: ClassVar[str] = "penumbra.game_started"
    players: tuple[Player, ...] = Field(min_length=CARDS["players"]["min"], max_length=MAX_PLAYERS)
    options: PenumbraOptions = PenumbraOptions()
    joined_in_progress: PenumbraJoinedInProgress | None = None


class _PlayerEvent(Payload):
    player_id: PlayerId


class ArcanaGained(_PlayerEvent):
    """`amount` Arcana enter the player's supply; what exceeds the cap is lost
    (docs/rules/penumbra.md#arcana)."""

    TYPE: ClassVar[str] = "penumbra.arcana_gained"
    amount: int = bounded("arcana_amount")
    reason: str | None = Field(default=None, max_length=200)


class ArcanaSpent(_PlayerEvent):
    """`amount` Arcana leave the supply; more than the supply holds is rejected."""

    TYPE: ClassVar[str] = "penumbra.arcana_spent"
    amount: int = bounded("arcana_amount")
    reason: str | None = Field(default=None, max_length=200)


class TrialReserved(_PlayerEvent):
    """The player reserves a Trial; at most one open reservation
    (docs/rules/penumbra.md#reserved-trial)."""

    TYPE: ClassVar[str] = "penumbra.trial_reserved"
    trial_id: CardId


class TrialReservationCleared(_PlayerEvent):
    """The player's reserved Trial is given up (no VP effect: the rules are
    silent, docs/rules/penumbra.md#reserved-trial)."""

    TYPE: ClassVar[str] = "penumbra.trial_reservation_cleared"
    trial_id: CardId
    reason: NonEmptyText


class TrialCompleted(_PlayerEvent):
    """The player completes a Trial: its printed VP, experience symbols and the Light / Dark
    symbols actually obtained after the moral choice (docs/rules/penumbra.md#fate). Clears its
    reservation."""

    TYPE: ClassVar[str] = "penumbra.trial_completed"
    trial_id: CardId
    vp: PrintedVp
    xp: Experience = Field(default_factory=dict)
    light: SymbolCount = 0
    dark: SymbolCount = 0


class ContractReserved(_PlayerEvent):
    """The player reserves a Contract, with its printed values; -3 VP while unfulfilled."""

    TYPE: ClassVar[str] = "penumbra.contract_reserved"
    contract_id: CardId
    vp: PrintedVp = 0
    xp: Experience = Field(default_factory=dict)
    light: SymbolCount = 0
    dark: SymbolCount = 0


class ContractFulfilled(_PlayerEvent):
    """The player fulfils a Contract: VP, experience, Light / Dark; ends its reservation."""

    TYPE: ClassVar[str] = "penumbra.contract_fulfilled"
    contract_id: CardId
    vp: PrintedVp
    xp: Experience = Field(default_factory=dict)
    light: SymbolCount = 0
    dark: SymbolCount = 0


class ContractReservationRemoved(_PlayerEvent):
    """A reserved Contract leaves the player unfulfilled (discarded, replaced): no -3
    (docs/rules/penumbra.md#reserved-contracts)."""

    TYPE: ClassVar[str] = "penumbra.contract_reservation_removed"
    contract_id: CardId
    reason: NonEmptyText


class TomeGained(_PlayerEvent):
    """The player gains a Tome with its experience symbols (Tomes give experience only)."""

    TYPE: ClassVar[str] = "penumbra.tome_gained"
    tome_id: CardId
    xp: Experience = Field(default_factory=dict)


class TomeLost(_PlayerEvent):
    """The player loses a Tome (whether this happens in play is unverified,
    docs/rules/penumbra.md#unconfirmed-losses)."""

    TYPE: ClassVar[str] = "penumbra.tome_lost"
    tome_id: CardId
    reason: NonEmptyText


class MortalWoundTaken(_PlayerEvent):
    """The player takes a Mortal Wound card (-3 VP while held)."""

    TYPE: ClassVar[str] = "penumbra.mortal_wound_taken"
    card_id: CardId


class MortalWoundRemoved(_PlayerEvent):
    """A Mortal Wound card leaves the player (+3 back; unverified in print,
    docs/rules/penumbra.md#mortal-wounds, docs/rules/penumbra.md#unconfirmed-losses)."""

    TYPE: ClassVar[str] = "penumbra.mortal_wound_removed"
    card_id: CardId
    reason: NonEmptyText


class MarkPlaced(_PlayerEvent):
    """A Mark goes on a slot of the Wizard board; `vp_under` is the VP printed under it (0 if
    none). `spark` marks a Spark "Mark", which is not a board Mark and scores 0
    (docs/rules/penumbra.md#board)."""

    TYPE: ClassVar[str] = "penumbra.mark_placed"
    slot_id: CardId
    vp_under: int = bounded("vp_under_mark", default=0)
    spark: bool = False


class MarkRemoved(_PlayerEvent):
    """A Mark leaves its slot (unverified in print,
    docs/rules/penumbra.md#unconfirmed-losses)."""

    TYPE: ClassVar[str] = "penumbra.mark_removed"
    slot_id: CardId
    reason: NonEmptyText


class GoalScored(_PlayerEvent):
    """A referee adjudicates that the player meets an active Goal card's condition: `vp` VP
    (the card list is unknown, docs/rules/penumbra.md#goals)."""

    TYPE: ClassVar[str] = "penumbra.goal_scored"
    goal_id: CardId
    vp: int = bounded("goal_vp")


class GoalRevoked(_PlayerEvent):
    """A Goal scored before no longer holds or is no longer active: 0 VP
    (docs/rules/penumbra.md#goals)."""

    TYPE: ClassVar[str] = "penumbra.goal_revoked"
    goal_id: CardId
    reason: NonEmptyText


class ProphecyTriggered(Payload):
    """A Prophecy's condition is met: every player, the trigger's too, takes one more turn;
    a second trigger during those final turns changes nothing
    (docs/rules/penumbra.md#end-of-game)."""

    TYPE: ClassVar[str] = "penumbra.prophecy_triggered"
    prophecy_id: CardId
    by_player: PlayerId


class FinalTurnTaken(_PlayerEvent):
    """The player has taken the one more turn owed after the Prophecy
    (docs/rules/penumbra.md#end-of-game)."""

    TYPE: ClassVar[str] = "penumbra.final_turn_taken"


PENUMBRA_PAYLOADS: tuple[type[Payload], ...] = (
    PenumbraGameStarted,
    ArcanaGained,
    ArcanaSpent,
    TrialReserved,
    TrialReservationCleared,
    TrialCompleted,
    ContractReserved,
    ContractFulfilled,
    ContractReservationRemoved,
    TomeGained,
    TomeLost,
    MortalWoundTaken,
    MortalWoundRemoved,
    MarkPlaced,
    MarkRemoved,
    GoalScored,
    GoalRevoked,
    ProphecyTriggered,
    FinalTurnTaken,
)
