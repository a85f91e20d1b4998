"""The projector with `live_read` (a read the appends projected advanced on its
`LiveRead`, its entries built only if folded) against the projector without it (every read
through `feed_entries`, `live_read` forced to None), on one Redis node, over the same random plans:
live and plain appends of three games of one shard, forged feed entries (a game's entry fed
again at, below or above its seq, flagged live or not), malformed entries, reads of any size,
restarts from the checkpoint and from the feed's start (reads at or behind the checkpoint).
Each run's applies (events, last id as a feed index, rules), dead letters, projections and
checkpoint are the same."""

from __future__ import annotations

import os
import random
from typing import Any

import pytest

from services.adapters.redis import feed as feed_module
from services.adapters.redis import feeds
from services.bootstrap import Service
from services.usecases.check import CheckedAppend
from tests.pipeline.single_node import single_node
from tests.pipeline.test_projector_advance_attacks import FIELDS, KEYS, SHARDS, games_of_one_shard

pytestmark = pytest.mark.redis


def plan_of(rng: random.Random) -> list[tuple[Any, ...]]:
    ops: list[tuple[Any, ...]] = []
    for _ in range(rng.randint(5, 30)):
        kind = rng.choices(["append", "forge", "bad", "read", "restart"], [8, 2, 1, 5, 1])[0]
        if kind == "append":
            ops.append((kind, rng.randint(0, 2), rng.randint(1, 10), rng.random() < 0.75))
        elif kind == "forge":
            ops.append((kind, rng.randint(0, 2), rng.randint(-3, 2), rng.random() < 0.7))
        elif kind == "bad":
            ops.append((kind, rng.choice([b"0", b"01", b"\xd9\xa1", b"1" * 19])))
        elif kind == "read":
            ops.append((kind, rng.choice([1, 2, 3, 5, 50])))
        else:
            ops.append((kind, rng.random() < 0.5))
    return ops


async def run(url: str, plan: list[tuple[Any, ...]], seed: int) -> dict[str, Any]:
    """`plan` on a service built afresh on a flushed Redis (no cache of an earlier run)."""
    async for service in single_node(url, SHARDS, "one node"):
        await service.client.flushdb()
        return await _run(service, plan, seed)
    raise AssertionError("not built")


async def _run(service: Service, plan: list[tuple[Any, ...]], seed: int) -> dict[str, Any]:
    project = service.cases.project
    project.forget()
    pipe = service.ports.pipeline
    assert pipe is not None
    shard, games = games_of_one_shard(3, seed)
    log = service.ports.named_log()
    live, plain = CheckedAppend(log, live_changes_maxlen=10_000), CheckedAppend(log)
    at, after = [0, 0, 0], "0-0"
    applies: list[tuple[Any, ...]] = []
    feed = KEYS.feed(shard)

    async def catch_up(count: int) -> None:
        nonlocal after
        while True:
            batches = await pipe.feeds.read({shard: after}, count, 0)
            if not batches:
                return
            for b in batches:
                got = await project.apply(shard, b.entries, b.malformed, b.live)
                applies.append((got.events, got.last_feed_id, got.malformed))
                after = b.last_id

    for op in plan:
        kind = op[0]
        if kind == "append":
            _, game, size, is_live = op
            events = games[game][at[game] : at[game] + size]
            if events:
                at[game] += len(events)
                await (live if is_live else plain).append(events[0].game_id, events)
        elif kind == "forge":
            _, game, delta, flag = op
            game_id = games[game][0].game_id
            seq = at[game] + delta
            if seq >= 1:
                raw = await log.read_raw(game_id, seq, seq)
                data = raw[0] if raw else b"{}"
                fields: Any = {b"game": game_id.encode(), b"seq": str(seq).encode(), b"data": data}
                await service.client.xadd(feed, {**fields, b"live": b"1" if flag else b"0"})
        elif kind == "bad":
            game_id = games[0][0].game_id.encode()
            await service.client.xadd(
                feed, {b"game": game_id, b"seq": op[1], b"data": b"{}", b"live": b"1"}
            )
        elif kind == "read":
            await catch_up(op[1])
        else:
            project.forget()
            after = "0-0" if op[1] else (await project.projections.checkpoint(shard) or "0-0")
    await catch_up(7)
    rows: Any = await service.client.xrange(feed)
    ids = [e[0].decode() for e in rows]
    index = {i: n for n, i in enumerate(ids)}
    ckpt = await project.projections.checkpoint(shard)
    store: Any = project.projections
    projections = []
    for events in games:
        (raw,) = await store.fields([events[0].game_id])
        projections.append({k: raw[k] for k in FIELDS if k in raw})
    letters = []
    for stored in await service.ports.letters.read(10_000):
        context = dict(stored.letter.context)
        if "feed_id" in context:
            context["feed_id"] = index.get(str(context["feed_id"]), context["feed_id"])
        letters.append((stored.letter.reason.get("rule"), sorted(context.items())))
    return {
        "applies": [(n, index.get(last, last) if last else None, r) for n, last, r in applies],
        "checkpoint": index.get(ckpt, ckpt) if ckpt else None,
        "projections": projections,
        "letters": sorted(letters, key=repr),
    }


async def test_the_projector_with_live_reads_ends_as_without(
    clean_redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = feed_module.live_read
    seen = {"live": 0, "reads": 0}

    def counting(read: Any, shard: int, shards: int) -> Any:
        got = real(read, shard, shards)
        seen["reads"] += 1
        seen["live"] += got is not None
        return got

    plans = int(os.environ.get("LIVE_READ_PLANS", "12"))
    for seed in range(plans):
        rng = random.Random(seed)
        plan = plan_of(rng)
        game_seed = 7 + seed % 3
        monkeypatch.setattr(feeds, "live_read", counting)
        with_live = await run(clean_redis_url, plan, game_seed)
        monkeypatch.setattr(feeds, "live_read", lambda *a: None)
        without = await run(clean_redis_url, plan, game_seed)
        assert with_live == without, (seed, plan)
    print(seen)
    assert seen["live"] > 0
