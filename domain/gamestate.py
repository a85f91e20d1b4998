"""`GameState`: everything known about one game after its events so far (immutable), and the
`Mark`s a void refolds from. Built by `domain.fold` (`Folder.state`, `start`). Source:
docs/decisions/0007-pure-domain-fold.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Literal
from uuid import UUID

from typing_extensions import TypeVar

from contracts.common import Player
from contracts.envelope import Envelope
from domain.eventids import EventIds
from domain.ledger import LedgerEntry
from domain.log import Log
from domain.memo import Memo
from domain.ruleset import Ruleset
from domain.rulesets import ruleset_for_game

Status = Literal["in_progress", "final"]
S = TypeVar("S", default=Any)
"""The ruleset's own state type (a frozen value)."""

Totals = Mapping[str, int]
Breakdown = Mapping[str, Mapping[str, int]]


@dataclass(frozen=True, slots=True)
class Mark(Generic[S]):
    """The fold right after event `seq`: what a refold needs to resume there."""

    seq: int
    status: Status
    rules: S
    ledger_len: int
    totals: Totals
    breakdown: Breakdown


@dataclass(frozen=True)
class GameState(Generic[S]):
    """Everything known about one game after its events so far (immutable).

    Attributes:
        game_id / game: the game and its ruleset key.
        players: the seated players, in seat order.
        seq: the last applied event's seq (the game's version).
        status: `in_progress` until `game.ended`, then `final`.
        rules: the ruleset's own state value.
        ledger: every resource change, in order (a read-only sequence).
        history: every event applied, voided ones included (needed to refold on a void).
        voided: ids of voided events.
        ids: event id -> seq, every event of the history (read from it on first use, see
            `domain.eventids`; may hold other branches' ids: use `seq_of`).
        totals: player id -> sum of the ledger in the score unit.
        breakdown: player id -> category -> sum in the score unit (categories with an entry).
    """

    game_id: str
    game: str
    players: tuple[Player, ...]
    seq: int
    status: Status
    rules: S
    ledger: Log[LedgerEntry]
    history: Log[Envelope]
    voided: frozenset[UUID]
    totals: Totals
    breakdown: Breakdown
    marks: Log[Mark[S]] = field(default_factory=Log, compare=False, repr=False)
    id_index: EventIds = field(default=None, compare=False, repr=False)  # type: ignore[assignment]
    """The history's event ids (`ids`), None to index `history` from scratch."""
    memo: dict[str, object] = field(default_factory=dict, compare=False, repr=False, hash=False)
    """Values derived from this (immutable) state, computed once (e.g. its standings)."""
    cache: Memo = field(default_factory=Memo, compare=False, repr=False, hash=False)
    """Values derived from parts of the game's states, shared by every state of the game and
    kept while their inputs are the same objects (e.g. a player's standings line)."""

    def __post_init__(self) -> None:
        if self.id_index is None:
            object.__setattr__(self, "id_index", EventIds(self.history.buffer()[0]))

    @property
    def ids(self) -> Mapping[UUID, int]:
        """Event id -> seq of every event of the history (see the class docstring)."""
        return self.id_index.table()

    @property
    def ruleset(self) -> Ruleset[S]:
        """The game's ruleset."""
        return ruleset_for_game(self.game)

    def seq_of(self, event_id: UUID) -> int | None:
        """The seq of event `event_id` in this state's history, None if it has none."""
        index = self.id_index
        seq = index.get(event_id)
        if seq is None or not self._has(seq, event_id):  # maybe another branch's: read ours
            seq = index.table().get(event_id)
            if seq is None:
                return None
            if not self._has(seq, event_id):  # another branch's seq for it, read after ours
                return self._scan(event_id)
        return seq

    def _scan(self, event_id: UUID) -> int | None:
        """`seq_of` by a walk of the history, newest first: when the shared table holds the id
        at another branch's seq (rare: both branches hold the event, or only the other)."""
        items, _ = self.history.buffer()
        for seq in range(self.seq, 0, -1):
            if items[seq - 1].event_id == event_id:
                return seq
        return None

    def _has(self, seq: int, event_id: UUID) -> bool:
        return seq <= self.seq and self.history[seq - 1].event_id == event_id
