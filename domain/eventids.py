"""`EventIds`: a game's event id -> seq index, filled from its history list on first read.

The fold appends every event to the history list and used to write its id into a dict as well:
a UUID hash and a dict store per event (about 4% of the fold) that only voids, what-if and a
replay's "void of" read. The index instead reads the ids from the history list when asked, the
events appended since it last read (the list only ever grows, see `domain.log`), so a fold that
never asks pays nothing and one that asks pays once per event. Source:
docs/decisions/0012-hot-reads-and-off-loop-replays.md (a fold whose cost per event does not
grow with the game).
"""

from __future__ import annotations

from itertools import islice
from uuid import UUID

from contracts.envelope import Envelope


class EventIds:
    """event id -> seq of the events of `items` (a history list), read from it on first use.

    The table may hold ids of events another branch of the same game appended (indexes of
    branches share it, as the eager index did): a reader checks a seq against its own history
    (`GameState.seq_of`). Not thread-safe, like the fold.
    """

    __slots__ = ("_items", "_n", "_seqs")

    def __init__(
        self, items: list[Envelope], seqs: dict[UUID, int] | None = None, n: int = 0
    ) -> None:
        self._items = items
        self._seqs: dict[UUID, int] = {} if seqs is None else seqs
        self._n = n  # items[:n] are in the table

    def follows(self, items: list[Envelope]) -> bool:
        """Whether this index reads `items` (the very list)."""
        return self._items is items

    def branch(self, items: list[Envelope], common: int) -> EventIds:
        """An index of `items`, a list whose first `common` events are this index's list's,
        sharing this index's table (what it read of the common events is not read again)."""
        return EventIds(items, self._seqs, min(self._n, common))

    def table(self) -> dict[UUID, int]:
        """The table, every event of the list in it (shared: do not change it)."""
        items = self._items
        if self._n < len(items):
            seqs = self._seqs
            for event in islice(items, self._n, None):
                seqs[event.event_id] = event.seq
            self._n = len(items)
        return self._seqs

    def get(self, event_id: UUID) -> int | None:
        """The seq the table holds for `event_id` (reading the list's new events on a miss)."""
        seq = self._seqs.get(event_id)
        if seq is None and self._n < len(self._items):
            seq = self.table().get(event_id)
        return seq
