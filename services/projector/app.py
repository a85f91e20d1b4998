"""Composition root of the projector: a FastStream app with one catch-up subscriber per shard.

Each subscriber reads its shard feed with plain XREAD (no group), `batch=True`,
`max_records=settings.batch`, from the checkpoint loaded in `on_startup` (before the broker
connects). Source: research/tech.md §1.8, §3.4.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import redis.asyncio as aioredis
from faststream import FastStream
from faststream.redis import RedisBatchStreamMessage, RedisBroker, StreamSub
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.retry import Retry

from services.keys import Keys
from services.projector.projector import Projector
from services.settings import ProjectorSettings


def redis_client(url: str) -> aioredis.Redis:
    """A client that retries connection errors with backoff (about 10 s in all)."""
    return aioredis.Redis.from_url(
        url,
        retry=Retry(ExponentialBackoff(cap=2.0, base=0.05), retries=10),
        retry_on_error=[RedisConnectionError, RedisTimeoutError],
    )


def build_projector(settings: ProjectorSettings) -> tuple[FastStream, Projector]:
    """The FastStream app and the `Projector` it drives (exposed for tests and `serve`)."""
    keys = Keys(settings.shards)
    client = redis_client(settings.redis_url)
    projector = Projector(client, keys, changes_maxlen=settings.changes_maxlen)
    broker = RedisBroker(settings.redis_url, logger=None)

    def handler_for(shard: int):
        async def project(msg: RedisBatchStreamMessage) -> None:
            ids = [i.decode() for i in msg.raw_message["message_ids"]]
            await projector.handle(shard, ids, msg.raw_message["data"])

        return project

    async def subscribe_from_checkpoints() -> None:
        for shard in range(settings.shards):
            ckpt = await projector.load_checkpoint(shard)
            feed = StreamSub(keys.feed(shard), batch=True, max_records=settings.batch, last_id=ckpt)
            broker.subscriber(stream=feed, title=f"projector-shard-{shard}")(handler_for(shard))

    async def close_client() -> None:
        await client.aclose()

    app = FastStream(broker, on_startup=[subscribe_from_checkpoints], after_shutdown=[close_client])
    return app, projector


def create_projector_app(settings: ProjectorSettings) -> FastStream:
    """The projector as a FastStream app (`faststream run`-able; `python -m services.projector`)."""
    return build_projector(settings)[0]


@asynccontextmanager
async def run_projector(settings: ProjectorSettings) -> AsyncIterator[Projector]:
    """Run the projector inside the current event loop until the block exits (tests, `serve`)."""
    app, projector = build_projector(settings)
    async with app:
        yield projector
