"""A forget that lands while `scoreledger webhooks replay` queues a logged delivery again: the
replay read the logged body (naming the player) before the forget's scrub, and queues it after.
Before the replay's enqueue checked the game's scrub count (`WebhookStore.scrubs`, as a
dispatch's commit does), the queued copy named the forgotten player and was sent. docs/forget.md:
what is kept for replay does not send the name. On the memory and the Redis adapters."""

from __future__ import annotations

from typing import Any

import pytest

from contracts.events import parse_event_json
from services.adapters.redis.keys import shard_of
from services.bootstrap import Ports, memory_ports, use_cases
from services.platform.settings import ServiceSettings
from services.usecases.forget import Forget
from services.webhooks.usecases.admin import WebhookAdmin
from services.webhooks.usecases.dispatch import Bounds, Dispatcher
from tests.names.helpers import GAME, PLAYER, holds_name, lines, on_redis

SHARDS = 4


class _ForgetOnEnqueue:
    """The webhook store, running the forget once just before the replay's enqueue (after the
    replay read the logged body)."""

    def __init__(self, inner: Any, forget: Forget) -> None:
        self.inner, self.forget, self.fired = inner, forget, False

    async def enqueue(self, *args: Any, **kwargs: Any) -> Any:
        if not self.fired:
            self.fired = True
            await self.forget.forget(GAME, PLAYER)
        return await self.inner.enqueue(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


async def _replay_across_a_forget(ports: Ports, forget: Forget, project: Any, feed: Any) -> None:
    store = ports.webhooks
    admin = WebhookAdmin(store, None, Bounds(), allow_private=False)  # type: ignore[arg-type]
    await admin.add("https://hooks.example/in", None, [])
    dispatcher = Dispatcher(
        store, ports.notices, ports.named_log(), ports.projections, SHARDS, Bounds()
    )
    await dispatcher.start()
    events = [parse_event_json(line) for line in lines()[:6]]
    await ports.named_log().append(GAME, events)
    shard = shard_of(GAME, SHARDS)
    await project.apply(shard, await feed(shard))
    assert (await dispatcher.step()).queued
    [endpoint] = await store.endpoints()
    for delivery in await store.pending(endpoint.id, 100):
        await store.settle(delivery, "delivered", 200, Bounds().max_log)
    logged = [e.delivery for e in await store.log(endpoint.id, 100)]
    [started] = [d for d in logged if d.type == "game.started"]
    assert holds_name(started.body.encode())

    racing = _ForgetOnEnqueue(store, forget)
    replaying = WebhookAdmin(racing, None, Bounds(), allow_private=False)  # type: ignore[arg-type]
    again = await replaying.replay(started.id)
    assert racing.fired
    assert again.id == started.id
    queued = await store.pending(endpoint.id, 100)
    assert [d.id for d in queued] == [started.id]
    assert not holds_name(queued[0].body.encode())  # failed before: the name, queued to send
    assert not holds_name(again.body.encode())
    assert not [
        e for e in await store.log(endpoint.id, 100) if holds_name(e.delivery.body.encode())
    ]


async def test_a_forget_during_a_replay_queues_no_body_naming_the_player() -> None:
    ports = memory_ports(SHARDS)
    cases = use_cases(ports, ServiceSettings(shards=SHARDS))
    assert cases.forget is not None
    backend: Any = ports.log.b  # type: ignore[attr-defined]

    async def feed(shard: int) -> list[Any]:
        return list(backend.feeds.get(shard, []))

    await _replay_across_a_forget(ports, cases.forget, cases.project, feed)


@pytest.mark.redis
async def test_on_redis_a_forget_during_a_replay_queues_no_body_naming_the_player(
    clean_redis_url: str,
) -> None:
    async with on_redis(clean_redis_url, SHARDS) as (ports, forget, project, feed):
        await _replay_across_a_forget(ports, forget, project, feed)
