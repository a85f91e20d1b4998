"""Domain-checked append: an event is stored only if the pure domain accepts it.

Before the Lua append, each event is folded (`domain.fold.evolve`) onto the game's current
state, kept in a small LRU cache and reloaded from the stream when its seq is not the stream's
version. Source: issue brief (ingest: one append path); research/anchors.md §1.6.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from uuid import UUID

from contracts.envelope import Envelope
from domain.errors import RuleViolation
from domain.fold import GameState, evolve, fold
from services.store.errors import VersionConflict
from services.store.eventstore import AppendedEvent, AppendResult, EventStore


class StateCache:
    """LRU map game_id -> folded `GameState`, at most `capacity` games."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._states: OrderedDict[str, GameState] = OrderedDict()

    def get(self, game_id: str) -> GameState | None:
        state = self._states.get(game_id)
        if state is not None:
            self._states.move_to_end(game_id)
        return state

    def put(self, state: GameState) -> None:
        self._states[state.game_id] = state
        self._states.move_to_end(state.game_id)
        while len(self._states) > self.capacity:
            self._states.popitem(last=False)

    def drop(self, game_id: str) -> None:
        self._states.pop(game_id, None)


class CheckedEventStore:
    """The one append path of ingest (HTTP and inbox): domain check, then `EventStore.append`."""

    def __init__(self, store: EventStore, cache_games: int = 10_000) -> None:
        self.store = store
        self.cache = StateCache(cache_games)

    async def state(self, game_id: str) -> GameState | None:
        """The game's folded state at the stream's version (None for a game with no events).

        Raises:
            RuleViolation: the stored log does not fold (should not happen: appends are checked).
        """
        version = await self.store.version(game_id)
        cached = self.cache.get(game_id)
        if cached is not None and cached.seq == version:
            return cached
        if version == 0:
            self.cache.drop(game_id)
            return None
        state = fold(await self.store.read(game_id))
        self.cache.put(state)
        return state

    async def append(self, game_id: str, events: Sequence[Envelope]) -> AppendResult:
        """Validate `events` against the game's rules, then append them atomically.

        An event whose `event_id` is already in the game's history is a duplicate: its
        original seq is returned and it is not validated again.

        Raises:
            RuleViolation: an event breaks a rule (`log.game_id` for a foreign game id);
                nothing of the batch is written.
            VersionConflict: an event's `seq - 1` is not the game's version (another writer
                was first); nothing is written.
        """
        for event in events:
            if event.game_id != game_id:
                raise RuleViolation(
                    "log.game_id", f"event is for game {event.game_id}, not {game_id}", "game_id"
                )
        state = await self.state(game_id)
        known = {e.event_id: e.seq for e in state.history} if state is not None else {}
        fresh: list[Envelope] = []
        for event in events:
            if event.event_id in known:
                continue
            current = state.seq if state is not None else 0
            if event.seq - 1 != current:
                raise VersionConflict(event.seq - 1, current)
            state = evolve(state, event)
            known[event.event_id] = event.seq
            fresh.append(event)
        try:
            stored = await self.store.append(game_id, fresh) if fresh else None
        except VersionConflict:
            self.cache.drop(game_id)
            raise
        return self._merge(game_id, events, state, stored, known)

    def _merge(
        self,
        game_id: str,
        events: Sequence[Envelope],
        state: GameState | None,
        stored: AppendResult | None,
        known: dict[UUID, int],
    ) -> AppendResult:
        by_id = {e.event_id: e for e in stored.events} if stored is not None else {}
        out: list[AppendedEvent] = []
        fresh_ids: set[str] = set()
        for event in events:
            key = str(event.event_id)
            hit = by_id.get(key)
            if hit is not None and not hit.duplicate and key not in fresh_ids:
                fresh_ids.add(key)
                out.append(hit)
            else:
                out.append(
                    AppendedEvent(key, hit.seq if hit else known[event.event_id], None, True)
                )
        version = stored.version if stored is not None else (state.seq if state is not None else 0)
        if stored is None:  # all duplicates: nothing written, the cached state stands
            return AppendResult(events=tuple(out), version=version)
        # A race (another process stored one of "our" ids first) leaves the cache unsure: drop it.
        if (
            state is not None
            and stored.version == state.seq
            and not any(e.duplicate for e in stored.events)
        ):
            self.cache.put(state)
        else:
            self.cache.drop(game_id)
        return AppendResult(events=tuple(out), version=version)
