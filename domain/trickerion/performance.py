"""Performances: each trick's yield to its owner first, then the performer's bonuses.

Source: docs/rules/trickerion.md#performance (trick yield, Links performed,
'Performance card', 'Theater specialists' and the sentence "Resolve each trick's yield first,
then the performer's bonuses"; weekday modifiers: docs/rules/trickerion.md#during-play.
"""

from __future__ import annotations

from contracts.envelope import Envelope
from contracts.trickerion import PerformanceGiven, TrickYielded
from domain.errors import RuleViolation
from domain.ledger import LedgerEntry, Resource
from domain.trickerion import categories as r
from domain.trickerion.catalog import Amounts, PerformanceCard, characters, performance
from domain.trickerion.state import Change, Changed, TrickerionState, settle_one
from domain.trickerion.turns import require_turn
from domain.values import replace

Result = tuple[TrickerionState, tuple[LedgerEntry, ...]]
_FAME, _COINS, _SHARDS = Resource.FAME, Resource.COINS, Resource.SHARDS

WEEKDAY_MODIFIERS: dict[str, int] = {"thursday": -1, "friday": 0, "saturday": 0, "sunday": 1}
"""Fame and Coin modifier per trick owner by day (docs/rules/trickerion.md#during-play: JD, RC, DZ, BGA)."""


def _card_in_play(state: TrickerionState, card_id: str) -> PerformanceCard:
    card = performance(card_id)
    if card.dark_alley_only and not state.options.dark_alley:
        raise RuleViolation(
            "trickerion.performance.needs_dark_alley",
            f"{card.id} ({card.theater}) is used with the Dark Alley only",
            "payload.performance_card_id",
        )
    return card


def _check_amounts(
    fame: int | None,
    coins: int | None,
    shards: int | None,
    expected: Amounts,
    rule: str,
    prefix: str,
) -> None:
    if (
        (fame is None or fame == expected.fame)
        and (coins is None or coins == expected.coins)
        and (shards is None or shards == expected.shards)
    ):  # the usual event: no loop, no getattr
        return
    for name, value in (("fame", fame), ("coins", coins), ("shards", shards)):
        want = getattr(expected, name)
        if value is not None and value != want:
            raise RuleViolation(
                rule,
                f"{name} is {want} by the catalog, the event says {value}",
                f"payload.{prefix}{name}",
            )


def gains(pid: str, amounts: Amounts, category: str, rule: str, note: str) -> list[Changed]:
    """The Fame, Coins and Shards of `amounts` for `pid` as changes, in that order, the zero
    ones left out (`settle` would skip them; not building them is the cheaper)."""
    fame, coins, shards = amounts.fame, amounts.coins, amounts.shards
    out = [(pid, _FAME, fame, category, rule, note, _WHERE)] if fame else []
    if coins:
        out.append((pid, _COINS, coins, category, rule, note, _WHERE))
    if shards:
        out.append((pid, _SHARDS, shards, category, rule, note, _WHERE))
    return out


_WHERE = Change._field_defaults["field"]


def yield_amounts(state: TrickerionState, printed: Amounts, weekday: str | None) -> Amounts:
    """The yield paid per marker: printed, or with the weekday modifier on Fame and Coins
    (never below 0) when `weekday_yield_modifiers` is on.

    Raises:
        RuleViolation: `trickerion.yield.weekday_required` naming payload.weekday.
    """
    if not state.options.weekday_yield_modifiers:
        return printed
    if weekday is None:
        raise RuleViolation(
            "trickerion.yield.weekday_required",
            "weekday modifiers are on: name the day",
            "payload.weekday",
        )
    mod = WEEKDAY_MODIFIERS[weekday]
    key = (printed.fame, printed.coins, printed.shards, mod)
    paid = _MODIFIED.get(key)
    if paid is None:  # once per printed yield and day (building a frozen dataclass is slow)
        paid = Amounts(max(0, printed.fame + mod), max(0, printed.coins + mod), printed.shards)
        if len(_MODIFIED) < 4096:  # declared cards may print any yield: bounded
            _MODIFIED[key] = paid
    return paid


_MODIFIED: dict[tuple[int, int, int, int], Amounts] = {}
"""(printed Fame, Coins, Shards, the day's modifier) -> the yield paid (immutable values)."""


def trick_yielded(state: TrickerionState, event: Envelope, p: TrickYielded) -> Result:
    """The owner of a trick performed receives its printed yield (per marker on the card).

    Raises:
        RuleViolation: `trickerion.yield.trick_not_owned` (payload.trick_id),
            `trickerion.yield.after_performer_bonuses` (payload.performance_card_id: the card's
            bonuses were already paid this turn), `trickerion.yield.amount_mismatch`
            (payload.fame / coins / shards), unknown player or card.
    """
    if not state.turn:  # the call only to refuse: a call costs ~400 instructions an event
        require_turn(state)
    # the payload's fields from its dict: a pydantic model's attribute read is a slow path
    # (its `__getattr__` hook), a dict read is not (docs/profiles/fold-event-cost.md)
    f = p.__dict__
    owner, on, weekday = f["owner_id"], f["performance_card_id"], f["weekday"]
    books = state.books  # `state.book` only to refuse an unknown player (as `require_turn`)
    book = books[owner] if owner in books else state.book(owner, "payload.owner_id")
    card = state.card(f["trick_id"])
    _card_in_play(state, on)
    if card.id not in book.tricks:
        raise RuleViolation(
            "trickerion.yield.trick_not_owned",
            f"{owner} does not own {card.id}",
            "payload.trick_id",
        )
    if on in state.performed:
        raise RuleViolation(
            "trickerion.yield.after_performer_bonuses",
            f"{on} was performed this turn; yields come first ({r.YIELD_FIRST})",
            "payload.performance_card_id",
        )
    paid = yield_amounts(state, card.yield_, weekday)
    _check_amounts(f["fame"], f["coins"], f["shards"], paid, "trickerion.yield.amount_mismatch", "")
    note = f"{card.id} {card.name} on {on}" + (f" ({weekday})" if weekday else "")
    return settle_one(
        state, event, owner, book, gains(owner, paid, "trick_yield", r.TRICK_YIELD, note)
    )


def performance_given(state: TrickerionState, event: Envelope, p: PerformanceGiven) -> Result:
    """The performer's bonuses, in order: 1 Fame per Link on the card, the card's printed
    bonus, then each specialist behind them (Assistant 2 Fame, Manager 3 Coins, Engineer 1 Shard).

    Raises:
        RuleViolation: `trickerion.performance.once_per_turn` / `needs_dark_alley`
            (payload.performance_card_id), `trickerion.performance.links_exceeded` (payload.links),
            `trickerion.performance.specialist_not_hired` (payload.specialists_behind),
            `trickerion.performance.bonus_mismatch` (payload.bonus_*), unknown player or card.
    """
    if not state.turn:  # as `trick_yielded`
        require_turn(state)
    f = p.__dict__  # the payload's fields, each read once (as `trick_yielded`)
    pid, links, behind = f["performer_id"], f["links"], f["specialists_behind"]
    books = state.books
    book = books[pid] if pid in books else state.book(pid, "payload.performer_id")
    card = _card_in_play(state, f["performance_card_id"])
    if card.id in state.performed:
        raise RuleViolation(
            "trickerion.performance.once_per_turn",
            f"{card.id} was already performed this turn",
            "payload.performance_card_id",
        )
    if links > card.links:
        raise RuleViolation(
            "trickerion.performance.links_exceeded",
            f"{card.id} has {card.links} Links, not {links}",
            "payload.links",
        )
    missing = [s for s in behind if s not in book.hires]
    if missing:
        raise RuleViolation(
            "trickerion.performance.specialist_not_hired",
            f"{pid} has not hired {', '.join(missing)}",
            "payload.specialists_behind",
        )
    _check_amounts(
        f["bonus_fame"],
        f["bonus_coins"],
        f["bonus_shards"],
        card.bonus,
        "trickerion.performance.bonus_mismatch",
        "bonus_",
    )
    changes: list[Changed] = (
        [
            (
                pid,
                _FAME,
                links,
                "performance_links",
                r.PERFORM_LINKED,
                f"{links} Links on {card.id}",
                _WHERE,
            )
        ]
        if links
        else []
    )
    changes += gains(pid, card.bonus, "performance_bonus", r.PERFORMANCE_CARD, f"{card.id} bonus")
    for specialist in behind:
        gift = characters()[specialist].backstage
        assert gift is not None  # the catalog gives every specialist a backstage bonus
        changes += gains(
            pid, gift, "theater_specialists", r.THEATER_SPECIALISTS, f"{specialist} backstage"
        )
    state = replace(state, performed=state.performed | {card.id})
    return settle_one(state, event, pid, book, changes)
