"""A forget that lands while the webhook dispatcher is deriving a game's deliveries: the
dispatcher read the game's events (the name put back) before the forget, and commits the
bodies after the forget scrubbed what was kept (`WebhookStore.scrub`). Before the commit
checked the game's scrub count, the committed bodies held the name; the forget's change
notice is for a seq the dispatcher has seen, so nothing derived them again, and `scoreledger
webhooks replay` sent the name. docs/forget.md: kept deliveries get the pseudonym, "what is
kept for replay does not" send the name. On the memory and the Redis adapters."""

from __future__ import annotations

from typing import Any

import pytest

from contracts.events import parse_event_json
from services.adapters.redis.keys import shard_of
from services.bootstrap import Ports, memory_ports, use_cases
from services.platform.settings import ServiceSettings
from services.usecases.forget import Forget
from services.webhooks.usecases.admin import WebhookAdmin
from services.webhooks.usecases.dispatch import RACED_TRIES, Bounds, Dispatcher
from tests.names.helpers import GAME, PLAYER, holds_name, lines, on_redis

SHARDS = 4


class _ForgetMidway:
    """The projections port, running the forget before the dispatcher's first read of it
    (between its read of the game's events and its commit)."""

    def __init__(self, inner: Any, forget: Any) -> None:
        self.inner, self.forget, self.fired = inner, forget, False

    async def get(self, game_id: str) -> Any:
        if not self.fired:
            self.fired = True
            await self.forget.forget(GAME, PLAYER)
        return await self.inner.get(game_id)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


async def _dispatch_across_a_forget(
    ports: Ports, forget: Forget, project: Any, feed: Any
) -> list[str]:
    """The game's first 6 events appended and projected (`feed(shard)`: the shard's feed
    entries), a dispatcher step with the forget between its read of the events and its
    commit, then the forget's own notice; the types of the kept bodies that hold the name."""
    store = ports.webhooks
    assert store is not None
    admin = WebhookAdmin(store, None, Bounds(), allow_private=False)  # type: ignore[arg-type]
    await admin.add("https://hooks.example/in", None, [])
    midway = _ForgetMidway(ports.projections, forget)
    dispatcher = Dispatcher(store, ports.notices, ports.named_log(), midway, SHARDS, Bounds())
    await dispatcher.start()

    events = [parse_event_json(line) for line in lines()[:6]]
    await ports.named_log().append(GAME, events)  # type: ignore[attr-defined]
    shard = shard_of(GAME, SHARDS)
    await project.apply(shard, await feed(shard))

    done = await dispatcher.step()
    assert midway.fired
    assert done.queued  # derived again after the refused commit, and committed
    await dispatcher.step()  # the forget's notice: nothing new to derive
    [endpoint] = await store.endpoints()
    kept = [e.delivery for e in await store.log(endpoint.id, 100)]
    assert {d.type for d in kept} >= {"game.started", "standings.changed"}
    return [d.type for d in kept if holds_name(d.body.encode())]


async def test_a_forget_during_a_dispatch_leaves_no_kept_body_naming_the_player() -> None:
    ports = memory_ports(SHARDS)
    cases = use_cases(ports, ServiceSettings(shards=SHARDS))
    assert cases.forget is not None
    backend: Any = ports.log.b  # type: ignore[attr-defined]

    async def feed(shard: int) -> list[Any]:
        return list(backend.feeds.get(shard, []))

    # failed before the commit checked the scrub count: ['game.started']
    assert await _dispatch_across_a_forget(ports, cases.forget, cases.project, feed) == []


@pytest.mark.redis
async def test_on_redis_a_forget_during_a_dispatch_leaves_no_kept_body_naming_the_player(
    clean_redis_url: str,
) -> None:
    async with on_redis(clean_redis_url, SHARDS) as (ports, forget, project, feed):
        named = await _dispatch_across_a_forget(ports, forget, project, feed)
        assert named == []  # failed before: ['game.started']


class _ScrubEachRead:
    """The projections port, running a scrub of the game before each of the dispatcher's
    reads of it while `on` (a forget per derivation)."""

    def __init__(self, inner: Any, store: Any) -> None:
        self.inner, self.store, self.on = inner, store, True

    async def get(self, game_id: str) -> Any:
        if self.on:
            await self.store.scrub(game_id, [])
        return await self.inner.get(game_id)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


async def test_a_step_raced_by_a_scrub_on_every_try_moves_nothing_then_the_next_commits() -> None:
    ports = memory_ports(SHARDS)
    cases = use_cases(ports, ServiceSettings(shards=SHARDS))
    store = ports.webhooks
    assert store is not None
    admin = WebhookAdmin(store, None, Bounds(), allow_private=False)  # type: ignore[arg-type]
    await admin.add("https://hooks.example/in", None, [])
    racing = _ScrubEachRead(ports.projections, store)
    dispatcher = Dispatcher(store, ports.notices, ports.named_log(), racing, SHARDS, Bounds())
    started = await dispatcher.start()
    events = [parse_event_json(line) for line in lines()[:6]]
    await ports.named_log().append(GAME, events)  # type: ignore[attr-defined]
    backend: Any = ports.log.b  # type: ignore[attr-defined]
    shard = shard_of(GAME, SHARDS)
    await cases.project.apply(shard, list(backend.feeds.get(shard, [])))

    assert (await dispatcher.step()).queued == 0
    assert await store.scrubs([GAME]) == [RACED_TRIES]
    assert await store.checkpoint() == started
    assert await store.seen([GAME]) == [None]
    [endpoint] = await store.endpoints()
    assert await store.depth(endpoint.id) == 0
    racing.on = False
    assert (await dispatcher.step()).queued  # the same notices, read again
    assert await store.seen([GAME]) == [6]
