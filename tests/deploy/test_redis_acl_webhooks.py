"""The webhooks role's Redis rights against a real redis-server with the rendered ACL: under
its own user `webhooks` the role (dispatcher and senders) and the operator's use case deliver a
game's `game.started` and `game.ended` to a local receiver, the game appended by the ingest
user and projected by a projector under the projector user; the webhooks user can write
nothing outside `sl:wh:*` and read no token digest, inbox or dead letter. Without
REDIS_ACL_WEBHOOKS the user is absent."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import redis.asyncio as aioredis
from redis.exceptions import NoPermissionError

from contracts.events import parse_event_json
from services.adapters.redis.eventlog import RedisEventLog
from services.bootstrap import build, running_projector, webhook_admin, webhooking
from services.platform.settings import ServiceSettings
from tests.deploy.test_redis_acl import (
    EXAMPLE,
    KEYS,
    AclServer,
    acl_with,
    acl_without,
)
from tests.pipeline.helpers import wait_until
from tests.pipeline.test_webhooks import Receiver, serving

pytestmark = [pytest.mark.redis, pytest.mark.slow]
EVENTS = [parse_event_json(line) for line in EXAMPLE if line.strip()]
GAME = EVENTS[0].game_id


def settings_as(server: AclServer, user: str) -> ServiceSettings:
    """A role's settings logged in as ACL user `user` (password from the rendered ACL)."""
    return ServiceSettings(
        redis_url=f"redis://127.0.0.1:{server.port}/0",
        redis_username=user,
        redis_password=server.passwords[user],  # type: ignore[arg-type]
        shards=KEYS.shards,
        webhook_backoff_s=0.05,
        webhook_backoff_max_s=0.5,
        webhook_poll_s=0.2,
        webhook_allow_private=True,  # the receivers listen on loopback
        feed_trim=False,
    )


async def test_the_webhooks_role_delivers_under_its_own_user_and_writes_nothing_else(
    server: AclServer, role: Callable[[str], aioredis.Redis]
) -> None:
    receiver = Receiver()
    mine = settings_as(server, "webhooks")
    async with serving(receiver) as url, running_projector(settings_as(server, "projector")):
        async with webhook_admin(mine) as admin:
            endpoint = await admin.add(url, None, ["game.started", "game.ended"])
        receiver.secrets = [endpoint.secrets[0].value]
        service = build(mine)
        try:
            async with webhooking(service):
                await RedisEventLog(role("ingest"), KEYS).append(GAME, EVENTS, credential="ab")

                async def delivered() -> bool:
                    return receiver.types() == ["game.started", "game.ended"]

                await wait_until(delivered, 90, "game.started and game.ended delivered")
        finally:
            await service.client.aclose()
        async with webhook_admin(mine) as admin:
            entries = await admin.deliveries(url, 10)
    assert receiver.refused == []
    assert {e.status for e in entries} == {"delivered"}

    webhooks = role("webhooks")
    assert len(await webhooks.hvals(KEYS.webhooks("endpoints"))) == 1  # its own keys
    for forbidden in (
        webhooks.xadd(KEYS.game_stream(GAME), {"data": "x"}),
        webhooks.hset(KEYS.projection(GAME), "seq", 1),
        webhooks.delete(KEYS.projection(GAME)),
        webhooks.xadd(KEYS.changes(0), {"game": GAME}),
        webhooks.get(KEYS.write_token(GAME)),
        webhooks.xlen(KEYS.inbox),
        webhooks.xlen(KEYS.dead_letter),
        webhooks.set(KEYS.checkpoint(0), "0-1"),
    ):
        with pytest.raises(NoPermissionError):
            await forbidden


def test_without_a_password_the_webhooks_user_is_left_out(tmp_path: Path) -> None:
    text, good = acl_without(tmp_path, "webhooks")
    assert "user webhooks" not in text
    assert "${" not in text
    assert "user archiver on #" in text  # the other optional user is still rendered
    assert "user webhooks on #" in acl_with(tmp_path, "webhooks", good)
