"""Reads across shards that work on a single node and on a Redis Cluster alike.

On a cluster every shard `{sK}` is its own slot, so no command or script may name two shards'
keys. What this module does instead:

* plain commands: one non-transactional pipeline; redis-py's `ClusterPipeline` splits it per
  node (one round trip per node) and answers in call order, so the code is the same for both;
* scripts: redis-py refuses EVALSHA in a cluster pipeline, so on a cluster each call is its own
  command (routed by its first key's slot): the calls of one slot one after another in call
  order (two appends of one game keep their order), up to `concurrency` slots at once; on a
  single node they share one pipeline as before;
* `XREAD` of several shard streams: one command on a single node; on a cluster a pipeline of
  one-stream reads without BLOCK, and a short sleep when all were empty (the caller loops).

Source: docs/decisions/0003-shards-and-hash-tags.md; redis-py 8.1 `redis/asyncio/cluster.py` (ClusterPipeline).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

from redis.commands.core import AsyncScript
from redis.crc import key_slot
from redis.exceptions import NoScriptError, ResponseError

from services.adapters.redis.cancelsafe import run_script
from services.adapters.redis.connect import RedisClient, is_cluster
from services.adapters.redis.errors import DRIVER_ERRORS, translated
from services.adapters.redis.keys import Keys

ScriptCall = tuple[Sequence[str], Sequence[Any]]
"""(KEYS, ARGV) of one script call; the KEYS of one call share one slot."""


async def script_calls(
    client: RedisClient, script: AsyncScript, calls: Sequence[ScriptCall], concurrency: int = 16
) -> list[Any]:
    """Run `script` once per call; calls of one slot run in call order; answers in call order,
    a refused call's `ResponseError` in its place (like `pipeline.execute(raise_on_error=False)`).

    Raises: connection errors (after the client's retries).
    """
    if not calls:
        return []
    if not is_cluster(client):
        return await _pipelined(client, script, calls)
    return await _by_slot(script, calls, concurrency)


async def _pipelined(
    client: RedisClient, script: AsyncScript, calls: Sequence[ScriptCall]
) -> list[Any]:
    """`script_calls` on one server: every call in one pipeline."""
    async with client.pipeline(transaction=False) as pipe:
        for keys, args in calls:
            await script(keys=list(keys), args=list(args), client=pipe)  # type: ignore[arg-type]
        replies = list(await pipe.execute(raise_on_error=False))
    # The pipeline checks SCRIPT EXISTS before it sends; a Redis restarted after that check
    # (the pipeline's retry reaches the new server) answers NOSCRIPT. That call wrote
    # nothing: send it again alone (the script loads itself), in call order, so calls of
    # one game keep their order (every later call of the pipeline got NOSCRIPT too).
    for i, reply in enumerate(replies):
        if isinstance(reply, NoScriptError):
            keys, args = calls[i]
            try:
                replies[i] = await run_script(script, keys, args)
            except ResponseError as error:
                replies[i] = error
    # a refused call's error as the client raises it elsewhere: a port error too
    return [translated(r) if isinstance(r, DRIVER_ERRORS) else r for r in replies]


async def _by_slot(script: AsyncScript, calls: Sequence[ScriptCall], concurrency: int) -> list[Any]:
    """`script_calls` on a cluster: each slot's calls in order, up to `concurrency` slots at
    once."""
    by_slot: dict[int, list[int]] = {}
    for i, (keys, _) in enumerate(calls):
        by_slot.setdefault(key_slot(str(keys[0]).encode()), []).append(i)
    out: list[Any] = [None] * len(calls)
    gate = asyncio.Semaphore(concurrency)

    async def in_order(indexes: list[int]) -> None:
        async with gate:
            for i in indexes:  # one slot's calls one after another, as a pipeline would
                keys, args = calls[i]
                try:
                    out[i] = await run_script(script, keys, args)
                except ResponseError as error:
                    out[i] = error

    await asyncio.gather(*(in_order(indexes) for indexes in by_slot.values()))
    return out


async def game_ids(client: RedisClient, keys: Keys) -> list[str]:
    """Every game id in the per-shard game-index ZSETs (`Keys.game_index`), sorted: one
    pipeline, split per node on a cluster."""
    async with client.pipeline(transaction=False) as pipe:
        for shard in range(keys.shards):
            pipe.zrange(keys.game_index(shard), 0, -1)
        replies = await pipe.execute()
    return sorted({m.decode() for members in replies for m in members})


async def xread_streams(
    client: RedisClient,
    positions: Mapping[str, str],
    *,
    block_ms: int,
    count: int,
    poll_ms: int = 50,
) -> list[tuple[bytes, list[tuple[bytes, dict[bytes, bytes]]]]]:
    """`XREAD COUNT count [BLOCK block_ms] STREAMS ...` over streams of different shards.

    Returns the XREAD reply shape: [(stream, [(entry id, fields), ...]), ...], streams with
    entries only. `block_ms` 0 (or less): no BLOCK at all (XREAD's `BLOCK 0` would wait
    forever). On a cluster it does not block: when nothing is new it sleeps `poll_ms` (under
    `block_ms`) and returns [], so a caller's read loop stays the same.
    """
    if not is_cluster(client):
        streams: dict[Any, Any] = dict(positions)
        block = block_ms if block_ms > 0 else None
        reply: Any = await client.xread(streams, count=count, block=block)
        return list(reply or [])
    async with client.pipeline(transaction=False) as pipe:
        for stream, last_id in positions.items():
            pipe.xread({stream: last_id}, count=count)  # one stream: one slot
        replies = await pipe.execute()
    out = [item for reply in replies if reply for item in reply]
    if not out and block_ms > 0:
        await asyncio.sleep(min(poll_ms, block_ms) / 1000)
    return out
