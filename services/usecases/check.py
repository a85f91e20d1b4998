"""Domain-checked append (the record use case's last step): an event is stored only if the
pure domain accepts it.

Before the event log's append, each event is folded (one `domain.fold.Folder`) onto the game's state kept
in a small LRU cache. The cached state is trusted for new events (one round trip per append):
the event log's expected-version check still guards, together with the expected head (the event
id the cached state ends with: a version alone does not identify a log once Redis came back
from an older snapshot and another writer stored other events up to the same version). A
WRONGVERSION drops the cache and answers `VersionConflict` as before; a WRONGHEAD
(`HeadMismatch`) drops it and plans the batch again on the stored log (issue #10). A check that fails on the cached state is decided again on
the state folded from the stream (the cache may be stale when another process appended).
A duplicate is never answered from the cache alone: a batch naming an event id the cache knows
first asks the store for the version and those ids' stored seqs (`EventLog.stored_seqs`, one
round trip); unless they equal the cached ones (Redis came back from an older snapshot, or
another process appended) the batch is planned on the stored log, so an event Redis lost is
stored again instead of being acknowledged as a duplicate.
Source: issue brief (ingest: one append path; benchmarks); research/anchors.md §1.6;
research/tech.md §3.3.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from contracts.envelope import Envelope
from domain.errors import RuleViolation
from domain.fold import Folder, GameState, fold
from services.ports.errors import CredentialMismatch, HeadMismatch, VersionConflict
from services.ports.eventlog import AppendedEvent, AppendRequest, AppendResult, EventLog
from services.usecases.sizedcache import ByteLRU, state_bytes

DEFAULT_CACHE_BYTES = 256 * 1024 * 1024
"""The state cache's default bound (the `state_cache_bytes` setting)."""


@dataclass(slots=True)
class Known:
    """A folded game and its event ids (`event_id -> seq`, every event of `state.history`)."""

    state: GameState
    ids: dict[UUID, int]

    @classmethod
    def of(cls, state: GameState) -> Known:
        return cls(state, {e.event_id: e.seq for e in state.history})


class StateCache:
    """LRU map game_id -> `Known` (folded state and event ids): at most `capacity` games and
    `max_bytes` estimated bytes (`sizedcache.state_bytes` of each game)."""

    def __init__(self, capacity: int, max_bytes: int = DEFAULT_CACHE_BYTES) -> None:
        self.capacity = capacity
        self._games: ByteLRU[str, Known] = ByteLRU(
            max_bytes, lambda known: state_bytes(known.state), capacity
        )

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


@dataclass(slots=True)
class _Plan:
    """One append, checked: the state after it, the new ids and the events to write."""

    game_id: str
    events: Sequence[Envelope]
    base: Known | None
    state: GameState | None
    added: dict[UUID, int] = field(default_factory=dict)
    fresh: list[Envelope] = field(default_factory=list)
    version: int | None = None
    """The stored version read while planning (None: not read)."""

    @property
    def head(self) -> str | None:
        """The event id the base state ends with (the append's expected head; None: no base)."""
        if self.base is None or not self.base.state.history:
            return None
        return str(self.base.state.history[-1].event_id)

    def seq_of(self, event_id: UUID) -> int:
        if event_id in self.added:
            return self.added[event_id]
        assert self.base is not None  # a duplicate is known either here or in the base
        return self.base.ids[event_id]


def _check_game_ids(game_id: str, events: Sequence[Envelope]) -> None:
    for event in events:
        if event.game_id != game_id:
            raise RuleViolation(
                "log.game_id", f"event is for game {event.game_id}, not {game_id}", "game_id"
            )


def _same_fact(a: Envelope, b: Envelope) -> bool:
    """Two envelopes state the same fact: equal but for the store's `recorded_at`."""
    return a.model_copy(update={"recorded_at": None}) == b.model_copy(update={"recorded_at": None})


def _check_same_event(plan: _Plan, event: Envelope) -> None:
    """A repeated `event_id` is an idempotent retry only if it carries the same event.

    Raises:
        RuleViolation: `log.event_id_reused` when the id is known with a different body (a
            client bug or an id collision: the sender must not believe it was recorded).
    """
    original = next((e for e in plan.fresh if e.event_id == event.event_id), None)
    if original is None and plan.base is not None:
        original = plan.base.state.history[plan.base.ids[event.event_id] - 1]
    if original is not None and not _same_fact(original, event):
        raise RuleViolation(
            "log.event_id_reused",
            f"event_id {event.event_id} is already seq {original.seq} with a different body",
            "event_id",
        )


def _plan(game_id: str, events: Sequence[Envelope], base: Known | None) -> _Plan:
    """Fold `events` onto `base` (None: no event yet); known event ids are skipped.

    Raises:
        RuleViolation: an event breaks a rule. VersionConflict: an event's `seq - 1` is not the
            version reached so far.
    """
    plan = _Plan(game_id, events, base, base.state if base is not None else None)
    ids = base.ids if base is not None else {}
    folder: Folder[Any] = Folder.resume(plan.state)  # one working fold, no state per event
    for event in events:
        if event.event_id in ids or event.event_id in plan.added:
            _check_same_event(plan, event)
            continue
        current = folder.seq if folder.started else 0
        if event.seq - 1 != current:
            raise VersionConflict(event.seq - 1, current)
        folder.add(event)
        plan.added[event.event_id] = event.seq
        plan.fresh.append(event)
    if folder.started:
        plan.state = folder.state
    return plan


Outcome = AppendResult | RuleViolation | VersionConflict | CredentialMismatch
"""What one append of `CheckedAppend.append_many` came to."""


class CheckedAppend:
    """The one append path of every door: domain check, then `EventLog.append`."""

    def __init__(
        self, store: EventLog, cache_games: int = 10_000, cache_bytes: int = DEFAULT_CACHE_BYTES
    ) -> None:
        self.store = store
        self.cache = StateCache(cache_games, cache_bytes)

    async def state(self, game_id: str) -> GameState | None:
        """The game's folded state at the stream's version (None for a game with no events).

        Raises:
            RuleViolation: the stored log does not fold (should not happen: appends are checked).
        """
        known = await self._load(game_id, await self.store.version(game_id))
        return known.state if known is not None else None

    async def _load(self, game_id: str, version: int) -> Known | None:
        cached = self.cache.get(game_id)
        if cached is not None and cached.state.seq == version:
            return cached
        if version == 0:
            self.cache.drop(game_id)
            return None
        known = Known.of(fold(await self.store.read(game_id)))
        self.cache.put(known)
        return known

    async def _checked(self, game_id: str, events: Sequence[Envelope]) -> _Plan:
        """The plan on the cached state, else (no cache, it refused, or it answers a duplicate
        at a version Redis does not hold) on the stream's."""
        cached = self.cache.get(game_id)
        version: int | None = None
        if cached is not None:
            try:
                plan = _plan(game_id, events, cached)
            except (RuleViolation, VersionConflict):
                plan = None  # maybe stale: decide on the stored log (re-read, not the cache)
                self.cache.drop(game_id)
            if plan is not None:
                known = list(dict.fromkeys(e.event_id for e in events if e.event_id in cached.ids))
                if not known:
                    return plan  # only new events: the append script checks the version
                version, seqs = await self.store.stored_seqs(game_id, [str(i) for i in known])
                if version == cached.state.seq and seqs == [cached.ids[i] for i in known]:
                    plan.version = version
                    return plan
                self.cache.drop(game_id)  # Redis lost events, or another writer moved on
        return await self._stored_plan(game_id, events, version)

    async def _stored_plan(
        self, game_id: str, events: Sequence[Envelope], version: int | None = None
    ) -> _Plan:
        """The plan on the stored log's state (`version`: read now when None)."""
        if version is None:
            version = await self.store.version(game_id)
        plan = _plan(game_id, events, await self._load(game_id, version))
        plan.version = version
        return plan

    async def append(
        self, game_id: str, events: Sequence[Envelope], credential: str | None = None
    ) -> AppendResult:
        """Validate `events` against the game's rules, then append them atomically (with the
        write-token digest `credential` when the append creates the game).

        An event whose `event_id` is already in the game's history is a duplicate: its
        original seq is returned and it is not validated again.

        Raises:
            RuleViolation: an event breaks a rule (`log.game_id` for a foreign game id);
                nothing of the batch is written.
            VersionConflict: an event's `seq - 1` is not the game's version (another writer
                was first); nothing is written.
            CredentialMismatch: `credential` is not the game's (see `EventLog.append`).
        """
        _check_game_ids(game_id, events)
        plan = await self._checked(game_id, events)
        if not plan.fresh:  # all duplicates, confirmed against the stored version
            return self._merge(plan, None, await self._version(plan))
        try:
            stored = await self.store.append(game_id, plan.fresh, credential, plan.head)
        except HeadMismatch:  # the cache is not the stored log: check again on the stored one
            self.cache.drop(game_id)
            return await self._append_stored(game_id, events, credential)
        except (VersionConflict, CredentialMismatch):
            self.cache.drop(game_id)
            raise
        return self._merge(plan, stored)

    async def _append_stored(
        self, game_id: str, events: Sequence[Envelope], credential: str | None
    ) -> AppendResult:
        """`append` planned on the stored log (after a `HeadMismatch`); a second mismatch
        (another writer again) is raised as the `VersionConflict` it is."""
        plan = await self._stored_plan(game_id, events)
        if not plan.fresh:
            return self._merge(plan, None, await self._version(plan))
        try:
            stored = await self.store.append(game_id, plan.fresh, credential, plan.head)
        except (VersionConflict, CredentialMismatch):
            self.cache.drop(game_id)
            raise
        return self._merge(plan, stored)

    async def append_many(self, requests: Sequence[AppendRequest]) -> list[Outcome]:
        """Several appends, each all or nothing, with the same outcome as
        calling `append` for each in order, but the Lua calls of different games pipelined:
        round k sends the k-th request of every game in one round trip (a request waits for
        its game's earlier one, so it is never checked on an unconfirmed state).

        Returns one outcome per request, in order: the `AppendResult`, or the `RuleViolation` /
        `VersionConflict` / `CredentialMismatch` that refused it (nothing of it written).
        Raises: redis errors (the caller retries the whole batch; appends are idempotent).
        """
        out: list[Outcome | None] = [None] * len(requests)
        rounds: list[list[int]] = []
        depth: dict[str, int] = {}
        for i, request in enumerate(requests):
            k = depth.get(request.game_id, 0)
            depth[request.game_id] = k + 1
            if k == len(rounds):
                rounds.append([])
            rounds[k].append(i)
        for members in rounds:
            plans: list[tuple[int, _Plan]] = []
            for i in members:
                game_id, events = requests[i].game_id, requests[i].events
                try:
                    _check_game_ids(game_id, events)
                    plans.append((i, await self._checked(game_id, events)))
                except (RuleViolation, VersionConflict) as error:
                    out[i] = error
            writes = [(i, p) for i, p in plans if p.fresh]
            stored = await self.store.append_many(
                [
                    AppendRequest(p.game_id, p.fresh, requests[i].credential, p.head)
                    for i, p in writes
                ]
            )
            results = dict(zip((i for i, _ in writes), stored, strict=True))
            for i, plan in plans:
                result = results.get(i)
                if isinstance(result, HeadMismatch):  # as in `append`: re-plan on the stored log
                    self.cache.drop(plan.game_id)
                    out[i] = await self._outcome(requests[i])
                elif isinstance(result, VersionConflict | CredentialMismatch):
                    self.cache.drop(plan.game_id)
                    out[i] = result
                elif result is None:  # all duplicates
                    out[i] = self._merge(plan, None, await self._version(plan))
                else:
                    out[i] = self._merge(plan, result)
        return out  # type: ignore[return-value]  # every slot is filled above

    async def _outcome(self, request: AppendRequest) -> Outcome:
        """The outcome of one request appended on the stored log (no cache)."""
        try:
            return await self._append_stored(request.game_id, request.events, request.credential)
        except (RuleViolation, VersionConflict, CredentialMismatch) as refused:
            return refused

    async def _version(self, plan: _Plan) -> int:
        """The stored version, as read while planning (else read now)."""
        if plan.version is not None:
            return plan.version
        return await self.store.version(plan.game_id)

    def _merge(
        self, plan: _Plan, stored: AppendResult | None, version: int | None = None
    ) -> AppendResult:
        by_id = {e.event_id: e for e in stored.events} if stored is not None else {}
        out: list[AppendedEvent] = []
        fresh_ids: set[str] = set()
        for event in plan.events:
            key = str(event.event_id)
            hit = by_id.get(key)
            if hit is not None and not hit.duplicate and key not in fresh_ids:
                fresh_ids.add(key)
                out.append(hit)
            else:
                seq = hit.seq if hit else plan.seq_of(event.event_id)
                out.append(AppendedEvent(key, seq, None, True))
        state = plan.state
        if stored is None:  # all duplicates: nothing written, the cached state stands
            assert version is not None
            return AppendResult(events=tuple(out), version=version)
        # A race (another process stored one of "our" ids first) leaves the cache unsure: drop it.
        if (
            state is not None
            and stored.version == state.seq
            and not any(e.duplicate for e in stored.events)
        ):
            ids = plan.base.ids if plan.base is not None else {}
            ids.update(plan.added)  # the base entry is replaced below: extend its ids in place
            self.cache.put(Known(state, ids))
        else:
            self.cache.drop(plan.game_id)
        return AppendResult(events=tuple(out), version=stored.version)
