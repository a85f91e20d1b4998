"""The ledger: every change of Fame / VP / Coins / Shards / Arcana with its cause.

Each `LedgerEntry` names the event that caused it, the player, the resource, the breakdown
category, the amount and the rule that produced it. Totals and breakdowns are derived from the
ledger, never stored beside it. Source: docs/decisions/0007-pure-domain-fold.md ("every point has a cause").
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple
from uuid import UUID


class Resource(StrEnum):
    """The resources the bundled games declare: Fame (Trickerion) and VP (Penumbra) are their
    score units. A ledger entry's `resource` is any str key a game declares (a `Resource` is one),
    so a new game needs no member here."""

    FAME = "fame"
    VP = "vp"
    COINS = "coins"
    SHARDS = "shards"
    ARCANA = "arcana"


class LedgerEntry(NamedTuple):
    """One change of one resource for one player (immutable: a named tuple, which costs a tenth
    of a frozen dataclass to build; the fold builds one per change, docs/decisions/0012-hot-reads-and-off-loop-replays.md).

    Attributes:
        event_id / seq: the event that caused it (for end-game entries, the `game.ended` event).
        player_id: who gained or lost.
        resource: the resource key (`fame`, `vp`, `coins`, `shards`, `arcana`, or a key its game
            declares); compare with `==`, not `is`.
        category: the breakdown key (e.g. `advertise`, `trick_yield`, `endgame_coins`, `trials`).
        amount: signed change, in units of `resource`.
        rule: the rule that produced it, a docs citation, e.g. `docs/rules/trickerion.md#advertise`
            (docs/architecture/adding-a-game.md#rule-citations), or `correction`.
        note: a short human explanation ("2 Fame for advertising, paid 3 Coins").
    """

    event_id: UUID
    seq: int
    player_id: str
    resource: str
    category: str
    amount: int
    rule: str
    note: str = ""


@dataclass(frozen=True, slots=True)
class Category:
    """A breakdown category with its labels; `endgame` marks categories scored at the end."""

    key: str
    en: str
    ru: str
    endgame: bool = False
