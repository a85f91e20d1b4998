"""Trickerion's values recorded at game start: the catalogue's card ids and the types the
events name, the ruleset options (`TrickerionOptions`), a seat's holdings when scoring starts
mid-game (`JoinedInProgress`) and Trick cards outside the catalogue (`ExtraTrick`).

Sources: docs/rules/trickerion.md (the rules and each recommended reading); where the card data
came from: docs/rules/trickerion.md#card-data.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictInt,
    StringConstraints,
    WithJsonSchema,
)

from contracts import catalogue
from contracts.envelope import NonEmptyText, PlayerId

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


class Frozen(BaseModel):
    """A frozen model refusing unknown fields: every value recorded at game start."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class TrickerionOptions(Frozen):
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


class SeatNow(Frozen):
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


class JoinedInProgress(Frozen):
    """Scoring joins a game in progress: `turn` is the turn being played now (the next
    `game.turn_started` is turn + 1), `initiative_order` the track now (default: the starting
    positions), `players` every player's holdings now. Each declared amount becomes a ledger
    entry under the rule `trickerion.joined_in_progress` (category `joined`), instead of the
    set-up amounts; everything after scores as usual."""

    turn: int = Field(ge=1, le=7, strict=True)
    initiative_order: tuple[PlayerId, ...] | None = None
    players: tuple[SeatNow, ...] = Field(min_length=1, max_length=4)


class PrintedYield(Frozen):
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


class PerCondition(Frozen):
    """`points` Fame per `every` of the counter `of`, the remainder dropped (T24 "1 per 3
    unspent Coins": `{"kind": "per", "of": "coins", "points": 1, "every": 3}`)."""

    kind: Literal["per"]
    of: CounterName
    points: PrintedPoints
    every: int = Field(default=1, ge=1, le=20, strict=True)


class IfCondition(Frozen):
    """`points` Fame if every counter in `of` is at least `at_least` (T09 "12 if you have
    Assistant, Engineer and Manager": `{"kind": "if", "of": ["assistant", "engineer",
    "manager"], "at_least": 1, "points": 12}`)."""

    kind: Literal["if"]
    of: tuple[CounterName, ...] = Field(min_length=1, max_length=4)
    at_least: int = Field(ge=1, le=99, strict=True)
    points: PrintedPoints


EndgameCondition = Annotated[PerCondition | IfCondition, Field(discriminator="kind")]
"""A Level 3 end-game condition in the catalog's condition language (data/tricks.json)."""


class ExtraTrick(Frozen):
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
