"""Trickerion event payloads (wire types `trickerion.*`): game_started, advertised,
trick_learned, character_hired, link_created, trick_yielded, performance_given,
resources_changed, endgame_inventory_declared. Turns use the common `game.turn_started` /
`game.initiative_changed`; the end is `game.ended`. Source: docs/rules/trickerion.md.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field, model_validator

from contracts.common import GameStartedBase, Player
from contracts.envelope import NonEmptyText, Payload, PlayerId
from contracts.trickerion.options import (
    ArcaneWorker,
    Character,
    Count,
    ExtraTrick,
    Frozen,
    JoinedInProgress,
    PerformanceCardId,
    ShapeshifterType,
    Specialist,
    TrickerionOptions,
    TrickId,
    Weekday,
)

MAX_PLAYERS = 4
"""Trickerion seats 1 to 4 players (the rule book's player count): the schema's bound and the
rules' (`domain.trickerion.state.start_state`), one constant."""


class TrickerionGameStarted(GameStartedBase):
    """A Trickerion game starts: 1 to 4 players (each with a starting `initiative` 1..N) and
    options; `joined_in_progress` when scoring starts mid-game (see `JoinedInProgress`)."""

    TYPE: ClassVar[str] = "trickerion.game_started"
    players: tuple[Player, ...] = Field(min_length=1, max_length=MAX_PLAYERS)
    options: TrickerionOptions = TrickerionOptions()
    joined_in_progress: JoinedInProgress | None = None
    extra_tricks: tuple[ExtraTrick, ...] = Field(default=(), max_length=24)
    """Trick cards outside the catalog used at this table, recorded for replay (`ExtraTrick`)."""


class Advertised(Payload):
    """A player Advertises: pays Coins equal to their initiative position, gains 2 Fame.

    Once per turn (docs/rules/trickerion.md#advertise). `coins_paid` must equal the position.
    """

    TYPE: ClassVar[str] = "trickerion.advertised"
    player_id: PlayerId
    coins_paid: int = Field(ge=1, le=8, strict=True)


class TrickLearned(Payload):
    """A player learns a Trick card, paying `coins_paid` Coins (below its Fame threshold; docs/rules/trickerion.md#other-sources).

    Level 3 tricks need the Dark Alley (docs/rules/trickerion.md#base-game).
    """

    TYPE: ClassVar[str] = "trickerion.trick_learned"
    player_id: PlayerId
    trick_id: TrickId
    coins_paid: Count = 0


class CharacterHired(Payload):
    """A player hires a character (Protégé needs the Academy; Arcane workers need Arcane Arts)."""

    TYPE: ClassVar[str] = "trickerion.character_hired"
    player_id: PlayerId
    character: Character
    coins_paid: Count = 0


class LinkCreated(Payload):
    """A placed Trick marker completes a Link (docs/rules/trickerion.md#create-a-link).

    The placer gains 1/2/3 Fame or Coins (`reward`) for the placed trick's Level 1/2/3. A
    `shard_link` also pays 1 Shard to each connected Trick owner: the placer and
    `other_owner_id`, the owner of the other marker (see option `shard_link_same_owner`).
    """

    TYPE: ClassVar[str] = "trickerion.link_created"
    player_id: PlayerId
    trick_id: TrickId
    reward: Literal["fame", "coins"]
    shard_link: bool = False
    other_owner_id: PlayerId


class TrickYielded(Payload):
    """One Trick marker on a performed card pays its owner the trick's printed yield.

    One event per marker, before the card's `trickerion.performance_given` (yields come first:
    docs/rules/trickerion.md#performance-order). `fame` / `coins` / `shards`, when given, must equal the
    catalog yield (with the weekday modifier when `weekday_yield_modifiers` is on; `weekday`
    is then required).
    """

    TYPE: ClassVar[str] = "trickerion.trick_yielded"
    owner_id: PlayerId
    trick_id: TrickId
    performance_card_id: PerformanceCardId
    weekday: Weekday | None = None
    fame: Count | None = None
    coins: Count | None = None
    shards: Count | None = None


class PerformanceGiven(Payload):
    """A magician performs a card: 1 Fame per Link on it, its printed bonus, backstage specialists.

    `links` (<= the card's printed Links) counts every Link on the card now, whoever formed it.
    `specialists_behind`: the performer's specialists backstage (Assistant +2 Fame, Manager
    +3 Coins, Engineer +1 Shard). `bonus_*`, when given, must equal the card's printed bonus.
    Source: docs/rules/trickerion.md#perform-a-linked-card, #performance-card and
    #theater-specialists.
    """

    TYPE: ClassVar[str] = "trickerion.performance_given"
    performer_id: PlayerId
    performance_card_id: PerformanceCardId
    links: int = Field(ge=0, le=10, strict=True)
    specialists_behind: tuple[Specialist, ...] = Field(default=(), max_length=32)
    bonus_fame: Count | None = None
    bonus_coins: Count | None = None
    bonus_shards: Count | None = None

    @model_validator(mode="after")
    def _unique_specialists(self) -> PerformanceGiven:
        if len(set(self.specialists_behind)) != len(self.specialists_behind):
            raise ValueError("specialists_behind: each specialist at most once")
        return self


ResourceReason = Literal[
    "wages",
    "arcane_wages",
    "purchase",
    "bank",
    "assignment",
    "prophecy",
    "magician",
    "renovate",
    "contraption",
    "enhance",
    "other",
]
"""Why Fame / Coins / Shards changed outside the seed's rows (docs/rules/trickerion.md#other-sources): wages, Market Row, Bank, Special Assignments, prophecies, abilities, Academy..."""


class ResourcesChanged(Payload):
    """Any other change of Fame / Coins / Shards (signed amounts), with its `reason`.

    `wages` with too few Coins: under `negative_coins="never"` the player pays what they have
    and loses `unpaid_coin_fame_penalty` Fame per unpaid Coin (docs/rules/trickerion.md#during-play).
    """

    TYPE: ClassVar[str] = "trickerion.resources_changed"
    player_id: PlayerId
    fame: int = Field(default=0, ge=-200, le=200, strict=True)
    coins: int = Field(default=0, ge=-200, le=200, strict=True)
    shards: int = Field(default=0, ge=-50, le=50, strict=True)
    reason: ResourceReason
    note: NonEmptyText | None = None

    @model_validator(mode="after")
    def _some_change(self) -> ResourcesChanged:
        if not (self.fame or self.coins or self.shards):
            raise ValueError("fame, coins, shards: at least one must be non-zero")
        return self


class Level3Holding(Frozen):
    """A Level 3 trick at game end: components met in the Workshop, Trick markers on the card,
    markers on Performance cards (count only with `markers_on_performance_cards_count`)."""

    trick_id: TrickId
    components_met: bool
    markers: Count = 0
    performance_markers: Count = 0


class EndgameInventoryDeclared(Payload):
    """What one player holds at game end (one per player, in the final turn, before `game.ended`).

    Fields: `special_assignments_in_hand` (unused Special cards; docs/rules/trickerion.md#end-special-assignments), `apprentices` (hired,
    including the Assistant's free one; not the Magician; docs/rules/trickerion.md#characters), `specialists`, `protege`,
    `arcane_workers`, `shapeshifter_as` (the declared type), `level3_tricks` (every Level 3
    trick owned), `set_aside_trick_ids` (Professor Bernard: not owned for scoring),
    `workshop_trick_markers` (markers on own Trick cards, T45), `*_components` (Workshop
    components by tier, Manager bonus included; T10/T21/T23), `academy_banners`,
    `contraption_shards` (Dawn of Technology), `arcane_shards` (Arcane Arts).
    Loose Coins and Shards are not declared: they are the ledger's.
    """

    TYPE: ClassVar[str] = "trickerion.endgame_inventory_declared"
    player_id: PlayerId
    special_assignments_in_hand: Count = 0
    apprentices: Count = 0
    specialists: tuple[Specialist, ...] = Field(default=(), max_length=32)
    protege: bool = False
    arcane_workers: tuple[ArcaneWorker, ...] = Field(default=(), max_length=32)
    shapeshifter_as: ShapeshifterType | None = None
    level3_tricks: tuple[Level3Holding, ...] = Field(default=(), max_length=32)
    set_aside_trick_ids: tuple[TrickId, ...] = Field(default=(), max_length=32)
    workshop_trick_markers: Count = 0
    basic_components: Count = 0
    advanced_components: Count = 0
    superior_components: Count = 0
    academy_banners: int = Field(default=0, ge=0, le=12, strict=True)
    contraption_shards: Count = 0
    arcane_shards: Count = 0

    @model_validator(mode="after")
    def _consistent(self) -> EndgameInventoryDeclared:
        if len(set(self.specialists)) != len(self.specialists):
            raise ValueError("specialists: each specialist at most once")
        ids = [h.trick_id for h in self.level3_tricks]
        if len(set(ids)) != len(ids):
            raise ValueError("level3_tricks: each trick at most once")
        if self.shapeshifter_as is not None and "shapeshifter" not in self.arcane_workers:
            raise ValueError("shapeshifter_as: needs a shapeshifter in arcane_workers")
        return self


TRICKERION_PAYLOADS: tuple[type[Payload], ...] = (
    TrickerionGameStarted,
    Advertised,
    TrickLearned,
    CharacterHired,
    LinkCreated,
    TrickYielded,
    PerformanceGiven,
    ResourcesChanged,
    EndgameInventoryDeclared,
)
