"""A player's end-game lines "if the game ended now", kept per player and updated by what an
event changed (`state.memo`, domain.memo).

Most events change one player's Coins or Shards and nothing else `endgame.holdings` reads.
Then only the lines that read them are recomputed: the Coin line on a Coins change, the Shard
line on a Shards change, and a Level 3 trick's line when its printed condition counts Coins or
held Shards (docs/rules/trickerion.md#end-of-game, #level-3); every other line is the kept
object. With a Shapeshifter the choice of its type reads every line, so its lines are computed
in full. The answer equals `endgame.player_lines` of the holdings computed from nothing (a
property test compares them after every event of simulated games).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache, partial
from operator import is_
from typing import NamedTuple

from contracts.trickerion import TrickerionOptions
from domain.trickerion.catalog import Trick, trick
from domain.trickerion.endgame import (
    EndLine,
    Holdings,
    academy_points,
    character_lines,
    coins_line,
    counters,
    holdings,
    level3_line,
    player_lines,
    shard_line,
)
from domain.trickerion.state import TrickerionState

CardLines = tuple[tuple[str, str, int, str], ...]
"""(trick id, category, Fame, note) per Level 3 trick, in the holdings' (trick id) order."""

_FIRST_LEVEL3 = 3
"""Index of the first Level 3 line among the Dark Alley's lines (Shards, Coins, Special
Assignments, then the Level 3 tricks: `endgame.regular_lines`)."""


class Ends(NamedTuple):
    """One player's holdings, regular end-game lines (`endgame.player_lines`) and Level 3 card
    lines (`level3_lines`), shared while unchanged: callers must not change them. Built by
    `_ends`, which adds what the standings read of them (once per change of the lines, not
    per question): `categories`, the lines' Fame by category, and `details`, the answer of
    `TrickerionRuleset.player_details` (Coins and Shards, the card lines as a list)."""

    held: Holdings
    lines: tuple[EndLine, ...]
    cards: CardLines
    categories: dict[str, int]
    details: tuple[dict[str, int], list[tuple[str, str, int, str]]]


def _ends(held: Holdings, lines: tuple[EndLine, ...], cards: CardLines) -> Ends:
    """`Ends` of these holdings, lines and card lines, with their `categories` and `details`."""
    categories: dict[str, int] = {}
    for line in lines:
        category = line[0]  # EndLine.category, amount: fields 0 and 1
        categories[category] = categories.get(category, 0) + line[1]
    details = ({"coins": held[0], "shards": held[1]}, list(cards))  # Holdings.coins, .shards
    return _tuple_new(Ends, (held, lines, cards, categories, details))


def end_lines(state: TrickerionState, player_id: str) -> Ends:
    """The player's holdings, regular end-game lines and Level 3 card lines, computed once while
    what `holdings` reads is unchanged: the book's Coins, Shards, tricks and hires (not its
    Fame), the inventory, the options and the declared cards. When only the Coins or Shards
    changed since the kept lines, only the lines reading them are recomputed (see the module)."""
    book = state.book(player_id)
    inputs = (
        book.tricks,
        book.hires,
        state.inventories.get(player_id),
        state.options,
        state.extra_tricks,
    )
    coins, shards = book.coins, book.shards
    memo, key = state.memo, ("end_lines", player_id)
    kept = memo.latest(key)
    if kept is not None and all(map(is_, kept[0], inputs)):
        old: Ends = kept[1]
        if old.held.coins == coins and old.held.shards == shards:
            return old
        if "shapeshifter" not in old.held.arcane_workers:
            ends = _updated(old, _tuple_new(Holdings, (coins, shards, *old.held[2:])), state)
            memo.put(key, inputs, ends)
            return ends
    held = _holdings(state, player_id, inputs)
    opts = state.options
    if (
        kept is not None
        and not opts.dark_alley
        and kept[0][3] is opts
        and "shapeshifter" not in held.arcane_workers
        and "shapeshifter" not in kept[1].held.arcane_workers
    ):
        ends = _relined(kept[1], held, opts)
    else:
        lines = tuple(player_lines(held, opts))
        ends = _ends(held, lines, _cards(held, lines))
    memo.put(key, inputs, ends)
    return ends


def _relined(old: Ends, held: Holdings, opts: TrickerionOptions) -> Ends:
    """The base game's lines (no Dark Alley: Shards, Coins, Apprentices, Specialists; no
    Shapeshifter before or after) of new holdings `held` from `old` under the same options:
    a line is recomputed only when a field it reads changed (a trick learned changes none of
    them; a hire the two character lines), else the kept object. No Level 3 line: the card
    lines are the kept ones while the Level 3 holdings are equal."""
    was = old.held
    lines = list(old.lines)
    if (held.shards, held.contraption_shards, held.arcane_shards) != (
        was.shards,
        was.contraption_shards,
        was.arcane_shards,
    ):
        lines[0] = shard_line(held, opts)
    if held.coins != was.coins:
        lines[1] = coins_line(held, opts)
    if (held.apprentices, held.arcane_workers, held.specialists, held.protege) != (
        was.apprentices,
        was.arcane_workers,
        was.specialists,
        was.protege,
    ):
        lines[2:] = character_lines(held, opts, None)
    cards = old.cards if held.level3 == was.level3 else _cards(held, lines)
    return _ends(held, tuple(lines), cards)


_tuple_new = tuple.__new__  # Holdings(...) without its Python-level __new__ (the same tuple)


def _holdings(state: TrickerionState, player_id: str, inputs: tuple[object, ...]) -> Holdings:
    """`holdings(state, player_id)`, the part besides Coins and Shards kept while `inputs`
    (end_lines') stand: the holdings read the Coins and Shards from the book as they are and
    nothing else from it."""
    book = state.book(player_id)
    kept = state.memo.get(("holdings", player_id), inputs, partial(holdings, state, player_id))
    if kept.coins == book.coins and kept.shards == book.shards:
        return kept
    return kept._replace(coins=book.coins, shards=book.shards)


def _updated(old: Ends, held: Holdings, state: TrickerionState) -> Ends:
    """`old` (the same holdings but for Coins and Shards, no Shapeshifter) with the lines that
    read the changed amounts recomputed; the others, and the card lines while every Level 3
    line is equal, are the kept objects."""
    opts = state.options
    coins = held.coins != old.held.coins
    shards = held.shards != old.held.shards
    lines = list(old.lines)
    if shards:
        lines[0] = shard_line(held, opts)
    if coins:
        lines[1] = coins_line(held, opts)
    cards = old.cards
    if opts.dark_alley and held.level3:
        changed = (("coins",) if coins else ()) + (("held_shards",) if shards else ())
        redo = [
            i
            for i, holding in enumerate(held.level3)
            if not _reads(holding.trick_id, held.extra).isdisjoint(changed)
        ]
        if redo:
            counts = counters(held, opts, None)
            for i in redo:
                lines[_FIRST_LEVEL3 + i] = level3_line(held.level3[i], counts, opts, held.extra)
            if lines[_FIRST_LEVEL3:] != list(old.lines[_FIRST_LEVEL3:]):
                cards = _cards(held, lines)
    return _ends(held, tuple(lines), cards)


def _reads(trick_id: str, extra: Mapping[str, Trick]) -> frozenset[str]:
    """The counters a Level 3 trick's condition reads (docs/rules/trickerion.md#level-3)."""
    if extra:
        return _condition_reads(trick(trick_id, extra=extra))
    return _printed_reads(trick_id)


@lru_cache(maxsize=256)
def _printed_reads(trick_id: str) -> frozenset[str]:
    """`_reads` of a printed card (a fixed catalog: kept per id)."""
    return _condition_reads(trick(trick_id))


def _condition_reads(card: Trick) -> frozenset[str]:
    condition = card.endgame
    if condition is None:
        return frozenset()
    of = condition["of"]
    return frozenset([of] if isinstance(of, str) else of)


def _cards(held: Holdings, lines: tuple[EndLine, ...] | list[EndLine]) -> CardLines:
    """One (trick id, category, Fame, note) per Level 3 line, in the holdings' order (none
    without Level 3 holdings: every Level 3 line is one of theirs)."""
    if not held.level3:
        return ()
    level3 = [x for x in lines if x.category == "level3_tricks"]
    return tuple(
        (h.trick_id, x.category, x.amount, x.note) for h, x in zip(held.level3, level3, strict=True)
    )


def score_end(state: TrickerionState) -> dict[str, list[EndLine]]:
    """Every player's end-game lines (regular, then Academy when the module is on)."""
    ends = {pid: end_lines(state, pid) for pid in state.books}
    lines = {pid: list(e.lines) for pid, e in ends.items()}
    if state.options.academy:
        academy = academy_points(
            {pid: e.held.banners for pid, e in ends.items()}, len(ends), state.options
        )
        for pid in lines:
            lines[pid].append(academy[pid])
    return lines


def level3_lines(state: TrickerionState, player_id: str) -> list[tuple[str, str, int, str]]:
    """One (trick id, category, Fame, note) per Level 3 trick of the player, as `score_end`
    scores it (the Shapeshifter resolved the same way), in trick id order."""
    return list(end_lines(state, player_id).cards)
