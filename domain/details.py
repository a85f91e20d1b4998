"""What a referee checks beside the score: each player's resources and one line per scored
card (Trickerion: each Level 3 trick), from the ruleset's `player_details` when it has one.

A ruleset may offer `player_details(rules_state, player_id) -> (resources, card_lines)`:
resources name -> count (Trickerion: coins, shards; Penumbra: arcana, experience, light,
dark) and card lines as (card_id, category, points, note). Pure; no I/O.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from pydantic import BaseModel, ConfigDict

from domain.memo import MISS, Memo


class CardLine(BaseModel):
    """One scored card: its id, breakdown category, points (score units) and the rule in words.
    During play the points are "if the game ended now" (provisional)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    card_id: str
    category: str
    points: int
    note: str


def player_details(
    ruleset: Any, rules_state: Any, player_id: str, memo: Memo | None = None
) -> tuple[dict[str, int], list[CardLine]]:
    """(resources, card lines) of one player; empty when the ruleset offers none.

    With a `memo` (the game's, `GameState.cache`), the answer is kept while the ruleset answers
    with the same object (a ruleset that keeps its details per player, see `domain.memo`);
    the values handed out are then shared and must not be changed.
    """
    details = getattr(ruleset, "player_details", None)
    if details is None:
        return {}, []
    raw = details(rules_state, player_id)
    if memo is None:
        return _typed(raw)
    return kept_details(raw, player_id, memo)


def kept_details(raw: Any, player_id: str, memo: Memo) -> tuple[dict[str, int], list[CardLine]]:
    """`player_details` of the ruleset's answer `raw` (resources, card lines) for one player,
    kept in `memo` (the game's) while the ruleset answers with the same object."""
    key = ("details", player_id)
    kept = memo.peek(key, (raw,))
    if kept is MISS:
        kept = _kept(raw, player_id, memo)
        memo.put(key, (raw,), kept)
    return kept  # type: ignore[no-any-return]


def _kept(raw: Any, player_id: str, memo: Memo) -> tuple[dict[str, int], list[CardLine]]:
    """`_typed(raw)`, its card lines kept from the player's last answer while they are equal
    (most events change a player's Coins, not the Fame of a Level 3 trick)."""
    resources, lines = raw
    if not lines:  # no scored card (most games): nothing to keep
        return dict(resources), []
    cards = memo.get(("card_lines", player_id), (), partial(_cards, lines), (lines,))
    return dict(resources), cards


def _typed(raw: Any) -> tuple[dict[str, int], list[CardLine]]:
    resources, lines = raw
    return dict(resources), _cards(lines)


def _cards(lines: Any) -> list[CardLine]:
    return [CardLine(card_id=c, category=k, points=p, note=n) for c, k, p, n in lines]
