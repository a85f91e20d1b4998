"""Joining a Trickerion game in progress: the start event declares the turn, the track and
every player's Fame, Coins, Shards, tricks and hires; each amount is a ledger entry under its
own entry citing docs/rules/trickerion.md#joined-in-progress, so everything after scores as usual.

Checked like the events they stand for: every player once, the turn within the game's length
(docs/rules/trickerion.md#game-length: 7 turns, 5 without the Dark Alley), known Trick cards
with one owner each (Level 3 only with the Dark Alley), module characters only with their
module and Specialists / the Protégé once (docs/rules/trickerion.md#characters).
"""

from __future__ import annotations

from types import MappingProxyType

from contracts.trickerion import JoinedInProgress, SeatNow
from domain.errors import RuleViolation
from domain.ledger import Resource
from domain.trickerion.catalog import characters
from domain.trickerion.categories import JOINED
from domain.trickerion.state import Change, PlayerBook, TrickerionState
from domain.values import replace

JOIN_RULE = JOINED
"""The citation of every ledger entry a join declares."""
PLAYERS = "payload.joined_in_progress.players"


def _check_floors(state: TrickerionState, seat: SeatNow) -> None:
    """Fame and Coins below 0 only where the options let them be (docs/rules/trickerion.md#during-play,
    §5.4: REC Coins never below 0, Fame clamped at 0)."""
    opts = state.options
    if seat.fame < 0 and opts.fame_floor == "clamp_zero":
        raise RuleViolation(
            "trickerion.join.negative_fame",
            f"{seat.player_id}: {seat.fame} Fame, but Fame stops at 0 (fame_floor clamp_zero)",
            PLAYERS,
        )
    if seat.coins < 0 and opts.negative_coins == "never":
        raise RuleViolation(
            "trickerion.join.negative_coins",
            f"{seat.player_id}: {seat.coins} Coins, but Coins never go below 0 (negative_coins)",
            PLAYERS,
        )


def _check_seat(state: TrickerionState, tricks: tuple[str, ...], hires: tuple[str, ...]) -> None:
    for tid in tricks:
        card = state.card(tid, PLAYERS)
        if card.level == 3 and not state.options.dark_alley:
            raise RuleViolation(
                "trickerion.trick.level3_needs_dark_alley", f"{card.id} is Level 3", PLAYERS
            )
    for character in hires:
        kind = characters()[character]
        if kind.module is not None and not getattr(state.options, kind.module):
            raise RuleViolation(
                f"trickerion.hire.needs_{kind.module}", f"{character} needs {kind.module}", PLAYERS
            )
        if kind.kind in ("specialist", "protege") and hires.count(character) > 1:
            raise RuleViolation("trickerion.hire.twice", f"{character} twice", PLAYERS)


def joined(state: TrickerionState, join: JoinedInProgress) -> tuple[TrickerionState, list[Change]]:
    """The state and the changes of a join (books hold tricks and hires; amounts are changes).

    Raises:
        RuleViolation: `trickerion.join.players` / `trickerion.join.trick_owned_twice` /
            `trickerion.join.negative_fame` / `trickerion.join.negative_coins` /
            `trickerion.card.unknown_trick` / `trickerion.hire.*` naming
            `payload.joined_in_progress.players`; `trickerion.join.turn` naming
            `payload.joined_in_progress.turn`; `trickerion.initiative.players` naming
            `payload.joined_in_progress.initiative_order`.
    """
    ids = [s.player_id for s in join.players]
    if sorted(ids) != sorted(state.books):
        raise RuleViolation(
            "trickerion.join.players",
            f"declare every player once: {sorted(state.books)}, got {ids}",
            PLAYERS,
        )
    if join.turn > state.final_turn:
        raise RuleViolation(
            "trickerion.join.turn",
            f"this game has {state.final_turn} turns, not {join.turn}",
            "payload.joined_in_progress.turn",
        )
    owned = [t for s in join.players for t in s.tricks]
    twice = sorted({t for t in owned if owned.count(t) > 1})
    if twice:
        raise RuleViolation(
            "trickerion.join.trick_owned_twice", f"each Trick card has one owner: {twice}", PLAYERS
        )
    order = join.initiative_order or state.initiative
    if sorted(order) != sorted(state.books):
        raise RuleViolation(
            "trickerion.initiative.players",
            f"initiative order must list every player once, got {list(order)}",
            "payload.joined_in_progress.initiative_order",
        )
    books = dict(state.books)
    changes: list[Change] = []
    note = f"joined in turn {join.turn}"
    for seat in join.players:
        _check_floors(state, seat)
        _check_seat(state, seat.tricks, seat.hires)
        advertised = join.turn if seat.advertised_this_turn else 0
        books[seat.player_id] = PlayerBook(
            0, 0, 0, tricks=seat.tricks, hires=seat.hires, advertised_in_turn=advertised
        )
        for resource, amount in (
            (Resource.FAME, seat.fame),
            (Resource.COINS, seat.coins),
            (Resource.SHARDS, seat.shards),
        ):
            changes.append(Change(seat.player_id, resource, amount, "joined", JOIN_RULE, note))
    state = replace(state, books=MappingProxyType(books), turn=join.turn, initiative=tuple(order))
    return state, changes
