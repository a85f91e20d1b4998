"""Odd input and retries at the doors: lone surrogates, poison inbox messages, unknown schema
versions, retried creations, reused event ids, huge inputs, spreadsheet formulas in CSV, long
logs published in big batches; each is answered or stored as the contract says, never a 500."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import uuid
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from services.adapters.redis.eventlog import RedisEventLog
from services.adapters.redis.keys import Keys
from services.bootstrap import running_inbox
from services.platform.settings import ServiceSettings
from services.ports.inbox import GROUP
from tests.adversarial.conftest import Stack, example_game
from tests.adversarial.test_http_hostile import create, post, version
from tests.pipeline.helpers import wait_until

pytestmark = pytest.mark.redis
KEYS = Keys(4)
TOKEN = "findings-table-chose-this-write-token-42"


# F1 -- a lone UTF-16 surrogate (valid JSON escape) in any string field
async def test_lone_surrogate_is_a_422_not_a_500(stack: Stack) -> None:
    log, token = await create(stack, "f1")
    raw = json.dumps({**log[1], "actor": "\ud83dx"}).encode()  # ascii bytes: "\\ud83dx"
    response = await stack.client.post(
        "/games/f1/events",
        content=raw,
        headers={"Authorization": f"Bearer {token}", "content-type": "application/json"},
    )
    assert response.status_code == 422, response.status_code


# F1 in the inbox: a poison message -- never dead-lettered, stays pending, its batch is dropped
async def test_inbox_poison_message_is_dead_lettered_and_the_batch_goes_on(
    inbox_settings: ServiceSettings, redis_client: aioredis.Redis
) -> None:
    log = example_game("f1-inbox")
    poison = json.dumps({**log[2], "actor": "\ud83dx", "event_id": str(uuid.uuid4())})
    async with running_inbox(inbox_settings):
        for body in [json.dumps(log[0]), json.dumps(log[1]), poison, json.dumps(log[2])]:
            await redis_client.xadd(KEYS.inbox, {"data": body, "token": TOKEN})
        for event in log[3:6]:
            await redis_client.xadd(KEYS.inbox, {"data": json.dumps(event), "token": TOKEN})
        store = RedisEventLog(redis_client, KEYS)

        async def settled() -> bool:
            return (
                await redis_client.xlen(KEYS.dead_letter) >= 1
                and await store.version("f1-inbox") == 6
            )

        await wait_until(settled, 10, "poison dead-lettered, the 6 good events appended")
        assert (await redis_client.xpending(KEYS.inbox, GROUP))["pending"] == 0


# F2 -- malformed schema_version / a v1 payload that is not v1-shaped crash the upcaster
@pytest.mark.parametrize(
    "mutate",
    [
        lambda e: {**e, "schema_version": None},
        lambda e: {**e, "schema_version": [1]},
    ],
    ids=["schema_version null", "schema_version list"],
)
async def test_bad_schema_version_is_a_422_not_a_500(stack: Stack, mutate) -> None:  # type: ignore[no-untyped-def]
    log, token = await create(stack, "f2")
    response = await post(stack, "f2", mutate(log[1]), token)
    assert response.status_code == 422, response.status_code


async def test_v1_correction_without_points_is_a_422_not_a_500(stack: Stack) -> None:
    _, token = await create(stack, "f2b")
    v1 = {
        "event_id": str(uuid.uuid4()),
        "game_id": "f2b",
        "seq": 2,
        "type": "game.score_corrected",
        "schema_version": 1,
        "occurred_at": "2026-11-28T20:00:00Z",
        "actor": "referee",
        "payload": {"player_id": "mira", "amount": 1, "reason": "x", "referee": "Olga"},
    }
    response = await post(stack, "f2b", v1, token)
    assert response.status_code == 422, response.status_code


# F3 -- the creating append's 201 is lost (timeout); the client retries the same event.
# Decision 0009 (docs/decisions/0009-one-authorization-on-every-write.md): changed the recovery: the creator chooses its token and retries with it (a token-less
# retry is now refused first, 401, since the token is checked before the body).
async def test_retry_of_the_creating_event_is_idempotent(stack: Stack) -> None:
    log = example_game("f3")
    first = await post(stack, "f3", log[0], TOKEN)
    assert first.status_code == 201  # ...but the client never saw this answer
    retry = await post(stack, "f3", log[0], TOKEN)
    assert retry.status_code == 201, retry.text
    assert retry.json()["appended"][0]["duplicate"] is True
    assert (await post(stack, "f3", log[0], None)).status_code == 401


# F4 -- event_id reused with a DIFFERENT body is silently answered "201 duplicate"
async def test_event_id_reuse_with_another_body_is_refused(stack: Stack) -> None:
    log, token = await create(stack, "f4", upto=2)
    different = {**log[2], "event_id": log[1]["event_id"], "seq": 3}
    response = await post(stack, "f4", different, token)
    assert response.status_code in (409, 422), response.text
    assert await version(stack, "f4") == 2


# F6 -- a 422 echoes the whole offending input back (10 MB in, 10 MB out)
async def test_validation_error_does_not_echo_a_huge_input(stack: Stack) -> None:
    log, token = await create(stack, "f6")
    response = await post(stack, "f6", {**log[1], "actor": "x" * 1_000_000}, token)
    assert response.status_code == 422
    assert len(response.content) < 10_000, len(response.content)


# F8 -- CSV export writes player names raw: a spreadsheet formula runs when opened
async def test_scoresheet_csv_neutralises_formulas(stack: Stack) -> None:
    log = example_game("f8")
    log[0]["payload"]["players"][0]["name"] = '=HYPERLINK("http://evil.example","win")'
    first = await post(stack, "f8", log[0], None)
    assert first.status_code == 201
    text = (await stack.client.get("/games/f8/export/scoresheet.csv")).text
    names = [row["Player"] for row in csv.DictReader(io.StringIO(text))]
    assert not any(n.startswith(("=", "+", "-", "@")) for n in names), names


# F7 -- `publish --batch` accepted up to 10000, but ingest refuses more than 1000 per request
async def test_publish_with_a_big_batch_option_sends_a_long_log(
    stack: Stack, tmp_path: Path
) -> None:
    from typer.testing import CliRunner

    from services.cli.main import app
    from tests.adversarial.conftest import correction

    log = example_game("f7")[:1] + [correction("f7", s, "mira", 1) for s in range(2, 1202)]
    path = Path(tmp_path) / "long.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in log), encoding="utf-8")
    too_big = await asyncio.to_thread(
        CliRunner().invoke, app, ["publish", str(path), "--url", stack.url, "--batch", "5000"]
    )
    assert too_big.exit_code == 2  # refused up front, naming the option, nothing sent
    assert "--batch" in too_big.output
    result = await asyncio.to_thread(
        CliRunner().invoke, app, ["publish", str(path), "--url", stack.url, "--batch", "1000"]
    )
    assert result.exit_code == 0, result.output
