"""The Trickerion ruleset's state (immutable) and the one place resources change.

Every Fame / Coins / Shards change goes through `settle`, which applies the floors of the
options (Coins never below 0, Fame clamped at 0) and emits one ledger entry per change.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import NamedTuple, NoReturn

from contracts.common import Player
from contracts.envelope import Envelope
from contracts.trickerion import MAX_PLAYERS, EndgameInventoryDeclared, TrickerionOptions
from domain.errors import RuleViolation
from domain.ledger import LedgerEntry, Resource
from domain.memo import Memo
from domain.trickerion.catalog import Trick, trick
from domain.values import replace, with_dict

_EMPTY: Mapping[str, EndgameInventoryDeclared] = MappingProxyType({})
_NO_CARDS: Mapping[str, Trick] = MappingProxyType({})
_FAME, _COINS = Resource.FAME, Resource.COINS  # an enum member read costs ~65 ns, a global ~6


class PlayerBook(NamedTuple):
    """One player's running totals and holdings (immutable: a named tuple, which `settle`
    builds in half the time of a frozen dataclass, once per changed player and event).

    `fame` (Fame, this ruleset's entries only: referee corrections are not seen here),
    `coins`, `shards` (loose Shards), `tricks` (learned Trick ids), `hires` (characters
    hired), `advertised_in_turn` (the last turn the player Advertised, 0 = never). A copy
    with other values: `book._replace(...)`. `settle` reads Fame, Coins and Shards as the first
    three fields (`book[:3]`); tests/domain/trickerion/test_play.py pins that order.
    """

    fame: int
    coins: int
    shards: int
    tricks: tuple[str, ...] = ()
    hires: tuple[str, ...] = ()
    advertised_in_turn: int = 0


@dataclass(frozen=True)
class TrickerionState:
    """Everything the Trickerion rules need to know (immutable; every change is a new value).

    `turn` 0 before the first `game.turn_started`; `initiative` player ids, position 1 first;
    `performed` Performance cards performed in this turn; `inventories` end-game inventories.
    """

    options: TrickerionOptions
    players: tuple[Player, ...]
    books: MappingProxyType[str, PlayerBook]
    turn: int = 0
    initiative: tuple[str, ...] = ()
    performed: frozenset[str] = frozenset()
    inventories: Mapping[str, EndgameInventoryDeclared] = field(default_factory=lambda: _EMPTY)
    extra_tricks: Mapping[str, Trick] = field(default_factory=lambda: _NO_CARDS)
    """Trick cards declared in the game start (domain.trickerion.extra_cards), by id."""
    memo: Memo = field(default_factory=Memo, compare=False, repr=False, hash=False)
    """Derived values kept per player while their book is unchanged (domain.memo); shared by
    every state of the game (copied along by `replace`), never part of the state's value."""

    def card(self, trick_id: str, where: str = "payload.trick_id") -> Trick:
        """The Trick card `trick_id` (catalog or declared). Raises `trickerion.card.unknown_trick`."""
        return trick(trick_id, where, self.extra_tricks)

    @property
    def final_turn(self) -> int:
        """7 with the Dark Alley, else 5 (docs/rules/trickerion.md#game-length)."""
        return 7 if self.options.dark_alley else 5

    def book(self, player_id: str, where: str = "payload.player_id") -> PlayerBook:
        """The player's book.

        Raises:
            RuleViolation: `trickerion.player.unknown` naming `where`.
        """
        try:
            return self.books[player_id]
        except KeyError:
            raise RuleViolation(
                "trickerion.player.unknown", f"no player {player_id!r} in this game", where
            ) from None

    def position(self, player_id: str) -> int:
        """The player's initiative position now (1 acts first)."""
        return self.initiative.index(player_id) + 1

    def owner_of(self, trick_id: str) -> str | None:
        """Who has learned `trick_id` (each Trick card exists once), or None."""
        return next((pid for pid, b in self.books.items() if trick_id in b.tricks), None)

    def name(self, player_id: str) -> str:
        """The player's display name."""
        return next(p.name for p in self.players if p.player_id == player_id)

    def with_book(self, player_id: str, book: PlayerBook) -> TrickerionState:
        """A copy with one player's book replaced."""
        books = self.books.copy()
        books[player_id] = book
        return replace(self, books=MappingProxyType(books))

    def with_inventory(self, inventory: EndgameInventoryDeclared) -> TrickerionState:
        """A copy with one player's end-game inventory recorded."""
        merged = {**self.inventories, inventory.player_id: inventory}
        return replace(self, inventories=MappingProxyType(merged))


class Change(NamedTuple):
    """An intended change: `amount` of `resource` for `player_id` (signed), its breakdown
    `category`, the `rule` anchor, a `note`, and the event `field` blamed if it cannot be paid."""

    player_id: str
    resource: Resource
    amount: int
    category: str
    rule: str
    note: str
    field: str = "payload"


Changed = tuple[str, Resource, int, str, str, str, str]
"""A `Change` as a plain tuple, its fields in the same order: what the hot handlers build (a
named tuple costs about four times a plain tuple to build, docs/profiles/fold-event-cost.md)."""


def settle(
    state: TrickerionState,
    event: Envelope,
    changes: Iterable[Changed],
    new_book: tuple[str, PlayerBook] | None = None,
) -> tuple[TrickerionState, tuple[LedgerEntry, ...]]:
    """Apply `changes` (`Change`s or plain `Changed` tuples) in order; return the new state and
    one ledger entry per non-zero change.
    `new_book`, (player id, book): that player's new book (a trick learned, a hire, an Advertise),
    the changes applied to it, in the same new state (one copy of the state, not two).

    Coins below 0 are refused under `negative_coins="never"` (docs/rules/trickerion.md#during-play);
    Shards never go below 0; Fame stops at 0 under `fame_floor="clamp_zero"` (§5.4), the
    entry's note saying how much was not taken.

    Raises:
        RuleViolation: `trickerion.coins.insufficient` / `trickerion.shards.insufficient`
            naming the change's field; `trickerion.player.unknown`.
    """
    entries: list[LedgerEntry] = []
    # player -> [fame, coins, shards] as the changes run, from the new book's if any
    held = {} if new_book is None else {new_book[0]: list(new_book[1][:3])}
    books = state.books
    event_id, seq = event.event_id, event.seq
    for pid, resource, amount, category, rule, note, where in changes:
        if not amount:
            continue
        now = held.get(pid)
        if now is None:
            try:
                book = books[pid]
            except KeyError:
                book = state.book(pid)  # raises trickerion.player.unknown
            now = held[pid] = list(book[:3])
        # Fame first: most changes are Fame (docs/rules/trickerion.md#during-play floors)
        # the options are read only when a floor is reached (rare; a read costs ~100 ns)
        if resource is _FAME:
            if now[0] + amount < 0 and state.options.fame_floor == "clamp_zero":
                amount, note = _clamped(now[0], amount, note)
            now[0] += amount
        elif resource is _COINS:
            if now[1] + amount < 0 and state.options.negative_coins == "never":
                _refuse("trickerion.coins.insufficient", pid, now[1], amount, where)
            now[1] += amount
        else:
            if now[2] + amount < 0:
                _refuse("trickerion.shards.insufficient", pid, now[2], amount, where)
            now[2] += amount
        entries.append(  # LedgerEntry(...) without its Python-level __new__ (the same tuple)
            _tuple_new(LedgerEntry, (event_id, seq, pid, resource, category, amount, rule, note))
        )
    return (_written(state, held, new_book) if held else state), tuple(entries)


def settle_one(
    state: TrickerionState,
    event: Envelope,
    player_id: str,
    book: PlayerBook,
    changes: Iterable[Changed],
) -> tuple[TrickerionState, tuple[LedgerEntry, ...]]:
    """`settle(state, event, changes, (player_id, book))` for changes that are all
    `player_id`'s (their own player id is not read): most handlers change one player, and this
    path keeps Fame, Coins and Shards in locals instead of settle's per-player lists (about
    3.5k instructions an event, docs/profiles/fold-event-cost.md). `book` is the player's book
    now (`state.books[player_id]`) or the new one an event gives them; the state is returned
    as it is when that is the book now and every change is zero. Floors as `settle`.

    Raises:
        RuleViolation: `trickerion.coins.insufficient` / `trickerion.shards.insufficient`
            naming the change's field.
    """
    fame, coins, shards = book[0], book[1], book[2]
    entries: list[LedgerEntry] = []
    ev = event.__dict__  # one slow pydantic read for the two fields (as `domain.fold.Folder.add`)
    event_id, seq = ev["event_id"], ev["seq"]
    for _, resource, amount, category, rule, note, where in changes:
        if not amount:
            continue
        if resource is _FAME:  # floors as in `settle` (options read only at a floor)
            if fame + amount < 0 and state.options.fame_floor == "clamp_zero":
                amount, note = _clamped(fame, amount, note)
            fame += amount
        elif resource is _COINS:
            if coins + amount < 0 and state.options.negative_coins == "never":
                _refuse("trickerion.coins.insufficient", player_id, coins, amount, where)
            coins += amount
        else:
            if shards + amount < 0:
                _refuse("trickerion.shards.insufficient", player_id, shards, amount, where)
            shards += amount
        entries.append(
            _tuple_new(
                LedgerEntry, (event_id, seq, player_id, resource, category, amount, rule, note)
            )
        )
    fields = state.__dict__
    books = fields["books"]
    if not entries and books.get(player_id) is book:
        return state, ()
    book = _tuple_new(PlayerBook, (fame, coins, shards, *book[3:]))  # any later fields as they are
    scratch = fields.get("_scratch")
    if scratch is not None and scratch[0] is books:  # ours to write: see `thawed`
        scratch[1][player_id] = book
        return state, tuple(entries)
    new, written = _copied(state, scratch is not None)
    written[player_id] = book
    return new, tuple(entries)


def _written(
    state: TrickerionState, held: dict[str, list[int]], new_book: tuple[str, PlayerBook] | None
) -> TrickerionState:
    """`state` with `new_book` in and the changed players' [fame, coins, shards] written back:
    one new book per changed player, once per event (the fold's hot path). A state `thawed`
    for a folder is written in place (no copy of the state and books per event); any other
    is copied first."""
    fields = state.__dict__
    scratch = fields.get("_scratch")
    if scratch is not None and scratch[0] is fields["books"]:  # ours to write: see `thawed`
        new, books = state, scratch[1]
    else:  # a copy; still the folder's to write if `state` was (its books were replaced)
        new, books = _copied(state, scratch is not None)
    if new_book is not None:
        books[new_book[0]] = new_book[1]
    for pid, (fame, coins, shards) in held.items():
        book = books[pid]  # `book._replace(fame=..., ...)` without the keyword dict
        books[pid] = _tuple_new(PlayerBook, (fame, coins, shards, *book[3:]))
    return new


def thawed(state: TrickerionState) -> TrickerionState:
    """A copy of `state` (equal to it) that `settle` writes in place instead of copying, as
    do the states made from it with `replace`, until `frozen`: for a `domain.fold.Folder`,
    which holds its current state alone between the events and freezes it before handing
    it out (a mark, a `GameState`). O(players)."""
    return _copied(state, True)[0]


def frozen(state: TrickerionState) -> None:
    """Make `state` (and `state` only) immutable again: `settle` copies it from now on."""
    state.__dict__.pop("_scratch", None)


def _copied(state: TrickerionState, scratch: bool) -> tuple[TrickerionState, dict[str, PlayerBook]]:
    """A copy of `state` with its own books dict (returned too), marked `thawed` if `scratch`
    (the state copy inlined: `replace` costs a keyword dict per call)."""
    books = state.books.copy()  # the proxied dict's own copy (dict(proxy) goes key by key)
    proxy = _proxy(books)
    fields = {**state.__dict__, "books": proxy}
    if scratch:
        fields["_scratch"] = (proxy, books)
    return with_dict(TrickerionState, fields), books


def _clamped(fame: int, amount: int, note: str) -> tuple[int, str]:
    """A Fame loss of `amount` stopped at 0 Fame from `fame`: the amount taken and its note."""
    taken = -fame
    return taken, f"{note} (clamped at 0 Fame; {amount - taken} not taken)"


def _refuse(rule: str, pid: str, held: int, amount: int, where: str) -> NoReturn:
    """Refuse a payment of `-amount` Coins or Shards (`rule`) that `pid`, holding `held`,
    cannot make.

    Raises:
        RuleViolation: `rule`, naming `where`.
    """
    if rule == "trickerion.coins.insufficient":
        raise RuleViolation(
            "trickerion.coins.insufficient", f"{pid} has {held} Coins, cannot pay {-amount}", where
        )
    raise RuleViolation(
        "trickerion.shards.insufficient", f"{pid} has {held} Shards, cannot pay {-amount}", where
    )


_tuple_new = tuple.__new__
_proxy = MappingProxyType


def start_state(options: TrickerionOptions, players: tuple[Player, ...]) -> TrickerionState:
    """The state at set-up, before the starting resources are settled (books at 0).

    Raises:
        RuleViolation: `trickerion.setup.players` (not 1-4 players) or
            `trickerion.setup.initiative` (starting positions are not exactly 1..N), both
            naming `payload.players`.
    """
    if not 1 <= len(players) <= MAX_PLAYERS:
        raise RuleViolation(
            "trickerion.setup.players",
            f"Trickerion seats 1 to {MAX_PLAYERS} players",
            "payload.players",
        )
    positions = sorted(p.initiative or 0 for p in players)
    if positions != list(range(1, len(players) + 1)):
        raise RuleViolation(
            "trickerion.setup.initiative",
            "every player needs a starting initiative position, 1..N once each",
            "payload.players",
        )
    order = tuple(p.player_id for p in sorted(players, key=lambda p: p.initiative or 0))
    books = MappingProxyType({p.player_id: PlayerBook(0, 0, 0) for p in players})
    return TrickerionState(options=options, players=players, books=books, initiative=order)
