"""Faults (docs/decisions/0011-faults-are-answered-not-crashed.md): "a held game has no release path": after a rule-breaking feed entry a game stayed at
seq 20 of 143 while `/readyz` said ok, and neither deleting the hold nor restarting helped.

Now the hold shows in `/readyz` (200, `degraded`, the game, seq and rule listed) and in the gauge
`scoreledger_held_games`, and `scoreledger release GAME`, after a referee's void, resumes the game
from the log: it reaches seq 144 and its standings equal the offline fold of its log."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Sequence

import httpx
import pytest
import redis.asyncio as aioredis
from typer.testing import CliRunner, Result

from contracts.envelope import Envelope
from contracts.events import dump_event_json
from services.adapters.redis.eventlog import RedisEventLog
from services.adapters.redis.keys import Keys, shard_of
from services.bootstrap import Roles, build, build_app
from services.bootstrap import running_projector as run_projector
from services.cli.main import app as cli
from services.platform.settings import ServiceSettings
from services.usecases.authorize import WriteProof
from services.usecases.record import Record
from tests.pipeline.factory import corrected, envelope, game_log
from tests.pipeline.helpers import offline_standings, projected_standings, wait_projected

pytestmark = pytest.mark.redis
KEYS = Keys(16)  # the CLI's default shard count
HELD = "held-1"
OTHERS = ("other-1", "other-2")
runner = CliRunner()


@pytest.fixture
def settings(clean_redis_url: str) -> ServiceSettings:
    return ServiceSettings(redis_url=clean_redis_url, shards=KEYS.shards, batch=50)


@pytest.fixture
async def api(settings: ServiceSettings) -> AsyncIterator[httpx.AsyncClient]:
    """The query role's probes (no projector in this app: the test runs its own)."""
    app = build_app(Roles(ingest=False, inbox=False, projector=False), settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://q") as client:
            yield client


async def record(rec: Record, token: str | None, events: Sequence[Envelope]) -> str:
    """Record `events` through the record use case (the ingest path), 50 a request."""
    for i in range(0, len(events), 50):
        body = json.dumps([e.to_wire() for e in events[i : i + 50]]).encode()

        async def source(raw: bytes = body) -> bytes:
            return raw

        done = await rec.record(events[0].game_id, WriteProof(token), source)
        token = token or done.write_token
    assert token is not None
    return token


def release(url: str, game_id: str) -> Result:
    return runner.invoke(cli, ["release", game_id, "--redis-url", url, "--wait", "20"])


async def test_a_held_game_shows_and_resumes_after_a_void_and_release(
    settings: ServiceSettings,
    redis_client: aioredis.Redis,
    api: httpx.AsyncClient,
) -> None:
    # the projector folds what it holds: an ingest leaving projection to it (a live-projected
    # game's poisoned feed copy is skipped, test_live_projection.py)
    service = build(settings.model_copy(update={"live_projection": False}))
    store = RedisEventLog(redis_client, KEYS)
    log = game_log(HELD, 143, seed=7)
    others = {g: game_log(g, 60, seed=i) for i, g in enumerate(OTHERS)}
    token = await record(service.cases.record, None, log[:20])
    # A rule-breaking feed entry for seq 21 (a player who is not seated) ahead of the real one.
    poison = dump_event_json(corrected(HELD, 21, "nobody", 5))
    feed = KEYS.feed(shard_of(HELD, KEYS.shards))
    await redis_client.xadd(feed, {"game": HELD, "seq": 21, "data": poison})
    await record(service.cases.record, token, log[20:])
    async with run_projector(settings):
        for game_id, events in others.items():
            await store.append(game_id, events)
        await wait_projected(redis_client, KEYS, {HELD: 20, **dict.fromkeys(OTHERS, 60)})
    assert await redis_client.hget(KEYS.projection(HELD), "held") == b"21"
    async with run_projector(settings):  # a restart does not help
        await asyncio.sleep(1.0)
        await wait_projected(redis_client, KEYS, {HELD: 20})

    ready = await api.get("/readyz")
    assert ready.status_code == 200  # still ready: every other game is served
    body = ready.json()
    assert body["status"] == "degraded"
    held = [{"game_id": HELD, "seq": 21, "rule": "correction.unknown_player"}]
    assert (body["checks"]["held_games"], body["checks"]["held"]) == (1, held)
    assert "scoreledger_held_games 1.0" in (await api.get("/metrics")).text

    void = envelope(
        HELD,
        144,
        "game.event_voided",
        {"voided_event_id": str(log[20].event_id), "reason": "misread", "referee": "ref"},
    )
    await record(service.cases.record, token, [void])
    async with run_projector(settings):
        result = await asyncio.to_thread(release, settings.redis_url, HELD)
        assert result.exit_code == 0, result.output
        assert "projected to seq 144" in result.output
        await wait_projected(redis_client, KEYS, {HELD: 144})
    full = [*log, void]
    assert await projected_standings(redis_client, KEYS, HELD) == offline_standings(full)
    assert offline_standings(full) != offline_standings(log)  # the void counted
    for game_id, events in others.items():
        assert await projected_standings(redis_client, KEYS, game_id) == offline_standings(events)
    after = (await api.get("/readyz")).json()
    assert (after["status"], after["checks"]["held_games"], after["checks"]["held"]) == (
        "ok",
        0,
        [],
    )
    assert "scoreledger_held_games 0.0" in (await api.get("/metrics")).text
    letters = await redis_client.xrange(KEYS.dead_letter)
    print(
        f"events in the log {len(full)}, projected before release 20, after {144}; other games "
        f"{len(others)} at 60 of 60; dead letters {len(letters)}; release: {result.output.strip()}"
    )
    await service.client.aclose()


async def test_a_log_that_still_does_not_fold_stays_held(
    settings: ServiceSettings, redis_client: aioredis.Redis
) -> None:
    store = RedisEventLog(redis_client, KEYS)
    events = game_log("bad-1", 5)
    # bypassing ingest: a correction for a player who is not seated, in the log itself
    await store.append("bad-1", [*events[:3], corrected("bad-1", 4, "nobody", 2), *events[4:]])
    async with run_projector(settings):
        await wait_projected(redis_client, KEYS, {"bad-1": 3})
        result = await asyncio.to_thread(release, settings.redis_url, "bad-1")
    assert result.exit_code == 1
    assert "stays held at seq 4" in result.output
    assert "correction.unknown_player" in result.output
    assert await redis_client.hget(KEYS.projection("bad-1"), "held") == b"4"
    not_held = await asyncio.to_thread(release, settings.redis_url, "nope")
    assert (not_held.exit_code, "is not held" in not_held.output) == (0, True)
    print(f"release of a log that does not fold: exit {result.exit_code}: {result.output.strip()}")
