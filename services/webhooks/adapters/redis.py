"""`WebhookStore` on Redis: every key under the hash tag `{wh}` (`Keys.webhooks`), so one Lua
script queues a batch of deliveries, records the games' dispatched seqs and moves the
dispatcher's checkpoint atomically (one Redis Cluster slot; outbound webhooks are a
low-volume side channel, one slot carries them).

Per endpoint: `q` the queue (LIST of ids, oldest first), `d` the pending deliveries (HASH id ->
JSON), `co` the pending `standings.changed` per game (HASH game -> id), `log` the delivery
log (LIST of JSON, newest first, trimmed to `max_log`), `stats` (HASH `dropped`, `superseded`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, replace
from typing import Any

from services.adapters.redis.connect import RedisClient
from services.adapters.redis.keys import Keys
from services.webhooks.adapters.redis_lua import (
    ATTEMPTED_LUA,
    COMMIT_LUA,
    SCRUB_LUA,
    SETTLE_LUA,
    around_body,
    body_args,
)
from services.webhooks.ports import (
    Delivery,
    DispatchBatch,
    DispatchCheckpoint,
    Endpoint,
    EnqueueOutcome,
    LogEntry,
    Outcome,
    ScrubRaced,
    Secret,
)

_PER_DELIVERY = ("q", "d", "co", "log", "stats")


def _stored_forms(text: str) -> list[str]:
    """`text` (a part of a body) as it reads inside a stored delivery's JSON: escaped as a JSON
    string's inside, with non-ASCII letters escaped (as `json.dumps` stores) or not."""
    return list(dict.fromkeys(json.dumps(text, ensure_ascii=a)[1:-1] for a in (True, False)))


def delivery_json(d: Delivery) -> str:
    """`d` as stored (every field, JSON)."""
    return json.dumps(asdict(d), separators=(",", ":"))


def delivery_of(data: Any) -> Delivery:
    """A `Delivery` from its stored JSON (str, bytes or decoded dict)."""
    raw = json.loads(data) if isinstance(data, str | bytes) else data
    return Delivery(**raw)


def endpoint_json(e: Endpoint) -> str:
    """`e` as stored."""
    return json.dumps(asdict(e), separators=(",", ":"))


def endpoint_of(data: bytes | str) -> Endpoint:
    """An `Endpoint` from its stored JSON."""
    raw = json.loads(data)
    raw["events"] = tuple(raw["events"])
    raw["secrets"] = tuple(Secret(**s) for s in raw["secrets"])
    return Endpoint(**raw)


def _outcome(placed: Sequence[int], deliveries: Sequence[Delivery]) -> EnqueueOutcome:
    dropped: dict[str, int] = {}
    sup: dict[str, int] = {}
    for code, d in zip(placed, deliveries, strict=True):
        if code == 3:
            dropped[d.endpoint_id] = dropped.get(d.endpoint_id, 0) + 1
        elif code == 2:
            sup[d.endpoint_id] = sup.get(d.endpoint_id, 0) + 1
    return EnqueueOutcome(dropped, sup)


class RedisWebhookStore:
    """`client`: `redis.asyncio.Redis` (or the cluster client) without `decode_responses`."""

    def __init__(self, client: RedisClient, keys: Keys) -> None:
        self.client = client
        self.keys = keys
        self._commit = client.register_script(COMMIT_LUA)
        self._settle = client.register_script(SETTLE_LUA)
        self._attempted = client.register_script(ATTEMPTED_LUA)
        self._scrub = client.register_script(SCRUB_LUA)

    def _k(self, part: str, endpoint_id: str | None = None) -> str:
        return self.keys.webhooks(part, endpoint_id)

    async def put_endpoint(self, endpoint: Endpoint) -> None:
        """HSET of the endpoint's JSON."""
        await self.client.hset(self._k("endpoints"), endpoint.id, endpoint_json(endpoint))

    async def endpoints(self) -> list[Endpoint]:
        """HVALS of the endpoints, sorted by URL."""
        raw: Any = await self.client.hvals(self._k("endpoints"))
        return sorted((endpoint_of(v) for v in raw), key=lambda e: e.url)

    async def remove_endpoint(self, endpoint_id: str) -> bool:
        """HDEL of the endpoint, DEL of its queue, pending, log and stats."""
        removed: Any = await self.client.hdel(self._k("endpoints"), endpoint_id)
        await self.client.delete(*(self._k(p, endpoint_id) for p in _PER_DELIVERY))
        return bool(removed)

    async def checkpoint(self) -> DispatchCheckpoint | None:
        """HGETALL of `ckpt` (None when empty)."""
        raw: Any = await self.client.hgetall(self._k("ckpt"))
        if not raw:
            return None
        fields = {k.decode(): v.decode() for k, v in raw.items()}
        since = int(fields.pop("since"))
        return DispatchCheckpoint({int(k): v for k, v in fields.items()}, since)

    async def seen(self, game_ids: Sequence[str]) -> list[int | None]:
        """HMGET of `seen`."""
        if not game_ids:
            return []
        raw: Any = await self.client.hmget(self._k("seen"), list(game_ids))
        return [int(v) if v is not None else None for v in raw]

    async def scrubs(self, game_ids: Sequence[str]) -> list[int]:
        """HMGET of `scrubs`."""
        if not game_ids:
            return []
        raw: Any = await self.client.hmget(self._k("scrubs"), list(game_ids))
        return [int(v) if v is not None else 0 for v in raw]

    async def _run(
        self,
        deliveries: Sequence[Delivery],
        seen: Mapping[str, int],
        marks: Mapping[str, str],
        max_queue: int,
        max_log: int,
        scrubs: Mapping[str, int] | None = None,
    ) -> EnqueueOutcome:
        keys = [self._k("ckpt"), self._k("seen"), self._k("scrubs")]
        args: list[str | int] = [max_queue, max_log, int(time.time() * 1000), len(deliveries)]
        args.append(len(scrubs or {}))
        for game, count in (scrubs or {}).items():
            args += [game, count]
        for d in deliveries:
            keys += [self._k(p, d.endpoint_id) for p in _PER_DELIVERY]
            args += [d.id, delivery_json(d), d.coalesce or ""]
        args.append(len(seen))
        for game, seq in seen.items():
            args += [game, seq]
        args.append(len(marks))
        for name, value in marks.items():
            args += [name, value]
        placed: Any = await self._commit(keys=keys, args=args)
        if not isinstance(placed, list):  # -1: a scrub count moved, nothing stored
            raise ScrubRaced(sorted(scrubs or {}))
        return _outcome([int(p) for p in placed], deliveries)

    async def commit(self, batch: DispatchBatch, max_queue: int, max_log: int) -> EnqueueOutcome:
        """One `COMMIT_LUA` call (raises `ScrubRaced` when it stored nothing)."""
        marks = {str(s): pos for s, pos in batch.checkpoint.positions.items()}
        marks["since"] = str(batch.checkpoint.since_ms)
        return await self._run(
            batch.deliveries, batch.seen, marks, max_queue, max_log, batch.scrubs
        )

    async def enqueue(
        self,
        delivery: Delivery,
        max_queue: int,
        max_log: int,
        scrubs: Mapping[str, int] | None = None,
    ) -> EnqueueOutcome:
        """One `COMMIT_LUA` call with no seen games and no checkpoint (raises `ScrubRaced`
        when it stored nothing)."""
        return await self._run([delivery], {}, {}, max_queue, max_log, scrubs)

    async def pending(self, endpoint_id: str, limit: int) -> list[Delivery]:
        """LRANGE of the queue, HMGET of the pending (ids settled meanwhile skipped)."""
        ids: Any = await self.client.lrange(self._k("q", endpoint_id), 0, limit - 1)
        if not ids:
            return []
        raw: Any = await self.client.hmget(self._k("d", endpoint_id), ids)
        return [delivery_of(v) for v in raw if v is not None]

    async def depth(self, endpoint_id: str) -> int:
        """LLEN of the queue."""
        n: Any = await self.client.llen(self._k("q", endpoint_id))
        return int(n)

    async def attempted(self, delivery: Delivery) -> bool:
        """HSET of the pending delivery if it is still there (one script)."""
        head, tail = around_body(delivery_json(replace(delivery, body="")))
        done: Any = await self._attempted(
            keys=[self._k("d", delivery.endpoint_id)],
            args=[delivery.id, head, tail, *body_args(delivery)],
        )
        return bool(done)

    async def settle(
        self, delivery: Delivery, outcome: Outcome, http_status: int | None, max_log: int
    ) -> bool:
        """One `SETTLE_LUA` call."""
        entry = json.dumps(
            {
                "delivery": asdict(replace(delivery, body="")),
                "status": outcome,
                "at_ms": int(time.time() * 1000),
                "http_status": http_status,
            },
            separators=(",", ":"),
        )
        keys = [self._k(p, delivery.endpoint_id) for p in ("q", "d", "co", "log")]
        head, tail = around_body(entry)
        done: Any = await self._settle(
            keys=keys,
            args=[delivery.id, delivery.coalesce or "", head, tail, max_log, *body_args(delivery)],
        )
        return bool(done)

    async def log(self, endpoint_id: str, limit: int) -> list[LogEntry]:
        """The pending deliveries (newest first), then LRANGE of the log."""
        queued = await self.pending(endpoint_id, limit)
        entries = [LogEntry(d, "pending", d.created_ms) for d in reversed(queued)]
        raw: Any = await self.client.lrange(self._k("log", endpoint_id), 0, limit - 1)
        for item in raw:
            data = json.loads(item)
            entries.append(
                LogEntry(
                    delivery_of(data["delivery"]),
                    data["status"],
                    int(data["at_ms"]),
                    data["http_status"],
                )
            )
        return entries[:limit]

    async def dropped(self, endpoint_id: str) -> int:
        """HGET `dropped` of the endpoint's stats."""
        n: Any = await self.client.hget(self._k("stats", endpoint_id), "dropped")
        return int(n or 0)

    async def scrub(self, game_id: str, replacements: Sequence[tuple[str, str]]) -> int:
        """See `WebhookStore.scrub` (one Lua call over every endpoint's pending deliveries
        and log, counting the scrub even with no endpoint or no text to replace)."""
        ids: Any = await self.client.hkeys(self._k("endpoints"))
        keys: list[str] = [self._k("scrubs")]
        for raw in ids:
            endpoint_id = raw.decode() if isinstance(raw, bytes) else str(raw)
            keys += [self._k("d", endpoint_id), self._k("log", endpoint_id)]
        args = [game_id]
        for old, new in replacements:
            stored_new = json.dumps(new)[1:-1]
            for stored_old in _stored_forms(old) if old else []:
                args += [stored_old, stored_new]
        return int(await self._scrub(keys=keys, args=args))
