"""`WebhookStore` in memory (tests and specs): the same queue, bound, coalescing and log rules
as the Redis adapter's scripts (`services.webhooks.adapters.redis`), in plain Python."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from services.webhooks.ports import (
    Delivery,
    DispatchBatch,
    DispatchCheckpoint,
    Endpoint,
    EnqueueOutcome,
    LogEntry,
    Outcome,
    ScrubRaced,
)


def _now_ms() -> int:
    return int(time.time() * 1000)


@dataclass
class _Queue:
    """One endpoint's pending deliveries in order, its coalescing map, log and counters."""

    order: list[str] = field(default_factory=list)
    pending: dict[str, Delivery] = field(default_factory=dict)
    coalesce: dict[str, str] = field(default_factory=dict)
    log: list[LogEntry] = field(default_factory=list)  # newest first
    dropped: int = 0
    superseded: int = 0

    def remember(self, entry: LogEntry, max_log: int) -> None:
        self.log.insert(0, entry)
        del self.log[max_log:]

    def forget(self, delivery_id: str) -> Delivery:
        delivery = self.pending.pop(delivery_id)
        self.order.remove(delivery_id)
        if delivery.coalesce is not None and self.coalesce.get(delivery.coalesce) == delivery_id:
            del self.coalesce[delivery.coalesce]
        return delivery


class MemoryWebhookStore:
    """`WebhookStore` in memory; one instance is one store."""

    def __init__(self) -> None:
        self._endpoints: dict[str, Endpoint] = {}
        self._queues: dict[str, _Queue] = {}
        self._checkpoint: DispatchCheckpoint | None = None
        self._seen: dict[str, int] = {}
        self._scrubs: dict[str, int] = {}

    def _queue(self, endpoint_id: str) -> _Queue:
        return self._queues.setdefault(endpoint_id, _Queue())

    async def put_endpoint(self, endpoint: Endpoint) -> None:
        self._endpoints[endpoint.id] = endpoint

    async def endpoints(self) -> list[Endpoint]:
        return sorted(self._endpoints.values(), key=lambda e: e.url)

    async def remove_endpoint(self, endpoint_id: str) -> bool:
        self._queues.pop(endpoint_id, None)
        return self._endpoints.pop(endpoint_id, None) is not None

    async def checkpoint(self) -> DispatchCheckpoint | None:
        return self._checkpoint

    async def seen(self, game_ids: Sequence[str]) -> list[int | None]:
        return [self._seen.get(g) for g in game_ids]

    def _enqueue(
        self,
        d: Delivery,
        max_queue: int,
        max_log: int,
        dropped: dict[str, int],
        sup: dict[str, int],
    ) -> None:
        q = self._queue(d.endpoint_id)
        if d.id in q.pending:
            return
        now = _now_ms()
        old_id = q.coalesce.get(d.coalesce) if d.coalesce is not None else None
        if old_id is not None and old_id in q.pending:
            old = q.pending.pop(old_id)
            q.order[q.order.index(old_id)] = d.id
            q.remember(LogEntry(old, "superseded", now), max_log)
            q.superseded += 1
            sup[d.endpoint_id] = sup.get(d.endpoint_id, 0) + 1
        else:
            if len(q.order) >= max_queue:
                coalescable = set(q.coalesce.values())
                victim = next((i for i in q.order if i in coalescable), q.order[0])
                q.remember(LogEntry(q.forget(victim), "dropped", now), max_log)
                q.dropped += 1
                dropped[d.endpoint_id] = dropped.get(d.endpoint_id, 0) + 1
            q.order.append(d.id)
        q.pending[d.id] = d
        if d.coalesce is not None:
            q.coalesce[d.coalesce] = d.id

    async def scrubs(self, game_ids: Sequence[str]) -> list[int]:
        return [self._scrubs.get(g, 0) for g in game_ids]

    async def commit(self, batch: DispatchBatch, max_queue: int, max_log: int) -> EnqueueOutcome:
        if any(self._scrubs.get(g, 0) != n for g, n in batch.scrubs.items()):
            raise ScrubRaced(sorted(batch.scrubs))
        dropped: dict[str, int] = {}
        sup: dict[str, int] = {}
        for d in batch.deliveries:
            self._enqueue(d, max_queue, max_log, dropped, sup)
        self._seen.update(batch.seen)
        self._checkpoint = batch.checkpoint
        return EnqueueOutcome(dropped, sup)

    async def enqueue(
        self,
        delivery: Delivery,
        max_queue: int,
        max_log: int,
        scrubs: Mapping[str, int] | None = None,
    ) -> EnqueueOutcome:
        if any(self._scrubs.get(g, 0) != n for g, n in (scrubs or {}).items()):
            raise ScrubRaced(sorted(scrubs or {}))
        dropped: dict[str, int] = {}
        sup: dict[str, int] = {}
        self._enqueue(delivery, max_queue, max_log, dropped, sup)
        return EnqueueOutcome(dropped, sup)

    async def pending(self, endpoint_id: str, limit: int) -> list[Delivery]:
        q = self._queue(endpoint_id)
        return [q.pending[i] for i in q.order[:limit]]

    async def depth(self, endpoint_id: str) -> int:
        return len(self._queue(endpoint_id).order)

    async def attempted(self, delivery: Delivery) -> bool:
        q = self._queue(delivery.endpoint_id)
        if delivery.id not in q.pending:
            return False
        q.pending[delivery.id] = replace(
            q.pending[delivery.id], attempts=delivery.attempts, last_error=delivery.last_error
        )
        return True

    async def settle(
        self, delivery: Delivery, outcome: Outcome, http_status: int | None, max_log: int
    ) -> bool:
        q = self._queue(delivery.endpoint_id)
        if delivery.id not in q.pending:
            return False
        kept = q.forget(delivery.id)  # its body as stored: a forget's scrub wins
        q.remember(
            LogEntry(replace(delivery, body=kept.body), outcome, _now_ms(), http_status), max_log
        )
        return True

    async def log(self, endpoint_id: str, limit: int) -> list[LogEntry]:
        q = self._queue(endpoint_id)
        queued = [LogEntry(q.pending[i], "pending", q.pending[i].created_ms) for i in q.order]
        return (list(reversed(queued[:limit])) + q.log)[:limit]

    async def dropped(self, endpoint_id: str) -> int:
        return self._queue(endpoint_id).dropped

    async def scrub(self, game_id: str, replacements: Sequence[tuple[str, str]]) -> int:
        """See `WebhookStore.scrub`."""

        def scrubbed(d: Delivery) -> Delivery:
            body = d.body
            for old, new in replacements:
                body = body.replace(old, new)
            return d if body == d.body else replace(d, body=body)

        self._scrubs[game_id] = self._scrubs.get(game_id, 0) + 1
        changed = 0
        for q in self._queues.values():
            for delivery_id, d in list(q.pending.items()):
                if d.game_id == game_id and (new := scrubbed(d)) is not d:
                    q.pending[delivery_id], changed = new, changed + 1
            for i, entry in enumerate(q.log):
                d = entry.delivery
                if d.game_id == game_id and (new := scrubbed(d)) is not d:
                    q.log[i], changed = replace(entry, delivery=new), changed + 1
        return changed
