"""Domain-checked append, the record use case's last two steps: check, then append.

`CheckedAppend.append` reads top to bottom:
1. `_check`: the batch is folded (`services.usecases.plan.plan_append`, pure) onto the game's
   state from a small LRU cache (`services.usecases.statecache`), else onto the stored log's.
   A refusal on the cached state is decided again on the stored one (the cache may be stale);
   a batch naming ids the cache knows is confirmed against the stored seqs first
   (`EventLog.stored_seqs`), so an event Redis lost is stored again, not acknowledged.
2. `_append`: `EventLog.append_one` with the expected version and head (the event id the checked
   state ends with: a version alone does not identify a log once Redis came back from an
   older snapshot). A `HeadMismatch` checks once more on the stored log (step 1 with
   `stored=True`); a `VersionConflict` or `CredentialMismatch` drops the cache and is raised.
3. `_settle`: each event's position (a duplicate's original seq), the cache set to the new state.
Source: issue brief (ingest: one append path; benchmarks); docs/decisions/0007-pure-domain-fold.md;
docs/decisions/0002-one-atomic-append.md; docs/decisions/0011-faults-are-answered-not-crashed.md (the head check).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from operator import attrgetter

from contracts.envelope import Envelope
from domain.errors import RuleViolation
from domain.fold import GameState, fold
from services.ports.errors import CredentialMismatch, HeadMismatch, VersionConflict
from services.ports.eventlog import (
    AppendedEvent,
    AppendRequest,
    AppendResult,
    EventLog,
    LiveProjection,
)
from services.usecases.plan import Plan, plan_append
from services.usecases.projected import live_projection
from services.usecases.statecache import DEFAULT_CACHE_BYTES, Known, StateCache, grown


def _rounds(requests: Sequence[AppendRequest]) -> list[list[int]]:
    """The indexes of `requests` by round: round k holds the k-th request of every game."""
    rounds: list[list[int]] = []
    depth: dict[str, int] = {}
    for i, request in enumerate(requests):
        k = depth.get(request.game_id, 0)
        depth[request.game_id] = k + 1
        if k == len(rounds):
            rounds.append([])
        rounds[k].append(i)
    return rounds


__all__ = ["DEFAULT_CACHE_BYTES", "CheckedAppend", "Known", "Outcome", "StateCache"]

Outcome = AppendResult | RuleViolation | VersionConflict | CredentialMismatch
"""What one append of `CheckedAppend.append_many` came to."""


_GAME_ID = attrgetter("game_id")
_DUPLICATE = attrgetter("duplicate")


def check_game_ids(game_id: str, events: Sequence[Envelope]) -> None:
    """Raises `RuleViolation` (`log.game_id`, its `index` the event's position) when an event
    names another game."""
    if set(map(_GAME_ID, events)) <= {game_id}:  # the usual batch: one pass in C
        return
    for index, event in enumerate(events):
        if event.game_id != game_id:
            violation = RuleViolation(
                "log.game_id", f"event is for game {event.game_id}, not {game_id}", "game_id"
            )
            violation.index = index
            raise violation


def first_fresh(plan: Plan, conflict: VersionConflict) -> VersionConflict:
    """`conflict` (refused by the log's own version check) with its `index`: the position in
    the batch of the plan's first new event, the one that named the version."""
    if conflict.index is None and plan.fresh:
        first = plan.fresh[0].event_id
        conflict.index = next(i for i, e in enumerate(plan.events) if e.event_id == first)
    return conflict


class CheckedAppend:
    """The one append path of every door: domain check, then `EventLog.append_one`."""

    def __init__(
        self,
        store: EventLog,
        cache_games: int = 10_000,
        cache_bytes: int = DEFAULT_CACHE_BYTES,
        live_changes_maxlen: int | None = None,
    ) -> None:
        """`live_changes_maxlen`: each append hands the store the game's projection rendered
        from the checked state (`LiveProjection`, its change notices capped near this), so a
        live game is parsed and folded once; None: the projector projects every event."""
        self.store = store
        self.cache = StateCache(cache_games, cache_bytes)
        self.live_changes_maxlen = live_changes_maxlen

    def _live(self, plan: Plan) -> LiveProjection | None:
        """The projection of the plan's state after its append (None: live projection off)."""
        if self.live_changes_maxlen is None or plan.state is None:
            return None
        now = datetime.now(UTC).isoformat()
        return live_projection(plan.state, now, self.live_changes_maxlen)

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

    async def append(
        self,
        game_id: str,
        events: Sequence[Envelope],
        credential: str | None = None,
        known_version: int | None = None,
    ) -> AppendResult:
        """Validate `events` against the game's rules, then append them atomically (with the
        write-token digest `credential` when the append creates the game).

        `known_version`: the game's version as the caller read it just before (the write's
        credential lookup), planned on instead of reading it again when no state is cached
        (the append's expected-version check guards it as it guards any read). A plan on 0
        (no game) that the append refuses (version or token: another creation landed first)
        is checked again on the stored log and appended once more.

        An event whose `event_id` is already in the game's history is a duplicate: its
        original seq is returned and it is not validated again.

        Raises:
            RuleViolation: an event breaks a rule (`log.game_id` for a foreign game id);
                nothing of the batch is written.
            VersionConflict: an event's `seq - 1` is not the game's version (another writer
                was first); nothing is written.
            CredentialMismatch: `credential` is not the game's (see `EventLog.append_one`).
        """
        plan = await self._check(game_id, events, known_version)
        try:
            return await self._append(plan, credential)
        except HeadMismatch:  # the cache is not the stored log: check again on the stored one
            # (a second mismatch, another writer again, is raised as the VersionConflict it is)
            return await self._append(await self._check(game_id, events, stored=True), credential)
        except (VersionConflict, CredentialMismatch):
            if not (known_version == 0 and plan.base is None):
                raise
            # planned on the lookup's empty game, created since (a creation sent twice at
            # once): decided again on the stored log, where an exact retry is all duplicates
            return await self._append(await self._check(game_id, events, stored=True), credential)

    async def dry_run(
        self, game_id: str, events: Sequence[Envelope], known_version: int | None = None
    ) -> AppendResult:
        """What `append` would answer for `events` now, nothing stored: the same check on the
        same state, each event's position (a duplicate's original seq) and the version after
        it. No replica wait and no cached state of the batch (the cache holds stored states
        only). `feed_id` is None: nothing was written to a feed.

        Raises:
            RuleViolation, VersionConflict: as `append` (a write racing this one may still
                decide otherwise: the dry run reads, it does not reserve).
        """
        plan = await self._check(game_id, events, known_version or None)  # 0: read again
        out: list[AppendedEvent] = []
        seen: set[str] = set()
        for event in plan.events:
            key = str(event.event_id)
            if plan.is_added(event) and key not in seen:
                seen.add(key)
                out.append(AppendedEvent(key, event.seq, None, False))
            else:
                out.append(AppendedEvent(key, plan.seq_of(event), None, True))
        version = plan.fresh[-1].seq if plan.fresh else await self._version(plan)
        return AppendResult(events=tuple(out), version=version)

    async def _check(
        self,
        game_id: str,
        events: Sequence[Envelope],
        known_version: int | None = None,
        *,
        stored: bool = False,
    ) -> Plan:
        """The batch checked (`plan_append`) on the cached state, else (no cache, it refused,
        it answers a duplicate at a version Redis does not hold, or `stored`) on the stored
        log's state, at `known_version` when no state is cached and the caller just read it.

        Raises:
            RuleViolation, VersionConflict: as `append`, decided on the stored log's state.
        """
        check_game_ids(game_id, events)
        cached = None if stored else self.cache.get(game_id)
        # a game the lookup saw empty (0) may have been created since (a creation sent twice
        # at once): the append's own checks refuse the plan then, and `append` decides again
        # on the stored log, so an exact retry is answered as duplicates
        version = known_version if cached is None else None
        if cached is not None:
            try:
                plan: Plan | None = plan_append(game_id, events, cached)
            except (RuleViolation, VersionConflict):
                plan = None  # maybe stale: decide on the stored log (re-read, not the cache)
                self.cache.drop(game_id)
            if plan is not None:
                known = plan.known  # the cached ids the batch names, found while planning
                if not known:
                    return plan  # only new events: the append script checks the version
                version, seqs = await self.store.stored_seqs(game_id, [str(i) for i in known])
                if version == cached.state.seq and seqs == [cached.ids[i.int] for i in known]:
                    plan.version = version
                    return plan
                self.cache.drop(game_id)  # Redis lost events, or another writer moved on
        if version is None:
            version = await self.store.version(game_id)
        base = await self._load(game_id, version)
        plan = plan_append(game_id, events, base)
        # `_load` folds the stream as it is now: a version read before (the write's credential
        # lookup, before its body was read) may be behind it
        plan.version = base.state.seq if base is not None else version
        return plan

    async def _append(self, plan: Plan, credential: str | None) -> AppendResult:
        """Append the plan's new events (none: all duplicates, answered at the stored version).

        Raises:
            VersionConflict (a `HeadMismatch` too), CredentialMismatch: the cache is dropped.
        """
        if not plan.fresh:  # all duplicates, confirmed against the stored version
            return await self._duplicates(plan)
        try:
            live = self._live(plan)
            request = AppendRequest(plan.game_id, plan.fresh, credential, plan.head, live)
            stored = await self.store.append_one(request)
        except VersionConflict as conflict:
            self.cache.drop(plan.game_id)
            first_fresh(plan, conflict)
            raise
        except CredentialMismatch:
            self.cache.drop(plan.game_id)
            raise
        return self._settle(plan, stored)

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
        for members in _rounds(requests):
            plans: list[tuple[int, Plan]] = []
            for i in members:
                game_id, events = requests[i].game_id, requests[i].events
                try:
                    plans.append((i, await self._check(game_id, events)))
                except (RuleViolation, VersionConflict) as error:
                    out[i] = error
            writes = [(i, p) for i, p in plans if p.fresh]
            stored = await self.store.append_many(
                [
                    AppendRequest(p.game_id, p.fresh, requests[i].credential, p.head, self._live(p))
                    for i, p in writes
                ]
            )
            results = dict(zip((i for i, _ in writes), stored, strict=True))
            for i, plan in plans:
                out[i] = await self._stored_outcome(requests[i], plan, results.get(i))
        return out  # type: ignore[return-value]  # every slot is filled above

    async def _stored_outcome(
        self,
        request: AppendRequest,
        plan: Plan,
        result: AppendResult | VersionConflict | CredentialMismatch | None,
    ) -> Outcome:
        """The outcome of `plan` given what the store answered for it (`append_many`)."""
        if isinstance(result, HeadMismatch):  # as in `append`: re-plan on the stored log
            self.cache.drop(plan.game_id)
            return await self._outcome(request)
        if isinstance(result, VersionConflict):
            self.cache.drop(plan.game_id)
            return first_fresh(plan, result)
        if isinstance(result, CredentialMismatch):
            self.cache.drop(plan.game_id)
            return result
        if result is None:  # all duplicates
            return await self._duplicates(plan)
        return self._settle(plan, result)

    async def _outcome(self, request: AppendRequest) -> Outcome:
        """The outcome of one request appended on the stored log (no cache)."""
        try:
            plan = await self._check(request.game_id, request.events, stored=True)
            return await self._append(plan, request.credential)
        except (RuleViolation, VersionConflict, CredentialMismatch) as refused:
            return refused

    async def _duplicates(self, plan: Plan) -> AppendResult:
        """The answer to a batch of duplicates only: nothing is written, but the original
        write must be as durable as a fresh one before it is acknowledged again (its first
        answer may have been a 503 for want of replicas): `EventLog.confirm_replicated`.
        Raises: ReplicasUnconfirmed."""
        if plan.events:
            await self.store.confirm_replicated(plan.game_id, str(plan.events[0].event_id))
        return self._settle(plan, None, await self._version(plan))

    async def _version(self, plan: Plan) -> int:
        """The stored version, as read while planning (else read now)."""
        if plan.version is not None:
            return plan.version
        return await self.store.version(plan.game_id)

    def _settle(
        self, plan: Plan, stored: AppendResult | None, version: int | None = None
    ) -> AppendResult:
        """The batch's positions, and the cache set to the state after it (dropped when unsure)."""
        raced = stored is not None and any(map(_DUPLICATE, stored.events))  # in C
        if stored is not None and not raced and len(plan.fresh) == len(plan.events):
            out: Sequence[AppendedEvent] = stored.events  # every event stored, in order
        else:
            out = self._positions(plan, stored)
        state = plan.state
        if stored is None:  # all duplicates: nothing written, the cached state stands
            assert version is not None
            return AppendResult(events=tuple(out), version=version)
        # A race (another process stored one of "our" ids first) leaves the cache unsure: drop it.
        if state is not None and stored.version == state.seq and not raced:
            ids = plan.base.ids if plan.base is not None else {}
            ids.update(plan.added)  # the base entry is replaced below: extend its ids in place
            self.cache.put(grown(plan.base, state, ids, plan.fresh, stored.text))
        else:
            self.cache.drop(plan.game_id)
        return AppendResult(events=tuple(out), version=stored.version)

    @staticmethod
    def _positions(plan: Plan, stored: AppendResult | None) -> list[AppendedEvent]:
        """Each batch event's position: as stored, else (a duplicate, in the batch, the base
        or found by the append script) its original seq with `duplicate: true`."""
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
                seq = hit.seq if hit else plan.seq_of(event)
                out.append(AppendedEvent(key, seq, None, True))
        return out
