"""The ingest's cache of folded games (the domain-checked append plans new events on it).

`StateCache`: LRU map game_id -> `Known` (a folded state and its event ids), bounded by games
and by estimated bytes (`known_bytes`). Source: docs/decisions/0011-faults-are-answered-not-crashed.md (caches bounded by size);
split out of services/usecases/check.py (docs/decisions/0012-hot-reads-and-off-loop-replays.md).

The estimate is `sizedcache.state_bytes`'s (`game_bytes` plus `TEXT_FACTOR` times the text),
but an appended game's text is counted as it grows (`grown`), as the projector's views count
it (services/usecases/gameview.py): each appended event by its stored JSON line where that
is one byte a character (`AppendResult.text`: ASCII lines with no `\\u` escape; it omits the
strings' headers a walk counts, which the per-event allowance covers), else by walking it
(`sizedcache.text_bytes`); a start event is walked too (its names are not in its stored line);
of the ledger each new entry's note. A game folded from storage is walked once
(`sizedcache.state_text`). No walk of every new event's strings per append: it was about a
tenth of `serve`'s CPU in a cProfile (docs/profiles/hot-path-profiles.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from contracts.envelope import Envelope
from contracts.names import is_game_started
from domain.fold import GameState
from services.runtime.sizedcache import (
    TEXT_FACTOR,
    ByteLRU,
    game_bytes,
    new_notes,
    state_text,
    text_bytes,
)

DEFAULT_CACHE_BYTES = 256 * 1024 * 1024
"""The state cache's default bound (the `state_cache_bytes` setting)."""


@dataclass(slots=True)
class Known:
    """A folded game and its event ids (`event_id.int -> seq`, every event of
    `state.history`: keyed by the id's 128-bit integer, which hashes in C, where a `UUID`
    hashes in Python, about 1,000 instructions a read; docs/profiles/fold-event-cost.md).

    `text`: the bytes counted of its events' text and of the notes of its first `noted`
    ledger entries (module docstring); None: not counted yet (`known_bytes` walks the state
    once)."""

    state: GameState
    ids: dict[int, int]
    text: int | None = None
    noted: int = 0

    @classmethod
    def of(cls, state: GameState) -> Known:
        return cls(state, {e.event_id.int: e.seq for e in state.history})


def grown(
    base: Known | None,
    state: GameState,
    ids: dict[int, int],
    appended: Sequence[Envelope],
    lines_text: int | None,
) -> Known:
    """The entry of `state`: `base`'s game (None: a new game) folded further by the events
    `appended`, its ids `ids`; its text counted on from `base`'s by `lines_text` (the
    characters of their stored lines, `AppendResult.text`; None: each event walked) and the
    start event walked. A `base` not counted yet leaves the count to `known_bytes`."""
    if base is not None and base.text is None:
        return Known(state, ids)
    text, noted = (base.text or 0, base.noted) if base is not None else (0, 0)
    if lines_text is None:
        text += sum(map(text_bytes, appended))
    else:
        # a folded log's start event is its seq 1 (`domain.fold.start`): no test of each type
        first = appended[0] if appended else None
        if first is not None and first.seq == 1 and is_game_started(first.type):
            lines_text += text_bytes(first)
        text += lines_text
    return Known(state, ids, text, noted)


def known_bytes(known: Known) -> int:
    """A cache entry's estimated bytes: `game_bytes` of its events plus `TEXT_FACTOR` times
    its counted text, the new ledger entries' notes added (a state not counted yet is walked
    once: `state_text`)."""
    state = known.state
    if known.text is None:
        known.text, known.noted = state_text(state), len(state.ledger)
    notes, known.noted = new_notes(state, known.noted)
    known.text += notes
    return game_bytes(state.seq) + TEXT_FACTOR * known.text


class StateCache:
    """LRU map game_id -> `Known` (folded state and event ids): at most `capacity` games and
    `max_bytes` estimated bytes (`known_bytes` of each game)."""

    def __init__(self, capacity: int, max_bytes: int = DEFAULT_CACHE_BYTES) -> None:
        self.capacity = capacity
        self._games: ByteLRU[str, Known] = ByteLRU(max_bytes, known_bytes, capacity)

    def get(self, game_id: str) -> Known | None:
        return self._games.get(game_id)

    def put(self, known: Known) -> None:
        self._games.put(known.state.game_id, known)

    def drop(self, game_id: str) -> None:
        self._games.drop(game_id)

    def clear(self) -> None:
        """Forget every game."""
        self._games.clear()

    def __len__(self) -> int:
        return len(self._games)

    @property
    def bytes(self) -> int:
        """Estimated bytes kept (at most `max_bytes`)."""
        return self._games.bytes
