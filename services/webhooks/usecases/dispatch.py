"""The webhook dispatcher: follows the projector's change notices from its own checkpoint and
turns what changed into deliveries, queued for every endpoint that wants them.

A notice says "game G is projected at seq S". The dispatcher reads G's log after the last seq
it dispatched of G (`WebhookStore.seen`) up to S, derives the messages (`messages.py`) and queues
them, with the new seen seqs and the moved checkpoint, in one atomic `commit`: a restart resumes
from the checkpoint and derives nothing twice. On its very first start it begins at the
notices' tail and records when (`since_ms`): a game it first sees later only gets the events
recorded since, so turning webhooks on does not replay history. A game whose notices were
trimmed before it read them (the notices are capped, `changes_maxlen`) is caught up by its next
notice. A forget that scrubs a game's kept bodies (`WebhookStore.scrub`) between the
dispatcher's read of that game's events and its commit would leave the new bodies with the
name: the dispatcher reads each game's scrub count before its events and commits against it;
a refused commit (`ScrubRaced`) derives the step again from the same notices
(docs/forget.md). Source: research tech.md §3.4 (catch-up subscription with a checkpoint).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from domain.standings_shapes import Standings
from services.ports.eventlog import EventLog
from services.ports.notices import ChangeNotices
from services.ports.projections import Projections
from services.webhooks.ports import (
    Delivery,
    DispatchBatch,
    DispatchCheckpoint,
    Endpoint,
    EnqueueOutcome,
    ScrubRaced,
    WebhookStore,
)
from services.webhooks.usecases.messages import (
    STANDINGS_CHANGED,
    TYPES,
    event_messages,
    message_id,
    standings_message,
    standings_summary,
)


@dataclass(frozen=True, slots=True)
class Bounds:
    """Per endpoint: at most `max_queue` pending deliveries and `max_log` log entries."""

    max_queue: int = 1000
    max_log: int = 200


RACED_TRIES = 3
"""Derivations of one step's notices before it gives up (`ScrubRaced` each time: a forget per
try); the checkpoint then stays, so the next step reads the same notices again."""


@dataclass(frozen=True, slots=True)
class Dispatched:
    """One step's result: deliveries queued, and what the bound dropped or coalescing
    superseded (per endpoint id)."""

    queued: int
    outcome: EnqueueOutcome


@dataclass(eq=False, slots=True)
class Dispatcher:
    """Notices -> deliveries. `clock`: Unix seconds (tests pass their own)."""

    store: WebhookStore
    notices: ChangeNotices
    log: EventLog
    projections: Projections
    shards: int
    bounds: Bounds
    clock: Callable[[], float] = time.time
    _at: DispatchCheckpoint | None = field(init=False, default=None)

    async def start(self) -> DispatchCheckpoint:
        """The stored checkpoint; on the first start, every shard's notice tail and now (stored)."""
        stored = await self.store.checkpoint()
        if stored is None:
            tails = {s: await self.notices.tail(s) for s in range(self.shards)}
            stored = DispatchCheckpoint(tails, int(self.clock() * 1000))
            first = DispatchBatch([], {}, stored)
            await self.store.commit(first, self.bounds.max_queue, self.bounds.max_log)
        self._at = stored
        return stored

    async def step(self, block_ms: int | None = None, count: int = 500) -> Dispatched:
        """Read the notices after the checkpoint (waiting up to `block_ms` for one), queue what
        they give, move the checkpoint. A commit refused because a forget scrubbed a game
        meanwhile (`ScrubRaced`) is derived again, up to `RACED_TRIES` times, then left to the
        next step (nothing queued, the checkpoint unmoved). Raises what the ports raise
        (nothing is committed)."""
        at = self._at or await self.start()
        batch = await self.notices.read(at.positions, count=count, block_ms=block_ms)
        if not batch:
            return Dispatched(0, EnqueueOutcome())
        positions = dict(at.positions)
        newest: dict[str, int] = {}
        for notice in batch:
            positions[notice.shard] = notice.entry_id
            newest[notice.game_id] = max(newest.get(notice.game_id, 0), notice.seq)
        moved = DispatchCheckpoint(positions, at.since_ms)
        for _ in range(RACED_TRIES):
            endpoints = await self.store.endpoints()
            deliveries, seen, scrubs = await self._derive(newest, endpoints, at.since_ms)
            derived = DispatchBatch(deliveries, seen, moved, scrubs)
            try:
                outcome = await self.store.commit(
                    derived, self.bounds.max_queue, self.bounds.max_log
                )
            except ScrubRaced:
                continue  # derive again: the events now read with the names forgotten
            self._at = moved
            return Dispatched(len(deliveries), outcome)
        return Dispatched(0, EnqueueOutcome())

    async def _derive(
        self, newest: dict[str, int], endpoints: Sequence[Endpoint], since_ms: int
    ) -> tuple[list[Delivery], dict[str, int], dict[str, int]]:
        """The deliveries of the games in `newest`, their new seen seqs, and their scrub
        counts read before their events (what the commit checks)."""
        games = list(newest)
        before = await self.store.seen(games)
        scrubs = dict(zip(games, await self.store.scrubs(games), strict=True))
        deliveries: list[Delivery] = []
        seen: dict[str, int] = {}
        for game_id, prev in zip(games, before, strict=True):
            seq = newest[game_id]
            if prev is not None and seq <= prev:
                continue
            seen[game_id] = seq
            wanted = [e for e in endpoints if any(e.wants(game_id, t) for t in TYPES)]
            if wanted:
                deliveries += await self._game(game_id, prev, seq, wanted, since_ms)
        return deliveries, seen, {g: scrubs[g] for g in seen}

    async def _game(
        self, game_id: str, prev: int | None, seq: int, endpoints: Sequence[Endpoint], since_ms: int
    ) -> list[Delivery]:
        events = await self.log.read(game_id, (prev or 0) + 1, seq)
        if prev is None:  # first seen: only what was recorded since the dispatcher began
            since = datetime.fromtimestamp(since_ms / 1000, UTC)
            events = [e for e in events if e.recorded_at is not None and e.recorded_at >= since]
        stored = await self.projections.get(game_id)
        summary = (
            standings_summary(Standings.model_validate_json(stored.standings_json))
            if stored is not None
            else None
        )
        messages = event_messages(events, summary)
        now_ms = int(self.clock() * 1000)
        if summary is not None:
            now = datetime.fromtimestamp(now_ms / 1000, UTC)
            messages.append(
                (STANDINGS_CHANGED, summary["seq"], standings_message(game_id, summary, now))
            )
        out: list[Delivery] = []
        for endpoint in endpoints:
            for kind, at_seq, text in messages:
                if not endpoint.wants(game_id, kind):
                    continue
                coalesce = game_id if kind == STANDINGS_CHANGED else None
                mid = message_id(endpoint.id, game_id, kind, at_seq)
                out.append(
                    Delivery(mid, endpoint.id, kind, game_id, text, now_ms, coalesce=coalesce)
                )
        return out
