"""End-game Fame: the regular categories with their caps, Level 3 tricks, the modules, Academy.

Order (docs/rules/trickerion.md#end-of-game): Shards (module rules) -> Coins -> Special
Assignments, or Apprentices and Specialists in the base game -> Level 3 tricks -> Academy.
The cap (`category_cap`, 20) applies per category after the module conversion and per Level 3
trick, never to the Level 3 sum, in-play Fame or Academy points (docs/rules/trickerion.md#caps).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import lru_cache
from types import MappingProxyType
from typing import NamedTuple

from contracts.trickerion import Level3Holding, TrickerionOptions
from domain.trickerion import categories as r
from domain.trickerion.catalog import Trick, trick
from domain.trickerion.conditions import condition_points
from domain.trickerion.holdings_check import hired_apprentices
from domain.trickerion.state import TrickerionState

SHAPESHIFTER_TYPES = ("apprentice", "assistant", "manager", "engineer")
ACADEMY_TIERS: dict[int, tuple[int, ...]] = {2: (8,), 3: (12, 6), 4: (15, 10, 5)}
"""Academy Fame by player count, best rank first (docs/rules/trickerion.md#academy)."""


class Holdings(NamedTuple):
    """What one player holds at the end: from the ledger (Coins, loose Shards, tricks owned) and
    the declared inventory, or, before it is declared, estimated from the hires (see `holdings`).

    A named tuple, not a frozen dataclass: built on every change of a player's Coins or Shards
    (the provisional standings), and a frozen dataclass of 18 fields costs ~5 µs to build."""

    coins: int
    shards: int
    owned_levels: tuple[int, ...]
    level3: tuple[Level3Holding, ...]
    apprentices: int = 0
    specialists: tuple[str, ...] = ()
    protege: bool = False
    arcane_workers: tuple[str, ...] = ()
    shapeshifter_as: str | None = None
    special_assignments: int = 0
    contraption_shards: int = 0
    arcane_shards: int = 0
    basic_components: int = 0
    advanced_components: int = 0
    superior_components: int = 0
    workshop_trick_markers: int = 0
    banners: int = 0
    extra: Mapping[str, Trick] = MappingProxyType({})


class EndLine(NamedTuple):
    """One end-game ledger line: Fame in `category` under `rule`, with a note in words (a named
    tuple: several are built per change of a player's holdings, see `Holdings`)."""

    category: str
    amount: int
    rule: str
    note: str


def holdings(state: TrickerionState, player_id: str) -> Holdings:
    """The player's holdings: the declared inventory if any; before that (provisional) the
    hired characters, and each owned Level 3 trick assumed eligible with nothing counted."""
    book = state.book(player_id)
    inv = state.inventories.get(player_id)
    if inv is None:
        hires = book.hires
        card = state.card
        levels = tuple([card(t).level for t in book.tricks])
        # positional, in the fields' order, the rest at their defaults: `Holdings(...)` by
        # keyword runs the named tuple's Python-level __new__ (the same tuple)
        return _tuple_new(
            Holdings,
            (
                book.coins,
                book.shards,
                levels,
                _level3(book.tricks, levels) if 3 in levels else (),
                hired_apprentices(hires),
                tuple([h for h in ("assistant", "manager", "engineer") if h in hires]),
                "protege" in hires,
                tuple([h for h in hires if h in _ARCANE]),
                *_PROVISIONAL_REST,
                state.extra_tricks,
            ),
        )
    owned = [t for t in book.tricks if t not in inv.set_aside_trick_ids]
    return Holdings(
        extra=state.extra_tricks,
        coins=book.coins,
        shards=book.shards,
        owned_levels=tuple(state.card(t).level for t in owned),
        level3=tuple(sorted(inv.level3_tricks, key=lambda h: h.trick_id)),
        apprentices=inv.apprentices,
        specialists=inv.specialists,
        protege=inv.protege,
        arcane_workers=inv.arcane_workers,
        shapeshifter_as=inv.shapeshifter_as,
        special_assignments=inv.special_assignments_in_hand,
        contraption_shards=inv.contraption_shards,
        arcane_shards=inv.arcane_shards,
        basic_components=inv.basic_components,
        advanced_components=inv.advanced_components,
        superior_components=inv.superior_components,
        workshop_trick_markers=inv.workshop_trick_markers,
        banners=inv.academy_banners,
    )


_tuple_new = tuple.__new__


def _level3(tricks: tuple[str, ...], levels: tuple[int, ...]) -> tuple[Level3Holding, ...]:
    """Each owned Level 3 trick assumed eligible (`levels`: each trick's level, in order)."""
    return tuple(
        _assumed_eligible(t) for t, level in zip(tricks, levels, strict=True) if level == 3
    )


_ARCANE = frozenset(("specter", "golem", "trickster", "shapeshifter"))
_PROVISIONAL_REST = (None, 0, 0, 0, 0, 0, 0, 0, 0)
"""`Holdings`' defaults from `shapeshifter_as` to `banners` (before an inventory)."""


@lru_cache(maxsize=1024)
def _assumed_eligible(trick_id: str) -> Level3Holding:
    """An owned Level 3 trick before the inventory: eligible, nothing counted (a frozen value,
    built once per trick id; the id is already a known card's)."""
    return Level3Holding.model_construct(trick_id=trick_id, components_met=True)


def counters(h: Holdings, opts: TrickerionOptions, shapeshifter_as: str | None) -> dict[str, int]:
    """Counter values for Level 3 conditions and the base game's character rows.

    Arcane workers other than the Shapeshifter count as Apprentices; each Shapeshifter counts
    as `shapeshifter_as` (docs/rules/trickerion.md#arcane-arts; one declared type for all of
    them, docs/rules/trickerion.md#arcane-arts). T46's Shards follow `horror_saws_shards`; Coins
    below 0 count as 0 (docs/rules/trickerion.md#during-play).
    """
    shapes = h.arcane_workers.count("shapeshifter")
    arcane = len(h.arcane_workers) - shapes

    def shape(kind: str) -> int:
        return shapes if shapeshifter_as == kind else 0

    held = h.shards + h.arcane_shards
    if opts.horror_saws_shards == "all_held":
        held += h.contraption_shards
    levels, specialists = h.owned_levels, h.specialists
    return {
        "apprentices": h.apprentices + arcane + shape("apprentice"),
        "assistant": int("assistant" in specialists) + shape("assistant"),
        "manager": int("manager" in specialists) + shape("manager"),
        "engineer": int("engineer" in specialists) + shape("engineer"),
        "basic_components": h.basic_components,
        "advanced_components": h.advanced_components,
        "superior_components": h.superior_components,
        "tricks_owned": len(levels),
        "level1_tricks": levels.count(1),
        "level2_tricks": levels.count(2),
        "level3_tricks": levels.count(3),
        "coins": max(0, h.coins),
        "held_shards": held,
        "special_assignments": h.special_assignments,
        "workshop_trick_markers": h.workshop_trick_markers,
    }


def _cap(raw: int, cap: int, note: str) -> tuple[int, str]:
    return (cap, f"{note}, capped at {cap}") if raw > cap else (raw, note)


def shard_line(h: Holdings, opts: TrickerionOptions) -> EndLine:
    """The Shard category: 1 Fame per Shard; Dawn of Technology 2 per 3 (rounding by
    `dot_rounding`, Contraption Shards count); Magician Powers 0 (with both:
    `dot_with_magician_powers`);
    Arcane Shards count as Shards. Capped (under DoT only if `dot_category_cap`)."""
    total = h.shards + h.contraption_shards + h.arcane_shards
    if opts.magician_powers and not (
        opts.dawn_of_technology and opts.dot_with_magician_powers == "dot_applies"
    ):
        return EndLine(
            "endgame_shards",
            0,
            r.MAGICIAN_POWERS,
            f"{total} Shards score no Fame with Magician Powers",
        )
    if opts.dawn_of_technology:
        raw = (
            math.ceil(2 * total / 3)
            if opts.dot_rounding == "ceil_two_thirds"
            else 2 * math.ceil(total / 3)
        )
        cap = opts.category_cap if opts.dot_category_cap else raw
        amount, note = _cap(
            raw, cap, f"{total} Shards ({h.contraption_shards} on Contraptions): 2 per 3 -> {raw}"
        )
        return EndLine("endgame_shards", amount, r.DAWN_OF_TECHNOLOGY, note)
    amount, note = _cap(total, opts.category_cap, f"{total} unspent Shards")
    return EndLine("endgame_shards", amount, r.END_SHARDS, note)


def coins_line(h: Holdings, opts: TrickerionOptions) -> EndLine:
    """The Coin category: 1 Fame per 3 leftover Coins, Coins below 0 counting as 0, capped
    (docs/rules/trickerion.md#end-of-game)."""
    return _coins_line(h.coins, opts.category_cap)


@lru_cache(maxsize=1024)
def _coins_line(coins: int, cap: int) -> EndLine:
    """`coins_line` of `coins` under `cap` (an immutable line, shared: built once per amount,
    not per change of a player's Coins)."""
    amount, note = _cap(max(0, coins) // 3, cap, f"{coins} leftover Coins: 1 per 3")
    return EndLine("endgame_coins", amount, r.END_COINS, note)


def level3_line(
    holding: Level3Holding,
    counts: Mapping[str, int],
    opts: TrickerionOptions,
    extra: Mapping[str, Trick] | None = None,
) -> EndLine:
    """One Level 3 trick: its printed condition if eligible (components met or >= 1 Trick marker
    on the card; Performance-card markers only with `markers_on_performance_cards_count`),
    capped."""
    card = trick(holding.trick_id, extra=extra)
    markers = holding.markers + (
        holding.performance_markers if opts.markers_on_performance_cards_count else 0
    )
    label = f"{card.id} {card.name}"
    if not (holding.components_met or markers > 0):
        return EndLine(
            "level3_tricks",
            0,
            r.END_LEVEL3,
            f"{label}: not eligible (components not met, no marker)",
        )
    assert card.endgame is not None  # every Level 3 card carries its condition
    raw = condition_points(card.endgame, counts)
    amount, note = _cap(raw, opts.category_cap, f"{label}: {card.endgame_text} -> {raw}")
    return EndLine("level3_tricks", amount, r.END_LEVEL3, note)


def regular_lines(
    h: Holdings, opts: TrickerionOptions, shapeshifter_as: str | None
) -> list[EndLine]:
    """The regular end-game lines of one player, in scoring order (Academy excluded)."""
    cap = opts.category_cap
    lines = [shard_line(h, opts), coins_line(h, opts)]
    if not opts.dark_alley:
        return lines + character_lines(h, opts, shapeshifter_as)
    counts = counters(h, opts, shapeshifter_as)
    sa, note = _cap(
        2 * h.special_assignments,
        cap,
        f"{h.special_assignments} Special Assignment cards in hand",
    )
    lines.append(EndLine("special_assignments", sa, r.END_SPECIAL_ASSIGNMENTS, note))
    lines += [level3_line(holding, counts, opts, h.extra) for holding in h.level3]
    return lines


def character_lines(
    h: Holdings, opts: TrickerionOptions, shapeshifter_as: str | None
) -> list[EndLine]:
    """The base game's Apprentice and Specialist lines (without the Dark Alley), the counts as
    `counters` has them: they read the hires (Apprentices, Arcane workers, Specialists, the
    Protege) and nothing else of the holdings. Counted here without `counters`' other keys
    (a third of `player_lines`' cost in the base game)."""
    workers = h.arcane_workers
    shapes = workers.count("shapeshifter") if workers else 0
    apprentices = h.apprentices + len(workers) - shapes
    held = h.specialists
    specialists = ("assistant" in held) + ("manager" in held) + ("engineer" in held)
    if shapes and shapeshifter_as is not None:
        if shapeshifter_as == "apprentice":
            apprentices += shapes
        elif shapeshifter_as in _SPECIALISTS:
            specialists += shapes
    if h.protege and opts.protege_counts_as_specialist:
        specialists += 1
    cap = opts.category_cap
    app, app_note = _cap(2 * apprentices, cap, f"{apprentices} Apprentices: 2 each")
    spec, spec_note = _cap(3 * specialists, cap, f"{specialists} Specialists: 3 each")
    return [
        EndLine("apprentices", app, r.BASE_GAME, app_note),
        EndLine("specialists", spec, r.BASE_GAME, spec_note),
    ]


_SPECIALISTS = frozenset(("assistant", "manager", "engineer"))


def player_lines(h: Holdings, opts: TrickerionOptions) -> list[EndLine]:
    """Regular end-game lines with the Shapeshifter resolved (`shapeshifter_choice`):
    one type for all conditions (the declared one, else the best total), or the best per line."""
    if "shapeshifter" not in h.arcane_workers:
        return regular_lines(h, opts, None)
    if opts.shapeshifter_choice == "one_type_for_all":
        choices = (h.shapeshifter_as,) if h.shapeshifter_as else SHAPESHIFTER_TYPES
        best = max(choices, key=lambda t: sum(line.amount for line in regular_lines(h, opts, t)))
        how = "declared" if h.shapeshifter_as else "best total"
        return [
            EndLine(x.category, x.amount, x.rule, f"{x.note} [Shapeshifter as {best}, {how}]")
            for x in regular_lines(h, opts, best)
        ]
    per_type = [regular_lines(h, opts, t) for t in SHAPESHIFTER_TYPES]
    return [max(column, key=lambda line: line.amount) for column in zip(*per_type, strict=True)]


def academy_points(
    banners: Mapping[str, int], players: int, opts: TrickerionOptions
) -> dict[str, EndLine]:
    """Academy Fame by Banners: 2p 8; 3p 12/6; 4p 15/10/5; no Banners, no rank and no Fame.

    A tie over ranks k..m takes tier m under `academy_ties="lowest_covered_tier"` (REC), tier
    k+1 under "next_tier_down"; the next player is ranked m+1 (docs/rules/trickerion.md#end-of-game Step C).
    """
    tiers = ACADEMY_TIERS.get(players, ())
    out = {
        pid: EndLine("academy", 0, r.ACADEMY, "no Banners") for pid, b in banners.items() if b <= 0
    }
    ranked = sorted({b for b in banners.values() if b > 0}, reverse=True)
    k = 1
    for count in ranked:
        group = [pid for pid, b in banners.items() if b == count]
        m = k + len(group) - 1
        tier = (
            k if len(group) == 1 else (m if opts.academy_ties == "lowest_covered_tier" else k + 1)
        )
        points = tiers[tier - 1] if tier <= len(tiers) else 0
        where = f"rank {k}" if len(group) == 1 else f"tied over ranks {k}-{m}, tier {tier}"
        for pid in group:
            out[pid] = EndLine("academy", points, r.ACADEMY, f"{count} Banners, {where}")
        k = m + 1
    return out
