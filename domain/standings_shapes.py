"""The standings' wire shapes (pydantic models): `Standings`, `PlayerStanding`, `Provisional`,
`CategoryLabel`, `Label`. Built by `domain.standings` from the fold's own values (without
validation); re-exported there. Source: docs/decisions/0007-pure-domain-fold.md (standings), docs/decisions/0012-hot-reads-and-off-loop-replays.md.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict

from domain.details import CardLine


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CategoryLabel(Frozen):
    """A breakdown category: stable key, English and Russian labels, scored at the end or not."""

    key: str
    en: str
    ru: str
    endgame: bool


class Label(Frozen):
    """A text in English and Russian (from the game registry)."""

    en: str
    ru: str


class Provisional(Frozen):
    """ "If the game ended now" (during play only): `categories` are the end-game categories
    computed from the current state and not yet in the ledger; `total` is the player's total
    plus them. Not final: the state can still change."""

    categories: dict[str, int]
    total: int


class PlayerStanding(Frozen):
    """One player's line: rank (shared places), total in score units, breakdown by category."""

    player_id: str
    name: str
    seat: int
    rank: int
    total: int
    categories: dict[str, int]
    provisional: Provisional | None = None
    resources: dict[str, int] = {}
    """Resources held now besides the score (Trickerion: coins, shards; Penumbra: arcana,
    experience, light, dark), from the ruleset (domain.details)."""
    card_lines: list[CardLine] = []
    """One line per scored card (Trickerion: each Level 3 trick), provisional during play."""


class Standings(Frozen):
    """A game's standings at `seq`.

    `winner` is the single winner after the tie-break (None during play or for a shared
    first place); `winners` lists every player in first place after the tie-break;
    `tie_break` explains in words how a tie for first was settled, if there was one.
    """

    game_id: str
    game: str
    status: Literal["in_progress", "final"]
    seq: int
    score_unit: str
    players: list[PlayerStanding]
    winner: str | None
    winners: list[str]
    tie_break: str | None
    categories: list[CategoryLabel]
    title: Label | None = None
    """The game's name, EN/RU (registry metadata, so a page needs no game-specific code)."""
    score_unit_label: Label | None = None
    """The score unit's display name, EN/RU (`Fame`/`Слава`, `VP`/`ПО`)."""


class _Totalled(Protocol):
    @property
    def total(self) -> int: ...


class PlayerTotals(Protocol):
    """What a per-player summary's head reads of one player's line: the fold's
    `PlayerStanding` or the query service's view of it."""

    @property
    def player_id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def rank(self) -> int: ...
    @property
    def total(self) -> int: ...
    @property
    def provisional(self) -> _Totalled | None: ...


def player_totals(line: PlayerTotals) -> dict[str, Any]:
    """`{player_id, name, rank, total, provisional_total}` of one player's line, the head of
    every per-player summary (`score --json`, a webhook's standings): `provisional_total` is
    the total "if the game ended now", the total itself once final. Units: the game's score
    unit."""
    return {
        "player_id": line.player_id,
        "name": line.name,
        "rank": line.rank,
        "total": line.total,
        "provisional_total": line.provisional.total if line.provisional else line.total,
    }
