"""The archive's Redis rights against a real redis-server with the rendered ACL: the archiver
user seals a final game (reads its keys, then deletes them) and can write nothing else; ingest
restores an archived game under its own user; without REDIS_ACL_ARCHIVER the user is absent."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import redis.asyncio as aioredis
from redis.exceptions import NoPermissionError

from contracts.events import parse_event_json
from services.adapters.redis.eventlog import RedisEventLog
from services.adapters.redis.projections import RedisProjections
from services.archive.adapters.memory import MemoryArchive
from services.archive.adapters.redis_hot import RedisHotGames
from services.archive.usecases.seal import Seal
from tests.deploy.test_redis_acl import EXAMPLE, KEYS, acl_with, acl_without

pytestmark = pytest.mark.redis
DIGEST = "ef" * 32
EVENTS = [parse_event_json(line) for line in EXAMPLE if line.strip()]
GAME = EVENTS[0].game_id


async def _final_game(role: Callable[[str], aioredis.Redis]) -> None:
    """The example game appended by ingest, its final projection written as the projector's."""
    await RedisEventLog(role("ingest"), KEYS).append(GAME, EVENTS, credential=DIGEST)
    fields = {"seq": len(EVENTS), "status": "final", "game": "penumbra", "standings": "{}"}
    await role("admin").hset(KEYS.projection(GAME), mapping=fields)  # type: ignore[arg-type]


async def test_the_archiver_seals_a_game_and_writes_nothing_else(
    role: Callable[[str], aioredis.Redis],
) -> None:
    await _final_game(role)
    archiver = role("archiver")
    archive = MemoryArchive()
    seal = Seal(
        RedisEventLog(archiver, KEYS),
        RedisProjections(archiver, KEYS),
        RedisHotGames(archiver, KEYS),
        archive,
        after_s=0,
    )
    later = datetime.now(UTC) + timedelta(seconds=5)
    done = await seal.pass_once(later)
    assert done.results == {GAME: "sealed"}
    assert await RedisEventLog(role("admin"), KEYS).version(GAME) == 0
    stored = archive.games[GAME]
    assert (stored.token_digest, stored.entry.event_count) == (DIGEST, len(EVENTS))
    for forbidden in (
        archiver.xadd(KEYS.game_stream(GAME), {"data": "x"}),
        archiver.set(KEYS.write_token(GAME), "x"),
        archiver.hset(KEYS.projection(GAME), "seq", 1),
        archiver.get(KEYS.dead_letter),
        archiver.delete(KEYS.inbox),
    ):
        with pytest.raises(NoPermissionError):
            await forbidden

    # an append to the archived game: ingest restores it under its own user, holding the
    # game's tier lock (docs/forget.md)
    ingest = RedisHotGames(role("ingest"), KEYS)
    assert await ingest.lock(GAME, "restore-1", 60_000)
    assert await ingest.restore(stored)
    await ingest.unlock(GAME, "restore-1")
    assert await ingest.lock(GAME, "restore-2", 60_000)  # let go: taken again
    await ingest.unlock(GAME, "restore-2")
    assert await RedisEventLog(role("query"), KEYS).read_raw(GAME) == list(stored.events)


def test_without_a_password_the_archiver_user_is_left_out(tmp_path: Path) -> None:
    text, good = acl_without(tmp_path, "archiver")
    assert "user archiver" not in text
    assert "${" not in text
    assert "user archiver on #" in acl_with(tmp_path, "archiver", good)
