"""Outbound webhooks end to end on a real Redis: the projector, the webhooks role and a local
receiver (uvicorn on 127.0.0.1) that verifies every request with the reference library
(`standardwebhooks.Webhook(secret).verify`). `game.ended` arrives exactly once across an ingest
restart (the log sent again) and a webhooks-role restart, after 500s that are retried under the
same `webhook-id`; a rotated secret's old and new values both verify during the window."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from jsonschema import Draft202012Validator
from prometheus_client import generate_latest
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from contracts.envelope import Envelope
from contracts.events import parse_event
from services.bootstrap import (
    Roles,
    build,
    roles_lifespan,
    running_projector,
    webhook_admin,
    webhooking,
)
from services.doors.query.openapi import COMMITTED
from services.platform.settings import ServiceSettings
from tests.pipeline.helpers import wait_until
from tests.redis_fixture import free_port

pytestmark = [pytest.mark.redis, pytest.mark.slow]

EXAMPLE = Path(__file__).parents[2] / "contracts" / "examples" / "penumbra-3p.jsonl"


def example() -> list[Envelope]:
    return [parse_event(json.loads(line)) for line in EXAMPLE.read_text().splitlines()]


@dataclass
class Receiver:
    """An ASGI webhook receiver: answers 500 to the first `fail_first` requests, else verifies
    the request with every secret in `secrets` (each must pass: 400 and `refused` otherwise)
    and answers 204."""

    secrets: list[str] = field(default_factory=list)
    fail_first: int = 0
    seen: list[dict[str, Any]] = field(default_factory=list)
    accepted: list[dict[str, Any]] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = {k.decode(): v.decode() for k, v in scope["headers"]}
        record = {"id": headers.get("webhook-id"), "headers": headers, "body": json.loads(body)}
        self.seen.append(record)
        status = 204
        if len(self.seen) <= self.fail_first:
            status = 500
        else:
            try:
                for secret in self.secrets:
                    Webhook(secret).verify(body, headers)
                self.accepted.append(record)
            except WebhookVerificationError as error:
                self.refused.append(str(error))
                status = 400
        await send({"type": "http.response.start", "status": status, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    def types(self) -> list[str]:
        return [r["body"]["type"] for r in self.accepted]


def published_errors(body: dict[str, Any]) -> list[str]:
    """What `body` breaks of the request body `contracts/openapi.json` publishes for its
    `type` (its `webhooks` entry; JSON Schema 2020-12 over the document's components)."""
    document = json.loads(COMMITTED.read_text(encoding="utf-8"))
    operation = document["webhooks"][body["type"]]["post"]
    schema = operation["requestBody"]["content"]["application/json"]["schema"]
    check = Draft202012Validator({**schema, "components": document["components"]})
    return [error.message for error in check.iter_errors(body)]


@asynccontextmanager
async def serving(receiver: Receiver) -> AsyncIterator[str]:
    port = free_port()
    config = uvicorn.Config(receiver, host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    try:
        await wait_until(lambda: _true(server.started), 30, "the receiver to start")
        yield f"http://127.0.0.1:{port}/hook"
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 10)


async def _true(value: bool) -> bool:
    return value


def settings_for(url: str) -> ServiceSettings:
    return ServiceSettings(
        redis_url=url,
        shards=4,
        webhook_backoff_s=0.05,
        webhook_backoff_max_s=0.5,
        webhook_poll_s=0.2,
        webhook_allow_private=True,  # the receivers listen on loopback
        feed_trim=False,
    )


async def append(settings: ServiceSettings, events: list[Envelope]) -> None:
    """Append as ingest does (the append script), with a client of its own: a fresh ingest."""
    service = build(settings)
    try:
        for i in range(0, len(events), 10):
            chunk = events[i : i + 10]
            await service.ports.log.append(chunk[0].game_id, chunk)
    finally:
        await service.client.aclose()


async def test_game_ended_arrives_once_across_restarts_signed_retried_and_rotated(
    clean_redis_url: str,
) -> None:
    settings = settings_for(clean_redis_url)
    receiver = Receiver(fail_first=2)
    log = example()
    async with serving(receiver) as url, running_projector(settings):
        async with webhook_admin(settings) as admin:
            endpoint = await admin.add(url, None, [])
        receiver.secrets = [endpoint.secrets[0].value]
        role = build(settings)
        async with webhooking(role):
            await append(settings, log[:50])
            await wait_until(
                lambda: _true("game.started" in receiver.types()), 60, "game.started delivered"
            )
            assert len(receiver.seen) >= 3  # two 500s, then the retry under the same id
            assert receiver.seen[0]["id"] == receiver.seen[1]["id"] == receiver.seen[2]["id"]
            async with webhook_admin(settings) as admin:
                rotated = await admin.rotate(url, 3600)
        await role.client.aclose()
        # from now on, during the window, a receiver holding either secret verifies every
        # message (a request in flight at the stop was signed before the rotation)
        receiver.secrets = [endpoint.secrets[0].value, rotated.secrets[0].value]
        await append(settings, log)  # a restarted ingest sends the whole log again
        role = build(settings)
        async with webhooking(role):  # the dispatcher resumes from its checkpoint

            async def settled() -> bool:
                return (
                    "game.ended" in receiver.types()
                    and await role.ports.webhooks.depth(endpoint.id) == 0
                )

            await wait_until(settled, 60, "game.ended delivered and the queue empty")
        await role.client.aclose()
        async with webhook_admin(settings) as admin:
            entries = await admin.deliveries(url, 100)
    assert receiver.refused == []
    types = receiver.types()
    assert types.count("game.ended") == 1
    assert types.count("game.started") == 1
    assert types.count("event.voided") == 1
    ended = next(r for r in receiver.accepted if r["body"]["type"] == "game.ended")
    assert ended["body"]["data"]["standings"]["status"] == "final"
    assert len(ended["headers"]["webhook-signature"].split(" ")) == 2  # old and new secret
    assert len({r["id"] for r in receiver.accepted}) == len(receiver.accepted)
    for received in receiver.accepted:  # each body is its published webhook's schema
        assert published_errors(received["body"]) == [], received["body"]["type"]
    statuses = {e.delivery.id: e.status for e in entries}
    assert statuses[ended["id"]] == "delivered"
    first = next(e for e in entries if e.delivery.type == "game.started")
    assert (first.delivery.attempts, first.http_status) == (3, 204)


async def test_a_test_event_and_a_replay_reach_the_receiver_under_one_id(
    clean_redis_url: str,
) -> None:
    settings = settings_for(clean_redis_url)
    receiver = Receiver()
    async with serving(receiver) as url:
        async with webhook_admin(settings) as admin:
            endpoint = await admin.add(url, None, ["game.ended"])
            receiver.secrets = [endpoint.secrets[0].value]
            result = await admin.test(url)
            assert (result.entry.status, result.entry.http_status) == ("delivered", 204)
            again = await admin.replay(result.entry.delivery.id)
        only_webhooks = Roles(
            ingest=False, inbox=False, projector=False, query=False, webhooks=True
        )
        async with roles_lifespan(build(settings), only_webhooks):  # as `serve --webhooks` runs
            await wait_until(lambda: _true(len(receiver.accepted) == 2), 60, "the replay")
    metrics = generate_latest().decode()
    assert 'scoreledger_webhook_deliveries_total{outcome="delivered"}' in metrics
    assert "scoreledger_webhook_queue_depth{" in metrics
    assert receiver.types() == ["webhook.test", "webhook.test"]
    assert {r["id"] for r in receiver.accepted} == {again.id}
    assert receiver.refused == []
