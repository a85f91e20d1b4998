"""The webhook use cases on in-memory adapters: what the dispatcher derives from the log and
queues (once, filtered, coalesced), how the sender signs and retries, secret rotation."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from contracts.envelope import Envelope
from contracts.events import parse_event
from contracts.webhooks import MESSAGES
from services.adapters.memory.store import MemoryBackend
from services.adapters.redis.keys import shard_of
from services.bootstrap import Ports, memory_ports, use_cases
from services.platform.settings import ServiceSettings
from services.usecases.project import Project
from services.webhooks.adapters.memory import MemoryWebhookStore
from services.webhooks.doors.loop import WebhooksLoop, running
from services.webhooks.ports import Answer, Delivery, TransportError
from services.webhooks.usecases.admin import WebhookAdmin, WebhookRefused
from services.webhooks.usecases.deliver import RetryPolicy, Sender, signed_headers
from services.webhooks.usecases.dispatch import Bounds, Dispatcher
from tests.pipeline.factory import game_log
from tests.pipeline.helpers import wait_until

SHARDS = 4
EXAMPLE = Path(__file__).parents[2] / "contracts" / "examples" / "penumbra-3p.jsonl"
GAME = "pen-demo-3p"


def example() -> list[Envelope]:
    return [parse_event(json.loads(line)) for line in EXAMPLE.read_text().splitlines()]


@dataclass
class FakeTransport:
    """Answers from `script` in turn (then 200); an int is a status, an exception is raised;
    every request kept."""

    script: list[int | Answer | Exception] = field(default_factory=list)
    requests: list[tuple[str, bytes, dict[str, str]]] = field(default_factory=list)

    async def post(self, url: str, body: bytes, headers: Mapping[str, str]) -> Answer:
        self.requests.append((url, body, dict(headers)))
        step = self.script.pop(0) if self.script else 200
        if isinstance(step, Exception):
            raise step
        return step if isinstance(step, Answer) else Answer(step)


@dataclass
class World:
    ports: Ports
    project: Project
    backend: MemoryBackend
    store: MemoryWebhookStore
    transport: FakeTransport
    admin: WebhookAdmin
    sender: Sender

    def dispatcher(self, max_queue: int = 100) -> Dispatcher:
        p = self.ports
        return Dispatcher(
            self.store, p.notices, p.log, p.projections, SHARDS, Bounds(max_queue, 50)
        )

    async def append_and_project(self, events: list[Envelope]) -> None:
        await self.ports.log.append(events[0].game_id, events)
        shard = shard_of(events[0].game_id, SHARDS)
        await self.project.apply(shard, list(self.backend.feeds.get(shard, [])))


def world(policy: RetryPolicy | None = None) -> World:
    ports = memory_ports(SHARDS)
    project = use_cases(ports, ServiceSettings(shards=SHARDS)).project
    store = ports.webhooks
    assert isinstance(store, MemoryWebhookStore)
    transport = FakeTransport()
    sender = Sender(store, transport, policy or RetryPolicy(4, 0.001, 0.01, 1.0), 50)
    admin = WebhookAdmin(store, sender, Bounds(100, 50), allow_private=True)  # 127.0.0.1:9
    return World(ports, project, ports.log.b, store, transport, admin, sender)  # type: ignore[attr-defined]


FROM_LOG = {
    "penumbra.game_started": "game.started",
    "game.ended": "game.ended",
    "game.event_voided": "event.voided",
    "game.score_corrected": "score.corrected",
}


def expected(events: list[Envelope]) -> list[str]:
    """The message types `events` give, in order."""
    return [FROM_LOG[e.type] for e in events if e.type in FROM_LOG]


async def types_queued(w: World, endpoint_id: str) -> list[str]:
    return [d.type for d in await w.store.pending(endpoint_id, 1000)]


async def test_a_game_gives_its_start_corrections_end_and_one_coalesced_standings_change() -> None:
    w = world()
    everything = await w.admin.add("http://127.0.0.1:9/all", None, [])
    ended_only = await w.admin.add("http://127.0.0.1:9/end", GAME, ["game.ended"])
    other_game = await w.admin.add("http://127.0.0.1:9/other", "another-game", [])
    d = w.dispatcher()
    await d.start()
    log = example()
    await w.append_and_project(log[:40])
    first = await d.step()
    assert first.queued > 0
    assert await types_queued(w, everything.id) == [*expected(log[:40]), "standings.changed"]
    await w.append_and_project(log[40:])
    await d.step()
    kinds = await types_queued(w, everything.id)
    # the newer standings change replaced the pending one, in place
    assert kinds == [*expected(log[:40]), "standings.changed", *expected(log[40:])]
    assert kinds.count("game.started") == kinds.count("game.ended") == 1
    [standings] = [d for d in await w.store.pending(everything.id, 1000) if d.coalesce]
    assert json.loads(standings.body)["data"]["standings"]["seq"] == len(log)
    assert await types_queued(w, ended_only.id) == ["game.ended"]
    assert await types_queued(w, other_game.id) == []
    ended = (await w.store.pending(ended_only.id, 1))[0]
    data = json.loads(ended.body)
    assert data["type"] == "game.ended"
    assert data["data"]["standings"]["status"] == "final"
    assert data["data"]["seq"] == len(log)


async def test_every_message_is_its_published_contract() -> None:
    w = world()
    ep = await w.admin.add("http://127.0.0.1:9/all", None, [])
    d = w.dispatcher()
    await d.start()
    await w.append_and_project(example())
    await w.append_and_project(game_log("tr-1", 6, seed=2))  # corrections
    await d.step()
    await w.admin.test(ep.url)
    bodies = [x.body for x in await w.store.pending(ep.id, 100)]
    bodies += [body.decode() for _, body, _ in w.transport.requests]
    kinds = set()
    for body in bodies:
        kind = json.loads(body)["type"]
        MESSAGES[kind].model_validate_json(body)  # extra="forbid": no field undocumented
        kinds.add(kind)
    assert kinds == set(MESSAGES)


async def test_a_restarted_dispatcher_derives_nothing_twice() -> None:
    w = world()
    ep = await w.admin.add("http://127.0.0.1:9/all", None, ["game.started", "game.ended"])
    d = w.dispatcher()
    await d.start()
    log = example()
    await w.append_and_project(log[:10])
    await d.step()
    again = w.dispatcher()  # a new process: the stored checkpoint and seen seqs
    assert (await again.step()).queued == 0
    await w.append_and_project(log[10:])
    await again.step()
    assert await types_queued(w, ep.id) == ["game.started", "game.ended"]


async def test_the_first_start_begins_at_the_tail_history_is_not_sent() -> None:
    w = world()
    log = example()
    await w.append_and_project(log[:30])  # before webhooks existed
    ep = await w.admin.add("http://127.0.0.1:9/all", None, [])
    d = w.dispatcher()
    await d.start()
    assert (await d.step()).queued == 0
    await w.append_and_project(log[30:])
    await d.step()
    kinds = await types_queued(w, ep.id)
    assert "game.started" not in kinds
    assert kinds.count("game.ended") == 1


async def test_a_full_queue_drops_and_counts() -> None:
    w = world()
    ep = await w.admin.add("http://127.0.0.1:9/all", None, [])
    d = w.dispatcher(max_queue=2)
    await d.start()
    await w.append_and_project(example())
    out = await d.step()
    assert out.queued == 4  # started, voided, ended, standings changed
    assert out.outcome.dropped == {ep.id: 2}
    assert await types_queued(w, ep.id) == ["game.ended", "standings.changed"]
    assert await w.store.dropped(ep.id) == 2
    extra = Delivery("msg_x", ep.id, "game.ended", GAME, "{}", 1)
    await w.store.enqueue(extra, 2, 50)  # the coalescable one goes first
    assert [x.id for x in await w.store.pending(ep.id, 5)][1] == "msg_x"
    assert await types_queued(w, ep.id) == ["game.ended", "game.ended"]


def delivery(body: str = '{"type":"x"}', attempts: int = 0) -> Delivery:
    return Delivery("msg_1", "", "game.ended", "g", body, 1, attempts)


async def queued(w: World, url: str, attempts: int = 0) -> Delivery:
    ep = await w.admin.add(url, None, [])
    d = replace(delivery(attempts=attempts), endpoint_id=ep.id)
    await w.store.enqueue(d, 10, 10)
    return d


async def test_5xx_and_no_answer_are_retried_under_one_id_then_delivered_and_verified() -> None:
    w = world()
    d = await queued(w, "http://127.0.0.1:9/a")
    w.transport.script = [500, TransportError("timeout"), 503, 204]
    [ep] = await w.store.endpoints()
    sent = await w.sender.deliver(ep, d)
    assert (sent.outcome, sent.attempts, sent.made, sent.http_status) == ("delivered", 4, 4, 204)
    ids = {r[2]["webhook-id"] for r in w.transport.requests}
    assert ids == {d.id}
    for _, body, headers in w.transport.requests:
        assert Webhook(ep.secrets[0].value).verify(body, headers) == {"type": "x"}
    [entry] = await w.store.log(ep.id, 10)
    assert (entry.status, entry.delivery.attempts) == ("delivered", 4)


async def test_a_4xx_fails_at_once_and_the_last_attempt_fails_for_good() -> None:
    w = world()
    d = await queued(w, "http://127.0.0.1:9/a")
    [ep] = await w.store.endpoints()
    w.transport.script = [404]
    sent = await w.sender.deliver(ep, d)
    assert (sent.outcome, sent.attempts, len(w.transport.requests)) == ("failed", 1, 1)
    await w.store.enqueue(d, 10, 10)
    w.transport.script = [500] * 10
    sent = await w.sender.deliver(ep, d)
    assert (sent.outcome, sent.attempts, sent.http_status) == ("failed", 4, 500)
    assert len(w.transport.requests) == 5
    [last, first] = await w.store.log(ep.id, 10)
    assert (last.status, last.delivery.last_error, first.http_status) == ("failed", "HTTP 500", 404)


async def test_attempts_count_on_after_a_restart() -> None:
    w = world()
    d = await queued(w, "http://127.0.0.1:9/a", attempts=3)  # 3 of 4 made before a restart
    [ep] = await w.store.endpoints()
    w.transport.script = [500, 500]
    sent = await w.sender.deliver(ep, d)
    assert (sent.outcome, sent.attempts, sent.made, len(w.transport.requests)) == (
        "failed",
        4,
        1,
        1,
    )


async def test_a_429_waits_its_retry_after_not_the_backoff() -> None:
    w = world(RetryPolicy(3, initial_s=60.0, max_s=60.0, retry_after_max_s=5.0))
    d = await queued(w, "http://127.0.0.1:9/a")
    [ep] = await w.store.endpoints()
    w.transport.script = [Answer(429, 0.05), 200]
    sent = await asyncio.wait_for(w.sender.deliver(ep, d), 30)  # the backoff would be 60 s
    assert (sent.outcome, sent.attempts) == ("delivered", 2)


async def test_a_delivery_superseded_during_its_retries_is_not_sent_again() -> None:
    w = world()
    ep = await w.admin.add("http://127.0.0.1:9/a", None, [])
    old = Delivery("msg_old", ep.id, "standings.changed", "g", "{}", 1, coalesce="g")
    await w.store.enqueue(old, 10, 10)

    async def newer_arrives() -> None:
        await w.store.enqueue(replace(old, id="msg_new", body='{"n":2}'), 10, 10)

    class Replacing(FakeTransport):
        async def post(self, url: str, body: bytes, headers: Mapping[str, str]) -> Answer:
            await newer_arrives()
            return await super().post(url, body, headers)

    sender = Sender(w.store, Replacing([500, 500]), RetryPolicy(4, 0.001, 0.01), 10)
    sent = await sender.deliver(ep, old)
    assert sent.outcome is None
    assert [d.id for d in await w.store.pending(ep.id, 10)] == ["msg_new"]


async def test_rotation_signs_with_both_secrets_for_the_window_then_the_new_only() -> None:
    # the reference library checks `webhook-timestamp` against the wall clock: sign at now
    w = world()
    ep = await w.admin.add("http://127.0.0.1:9/a", None, [])
    old = ep.secrets[0].value
    rotated = await w.admin.rotate(ep.url, window_s=3600)
    new = rotated.secrets[0].value
    assert new != old
    d = replace(delivery(), endpoint_id=ep.id)
    headers = signed_headers(rotated, d, time.time())
    signatures = headers["webhook-signature"].split(" ")
    assert len(signatures) == 2
    assert all(s.startswith("v1,") for s in signatures)
    assert Webhook(old).verify(d.body, headers) == {"type": "x"}
    assert Webhook(new).verify(d.body, headers) == {"type": "x"}
    assert len(signed_headers(rotated, d, time.time() + 3601)["webhook-signature"].split()) == 1

    w = world()
    w.admin.clock = lambda: time.time() - 7200  # added and rotated two hours ago
    ep = await w.admin.add("http://127.0.0.1:9/b", None, [])
    rotated = await w.admin.rotate(ep.url, window_s=3600)  # the window ended an hour ago
    headers = signed_headers(rotated, d, time.time())
    assert len(headers["webhook-signature"].split(" ")) == 1
    assert Webhook(rotated.secrets[0].value).verify(d.body, headers) == {"type": "x"}
    with pytest.raises(WebhookVerificationError):
        Webhook(ep.secrets[0].value).verify(d.body, headers)


async def test_operator_requests_are_checked() -> None:
    w = world()
    with pytest.raises(WebhookRefused) as bad:
        await w.admin.add("ftp://x/y", None, [])
    assert bad.value.rule == "webhook.url"
    with pytest.raises(WebhookRefused) as bad:
        await w.admin.add("http://x/y", None, ["game.over"])
    assert bad.value.rule == "webhook.events"
    await w.admin.add("http://x/y", None, [])
    with pytest.raises(WebhookRefused) as bad:
        await w.admin.add("http://x/y", None, [])
    assert bad.value.rule == "webhook.exists"
    with pytest.raises(WebhookRefused) as bad:
        await w.admin.replay("msg_nothing")
    assert bad.value.rule == "webhook.delivery_unknown"


async def test_a_test_event_is_sent_once_and_logged_and_a_delivery_replays_under_its_id() -> None:
    w = world()
    ep = await w.admin.add("http://127.0.0.1:9/a", None, [])
    result = await w.admin.test(ep.url)
    assert (result.entry.status, result.entry.http_status) == ("delivered", 200)
    [(_, body, headers)] = w.transport.requests
    assert Webhook(ep.secrets[0].value).verify(body, headers)["type"] == "webhook.test"
    assert await w.store.depth(ep.id) == 0
    again = await w.admin.replay(headers["webhook-id"])
    assert again.id == headers["webhook-id"]
    assert [d.id for d in await w.store.pending(ep.id, 10)] == [again.id]


async def test_a_stop_during_a_retry_wait_ends_it_and_the_delivery_stays_queued() -> None:
    w = world(RetryPolicy(5, initial_s=60.0, max_s=60.0))
    d = await queued(w, "http://127.0.0.1:9/a")
    [ep] = await w.store.endpoints()
    w.transport.script = [500]
    task = asyncio.create_task(w.sender.deliver(ep, d))
    await wait_until(lambda: _true(len(w.transport.requests) == 1), 30, "the first attempt")
    w.sender.stop()
    sent = await asyncio.wait_for(task, 30)  # the 60 s wait ended at once
    assert (sent.outcome, sent.attempts) == (None, 1)
    [still] = await w.store.pending(ep.id, 1)
    assert (still.id, still.attempts, still.last_error) == (d.id, 1, "HTTP 500")


async def test_stopping_the_role_lets_a_request_in_flight_finish_and_be_settled() -> None:
    w = world()
    d = await queued(w, "http://127.0.0.1:9/a")
    answered = asyncio.Event()

    class Slow(FakeTransport):
        async def post(self, url: str, body: bytes, headers: Mapping[str, str]) -> Answer:
            self.requests.append((url, body, dict(headers)))
            await asyncio.sleep(0.5)  # still in flight when the role stops
            answered.set()
            return Answer(204)

    slow = Slow()
    sender = Sender(w.store, slow, RetryPolicy(4, 0.001, 0.01), 50)
    loop = WebhooksLoop(w.dispatcher(), sender, poll_s=0.05, grace_s=30)
    async with running(loop):
        await wait_until(lambda: _true(len(slow.requests) == 1), 30, "the request to start")
    assert answered.is_set()
    assert await w.store.depth(d.endpoint_id) == 0  # settled, so not sent again after a restart
    [entry] = await w.store.log(d.endpoint_id, 10)
    assert (entry.delivery.id, entry.status) == (d.id, "delivered")


async def _true(value: bool) -> bool:
    return value
