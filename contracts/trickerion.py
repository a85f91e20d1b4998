"""Trickerion event payloads and the ruleset options recorded at game start.

Wire types (all `trickerion.*`): game_started, advertised, trick_learned, character_hired,
link_created, trick_yielded, performance_given, resources_changed, endgame_inventory_declared.
Turns use the common `game.turn_started` / `game.initiative_changed`; the end is `game.ended`.
Sources: docs/rules/trickerion.md (the specification, wins), and
docs/rules/trickerion.md (the rules and each recommended reading); the card data's sources are named in contracts/catalogue/trickerion/*.json.
"""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictInt,
    StringConstraints,
    WithJsonSchema,
    model_validator,
)

from contracts import catalogue
from contracts.common import GameStartedBase, Player
from contracts.envelope import NonEmptyText, Payload, PlayerId

TRICK_IDS = tuple(sorted(t["id"] for t in catalogue.read("trickerion", "tricks.json")["tricks"]))
"""The catalogue's Trick card ids (T01-T48), `contracts/catalogue/trickerion/tricks.json`."""
PERFORMANCE_CARD_IDS = tuple(
    sorted(p["id"] for p in catalogue.read("trickerion", "performances.json")["performances"])
)
"""The catalogue's Performance card ids (P01-P28), `.../performances.json`."""
EXTRA_TRICK_PATTERN = r"^X-[A-Za-z0-9_-]{1,24}$"

TrickId = Annotated[
    str,
    StringConstraints(pattern=r"^(T[0-9]{2}|X-[A-Za-z0-9_-]{1,24})$"),
    WithJsonSchema(
        {
            "type": "string",
            "anyOf": [
                {"enum": list(TRICK_IDS)},
                {"pattern": EXTRA_TRICK_PATTERN},
            ],
        }
    ),
]
"""A Trick card id: one of the catalogue's (docs/rules/trickerion.md#level-3), or `X-...` for a
card declared in the game start (`ExtraTrick`). The schema lists the catalogue's ids; the
service refuses an id outside it by the rule `trickerion.card.unknown_trick` (an `X-` id not
declared in the game too)."""

PerformanceCardId = Annotated[
    str,
    StringConstraints(pattern=r"^P[0-9]{2}$"),
    WithJsonSchema({"type": "string", "enum": list(PERFORMANCE_CARD_IDS)}),
]
"""A Performance card id, one of the catalogue's (docs/rules/trickerion.md#level-3); the service
refuses another by `trickerion.card.unknown_performance`."""

Specialist = Literal["assistant", "manager", "engineer"]
"""The three Specialists (docs/rules/trickerion.md#theater-specialists)."""

ArcaneWorker = Literal["specter", "golem", "trickster", "shapeshifter"]
"""Arcane Arts workers (docs/rules/trickerion.md#arcane-arts)."""

Character = Literal[
    "apprentice",
    "assistant",
    "manager",
    "engineer",
    "protege",
    "specter",
    "golem",
    "trickster",
    "shapeshifter",
]
"""Every hireable character: Apprentice, the Specialists, the Academy Protégé, Arcane workers."""

ShapeshifterType = Literal["apprentice", "assistant", "manager", "engineer"]
"""The character type a Shapeshifter counts as at game end (docs/rules/trickerion.md#arcane-arts)."""

Weekday = Literal["thursday", "friday", "saturday", "sunday"]
"""A performance day (docs/rules/trickerion.md#during-play; only used with `weekday_yield_modifiers`)."""

Count = Annotated[int, Field(ge=0, le=999, strict=True)]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class TrickerionOptions(_Frozen):
    """Modules and every REC of docs/rules/trickerion.md as a named option (default = the REC).

    Recorded in `trickerion.game_started`, so a replay years later scores the same. Each field's
    docstring cites its source; docs/rules/trickerion.md gives each reading.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    dark_alley: bool = True
    """Dark Alley: 7 turns, Special Assignments, Level 3 tricks; off: 5-turn base game (rules)."""
    academy: bool = False
    """Dahlgaard's Academy: Banner ranking after regular end-game Fame (rules, Module changes)."""
    dawn_of_technology: bool = False
    """Dawn of Technology: 2 Fame per 3 Shards, Contraption Shards count (rules, Module changes)."""
    magician_powers: bool = False
    """Magician Powers: Shards score no Fame at game end; start with 3 Shards (rules; UBG-MP)."""
    arcane_arts: bool = False
    """Arcane Arts: Arcane workers count as Apprentices, Arcane Shards as Shards (rules)."""
    dot_rounding: Literal["ceil_two_thirds", "two_per_started_three"] = "ceil_two_thirds"
    """REC ceil(2S/3) (S=1..6: 1,2,2,3,4,4); other reading 2*ceil(S/3) (docs/rules/trickerion.md#dawn-of-technology)."""
    dot_category_cap: bool = True
    """REC the 20 cap still applies to the Dawn of Technology Shard category (docs/rules/trickerion.md#dawn-of-technology)."""
    dot_with_magician_powers: Literal["magician_powers_wins", "dot_applies"] = (
        "magician_powers_wins"
    )
    """REC with both modules the Shard category is 0 (MP is the more specific) (docs/rules/trickerion.md#magician-powers)."""
    academy_ties: Literal["lowest_covered_tier", "next_tier_down"] = "lowest_covered_tier"
    """REC a tie over ranks k..m takes tier m; other: tier k+1 (3-way in 4p: 10) (docs/rules/trickerion.md#academy)."""
    shard_link_same_owner: Literal["once_per_owner", "per_marker"] = "once_per_owner"
    """REC 1 Shard per distinct owner; "per_marker" pays 2 to one owner of both (BGA) (docs/rules/trickerion.md#shard-link)."""
    weekday_yield_modifiers: bool = False
    """REC off (seed: printed yield); on: Thu -1 F -1 C, Sun +1 F +1 C, floor 0 (docs/rules/trickerion.md#weekday-modifiers)."""
    negative_coins: Literal["never", "allow"] = "never"
    """REC Coins never below 0, unpaid wages cost Fame; "allow": Coins go negative (BGA) (docs/rules/trickerion.md#unpaid-wages)."""
    unpaid_coin_fame_penalty: int = Field(default=2, ge=0, le=10, strict=True)
    """REC 2 Fame per unpaid Coin of wages (JD); another reading: per character (docs/rules/trickerion.md#unpaid-wages)."""
    fame_floor: Literal["clamp_zero", "allow_negative"] = "clamp_zero"
    """REC Fame never below 0, the shortfall is noted in the ledger (docs/rules/trickerion.md#fame-floor)."""
    protege_counts_as_specialist: bool = False
    """REC the Academy Protégé is not a Specialist for end-game counts (docs/rules/trickerion.md#characters)."""
    markers_on_performance_cards_count: bool = False
    """REC only markers on the Trick card make a Level 3 trick eligible (docs/rules/trickerion.md#level-3)."""
    horror_saws_shards: Literal["all_held", "excluding_contraption"] = "all_held"
    """REC T46 counts every Shard held, Contraption ones too (also under MP) (docs/rules/trickerion.md#horror-saws)."""
    shapeshifter_choice: Literal["one_type_for_all", "best_per_condition"] = "one_type_for_all"
    """REC one declared type for all conditions; undeclared: the best total (docs/rules/trickerion.md#arcane-arts)."""
    tie_break_ranks: Literal["shared", "ordered"] = "shared"
    """REC "shared": tied Fame shares the place (the rules only name the winner, ahead in
    initiative); "ordered": ranks follow the initiative tie-break (docs/rules/trickerion.md#winner)."""
    category_cap: int = Field(default=20, ge=1, le=1000, strict=True)
    """Fame cap per end-game category and per Level 3 trick (docs/rules/trickerion.md#caps)."""
    starting_fame: int = Field(default=5, ge=0, strict=True)
    """Fame at set-up (docs/rules/trickerion.md#set-up)."""
    starting_coins: tuple[StrictInt, ...] = Field(
        default=(10, 12, 14, 16), min_length=4, max_length=4
    )
    """Coins at set-up by starting initiative position 1..4 (docs/rules/trickerion.md#set-up)."""
    starting_shards: int = Field(default=1, ge=0, strict=True)
    """Shards at set-up (docs/rules/trickerion.md#set-up)."""
    starting_shards_magician_powers: int = Field(default=3, ge=0, strict=True)
    """Shards at set-up with Magician Powers (docs/rules/trickerion.md#set-up)."""


class SeatNow(_Frozen):
    """One player's holdings when scoring starts mid-game, as the table counts them: Fame,
    Coins, loose Shards, the Trick cards owned and the characters hired (for the inventory;
    an Assistant brings its bonus Apprentice by itself, so do not list that one). Fame and
    Coins below 0 only where the options allow them (`fame_floor`, `negative_coins`;
    the domain refuses them otherwise)."""

    player_id: PlayerId
    fame: int = Field(ge=-200, le=500, strict=True)
    coins: int = Field(ge=-200, le=500, strict=True)
    shards: int = Field(default=0, ge=0, le=100, strict=True)
    tricks: tuple[TrickId, ...] = Field(default=(), max_length=8)
    hires: tuple[Character, ...] = Field(default=(), max_length=12)
    advertised_this_turn: bool = False
    """The player has already Advertised in the declared turn (once per turn, rules L6)."""


class JoinedInProgress(_Frozen):
    """Scoring joins a game in progress: `turn` is the turn being played now (the next
    `game.turn_started` is turn + 1), `initiative_order` the track now (default: the starting
    positions), `players` every player's holdings now. Each declared amount becomes a ledger
    entry under the rule `trickerion.joined_in_progress` (category `joined`), instead of the
    set-up amounts; everything after scores as usual."""

    turn: int = Field(ge=1, le=7, strict=True)
    initiative_order: tuple[PlayerId, ...] | None = None
    players: tuple[SeatNow, ...] = Field(min_length=1, max_length=4)


class PrintedYield(_Frozen):
    """A Trick card's printed yield per marker: Fame, Coins, Shards."""

    fame: int = Field(default=0, ge=0, le=10, strict=True)
    coins: int = Field(default=0, ge=0, le=10, strict=True)
    shards: int = Field(default=0, ge=0, le=5, strict=True)


CounterName = Annotated[str, StringConstraints(pattern=r"^[a-z0-9_]{1,32}$")]
"""A counter a condition counts (the names of domain/trickerion/conditions.py; unknown ones
are refused by the domain)."""

PrintedPoints = Annotated[int, Field(ge=1, le=20, strict=True)]
"""Fame a condition prints: at least 1, at most 20 (each Level 3 trick scores at most 20,
docs/rules/trickerion.md#caps; the catalogue prints 1-12)."""


class PerCondition(_Frozen):
    """`points` Fame per `every` of the counter `of`, the remainder dropped (T24 "1 per 3
    unspent Coins": `{"kind": "per", "of": "coins", "points": 1, "every": 3}`)."""

    kind: Literal["per"]
    of: CounterName
    points: PrintedPoints
    every: int = Field(default=1, ge=1, le=20, strict=True)


class IfCondition(_Frozen):
    """`points` Fame if every counter in `of` is at least `at_least` (T09 "12 if you have
    Assistant, Engineer and Manager": `{"kind": "if", "of": ["assistant", "engineer",
    "manager"], "at_least": 1, "points": 12}`)."""

    kind: Literal["if"]
    of: tuple[CounterName, ...] = Field(min_length=1, max_length=4)
    at_least: int = Field(ge=1, le=99, strict=True)
    points: PrintedPoints


EndgameCondition = Annotated[PerCondition | IfCondition, Field(discriminator="kind")]
"""A Level 3 end-game condition in the catalog's condition language (data/tricks.json)."""


class ExtraTrick(_Frozen):
    """A Trick card outside the catalog (a promo card, Dawn of Technology's Signature Tricks),
    declared in the game start with its printed values and checked like a catalog card: `level`
    1-3 (Fame threshold 1 / 16 / 36), `printed_yield`, `markers`, `components` (the catalog's
    component names -> count), a Level 3 `endgame` condition in the catalog's condition language
    (domain/trickerion/conditions.py: `{"kind": "per", "of": counter, "points": p, "every": n}`
    or `{"kind": "if", "of": [counters], "at_least": n, "points": p}`), `endgame_text` in words,
    and `source`: where the printed values come from."""

    id: Annotated[str, StringConstraints(pattern=r"^X-[A-Za-z0-9_-]{1,24}$")]
    name: NonEmptyText
    category: Literal["optical", "spiritual", "escape", "mechanical"]
    level: int = Field(ge=1, le=3, strict=True)
    printed_yield: PrintedYield
    markers: int = Field(ge=1, le=4, strict=True)
    components: dict[str, StrictInt] = Field(default_factory=dict, max_length=12)
    endgame: EndgameCondition | None = None
    endgame_text: str | None = Field(default=None, max_length=200)
    source: NonEmptyText


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


class Level3Holding(_Frozen):
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
