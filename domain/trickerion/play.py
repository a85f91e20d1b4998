"""Fame, Coins and Shards during play: Advertise, learning, hiring, Links, other changes.

Each function takes the state and the event, returns `(new state, ledger entries)` and raises
`RuleViolation` (state unchanged) for bad input. Performances are in `performance.py`.
Source: docs/rules/trickerion.md#during-play.
"""

from __future__ import annotations

from contracts.envelope import Envelope
from contracts.trickerion import (
    Advertised,
    CharacterHired,
    LinkCreated,
    ResourcesChanged,
    TrickLearned,
)
from domain.errors import RuleViolation
from domain.ledger import LedgerEntry, Resource
from domain.trickerion import categories as r
from domain.trickerion.catalog import characters
from domain.trickerion.state import (
    Change,
    Changed,
    PlayerBook,
    TrickerionState,
    settle,
    settle_one,
)
from domain.trickerion.turns import require_turn

Result = tuple[TrickerionState, tuple[LedgerEntry, ...]]
_FAME, _COINS, _SHARDS = Resource.FAME, Resource.COINS, Resource.SHARDS

ADVERTISE_FAME = 2
"""Fame for Advertising (docs/rules/trickerion.md#advertise)."""


def advertise(state: TrickerionState, event: Envelope, p: Advertised) -> Result:
    """Advertise: pay Coins equal to your initiative position, once per turn; gain 2 Fame.

    Raises:
        RuleViolation: `trickerion.advertise.once_per_turn` (payload.player_id),
            `trickerion.advertise.cost` (payload.coins_paid), `trickerion.coins.insufficient`.
    """
    require_turn(state)
    pid, paid, turn = p.player_id, p.coins_paid, state.turn  # read once (pydantic)
    book = state.book(pid)
    if book.advertised_in_turn == turn:
        raise RuleViolation(
            "trickerion.advertise.once_per_turn",
            f"{pid} has already Advertised in turn {turn}",
            "payload.player_id",
        )
    position = state.position(pid)
    if paid != position:
        raise RuleViolation(
            "trickerion.advertise.cost",
            f"Advertise costs the position, {position}; {pid} paid {paid}",
            "payload.coins_paid",
        )
    note = f"Advertised at initiative position {position}"
    return settle_one(
        state,
        event,
        pid,
        book._replace(advertised_in_turn=turn),
        (
            (pid, _COINS, -position, "advertise", r.ADVERTISE, note, "payload.coins_paid"),
            (pid, _FAME, ADVERTISE_FAME, "advertise", r.ADVERTISE, note, _WHERE),
        ),
    )


def trick_learned(state: TrickerionState, event: Envelope, p: TrickLearned) -> Result:
    """Learn a Trick card; pay `coins_paid` Coins. Each card has one owner.

    Raises:
        RuleViolation: `trickerion.card.unknown_trick`, `trickerion.trick.level3_needs_dark_alley`
            ("Level 3 tricks are not in play" without the Dark Alley),
            `trickerion.trick.already_owned`
            (all naming payload.trick_id), `trickerion.coins.insufficient` (payload.coins_paid).
    """
    require_turn(state)
    book = state.book(p.player_id)
    card = state.card(p.trick_id)
    if card.level == 3 and not state.options.dark_alley:
        raise RuleViolation(
            "trickerion.trick.level3_needs_dark_alley",
            f"{card.id} is Level 3: not in play without the Dark Alley ({r.BASE_GAME})",
            "payload.trick_id",
        )
    owner = state.owner_of(card.id)
    if owner is not None:
        raise RuleViolation(
            "trickerion.trick.already_owned",
            f"{card.id} is already owned by {owner}",
            "payload.trick_id",
        )
    book = book._replace(tricks=(*book.tricks, card.id))
    return _bought(
        state, event, p.player_id, book, p.coins_paid, "learn", f"learned {card.id} {card.name}"
    )


def character_hired(state: TrickerionState, event: Envelope, p: CharacterHired) -> Result:
    """Hire a character (no Fame; `coins_paid` Coins if any). Specialists and the Protégé once each.

    Raises:
        RuleViolation: `trickerion.hire.needs_academy` / `trickerion.hire.needs_arcane_arts`
            (module off) or `trickerion.hire.twice` (payload.character);
            `trickerion.coins.insufficient`.
    """
    require_turn(state)
    book = state.book(p.player_id)
    module = characters()[p.character].module
    if module is not None and not getattr(state.options, module):
        raise RuleViolation(
            f"trickerion.hire.needs_{module}",
            f"{p.character} needs the {module} module",
            "payload.character",
        )
    if characters()[p.character].kind in ("specialist", "protege") and p.character in book.hires:
        raise RuleViolation(
            "trickerion.hire.twice",
            f"{p.player_id} already has a {p.character}",
            "payload.character",
        )
    book = book._replace(hires=(*book.hires, p.character))
    return _bought(state, event, p.player_id, book, p.coins_paid, "hire", f"hired {p.character}")


def _bought(
    state: TrickerionState,
    event: Envelope,
    player_id: str,
    book: PlayerBook,
    coins_paid: int,
    category: str,
    note: str,
) -> Result:
    """The player's new `book` (a trick learned, a character hired) and `coins_paid` Coins paid
    for it in `category` (docs/rules/trickerion.md#during-play).

    Raises:
        RuleViolation: `trickerion.coins.insufficient` naming payload.coins_paid.
    """
    change = (player_id, _COINS, -coins_paid, category, r.OTHER_SOURCES, note, "payload.coins_paid")
    return settle_one(state, event, player_id, book, (change,))


def link_created(state: TrickerionState, event: Envelope, p: LinkCreated) -> Result:
    """A placed marker completes a Link: the placer gains the placed trick's Level (1/2/3) in
    Fame or Coins; a Shard Link pays 1 Shard to each connected Trick owner
    (docs/rules/trickerion.md#create-a-link; one owner of both markers: option
    `shard_link_same_owner`, docs/rules/trickerion.md#during-play).

    Raises:
        RuleViolation: `trickerion.player.unknown` (payload.player_id / payload.other_owner_id),
            `trickerion.link.trick_not_owned` (payload.trick_id),
            `trickerion.link.other_owner_has_no_trick` (payload.other_owner_id).
    """
    if not state.turn:  # the call only to refuse (as `performance.trick_yielded`)
        require_turn(state)
    f = p.__dict__  # the payload's fields, each read once (a pydantic attribute read is slow)
    pid, other_id = f["player_id"], f["other_owner_id"]
    books = state.books  # `state.book` only to refuse an unknown player
    book = books[pid] if pid in books else state.book(pid)
    other = books[other_id] if other_id in books else state.book(other_id, "payload.other_owner_id")
    card = state.card(f["trick_id"])
    if card.id not in book.tricks:
        raise RuleViolation(
            "trickerion.link.trick_not_owned",
            f"{pid} places a marker of {card.id}, which they do not own",
            "payload.trick_id",
        )
    if not other.tricks:
        raise RuleViolation(
            "trickerion.link.other_owner_has_no_trick",
            f"{other_id} owns no trick, so has no marker to link to",
            "payload.other_owner_id",
        )
    resource = _FAME if f["reward"] == "fame" else _COINS
    note = f"Link with {card.id} (Level {card.level})"
    changes: list[Changed] = [(pid, resource, card.level, "link", r.CREATE_LINK, note, _WHERE)]
    if not f["shard_link"]:  # the placer alone
        return settle_one(state, event, pid, book, changes)
    owners = [pid, other_id]
    if state.options.shard_link_same_owner == "once_per_owner":
        owners = list(dict.fromkeys(owners))
    changes += [
        (o, _SHARDS, 1, "link", r.SHARD_LINK, f"Shard Link by {pid}", _WHERE) for o in owners
    ]
    return settle(state, event, changes)


def resources_changed(state: TrickerionState, event: Envelope, p: ResourcesChanged) -> Result:
    """Any other Fame / Coins / Shards change, in the category of its `reason`.

    Wages a player cannot pay (`negative_coins="never"`): they pay every Coin they have and lose
    `unpaid_coin_fame_penalty` Fame per unpaid Coin (docs/rules/trickerion.md#during-play).

    Raises:
        RuleViolation: `trickerion.coins.insufficient` (payload.coins) or
            `trickerion.shards.insufficient` (payload.shards).
    """
    f = p.__dict__  # the payload's fields, each read once (a pydantic attribute read is slow)
    pid, reason, fame, coins, shards = (
        f["player_id"],
        f["reason"],
        f["fame"],
        f["coins"],
        f["shards"],
    )
    books = state.books  # `state.book` only to refuse an unknown player
    book = books[pid] if pid in books else state.book(pid)
    note = f["note"] or reason
    changes: list[Changed] = (  # zero changes are not built (settle would skip them)
        [(pid, _FAME, fame, reason, r.OTHER_SOURCES, note, "payload.fame")] if fame else []
    )
    unpaid = -(book.coins + coins)
    if reason == "wages" and unpaid > 0 and state.options.negative_coins == "never":
        coins = -book.coins
        penalty = unpaid * state.options.unpaid_coin_fame_penalty
        changes.append(
            (
                pid,
                _FAME,
                -penalty,
                "unpaid_wages",
                r.UNPAID_WAGES,
                f"{unpaid} Coins of wages unpaid, {penalty} Fame",
                _WHERE,
            )
        )
    if coins:
        changes.append((pid, _COINS, coins, reason, r.OTHER_SOURCES, note, "payload.coins"))
    if shards:
        changes.append((pid, _SHARDS, shards, reason, r.OTHER_SOURCES, note, "payload.shards"))
    return settle_one(state, event, pid, book, changes)


_WHERE = Change._field_defaults["field"]
