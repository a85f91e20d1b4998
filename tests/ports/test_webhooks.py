"""The webhook store's contract (queues, coalescing, the bound, the log, the checkpoint), for
the in-memory and the Redis adapter alike."""

from __future__ import annotations

from dataclasses import replace

import pytest

from services.adapters.redis.connect import RedisClient
from services.adapters.redis.keys import Keys
from services.webhooks.adapters.memory import MemoryWebhookStore
from services.webhooks.ports import (
    Delivery,
    DispatchBatch,
    DispatchCheckpoint,
    Endpoint,
    ScrubRaced,
    Secret,
    WebhookStore,
)


@pytest.fixture
def store(redis_or_memory: RedisClient | None) -> WebhookStore:
    if redis_or_memory is None:
        return MemoryWebhookStore()
    from services.webhooks.adapters.redis import RedisWebhookStore

    return RedisWebhookStore(redis_or_memory, Keys(4))


EP = Endpoint("ep_a", "http://127.0.0.1:9/hook", None, (), (Secret("whsec_AAAA"),), 1)


def delivery(i: int, coalesce: str | None = None, kind: str = "game.ended") -> Delivery:
    return Delivery(f"msg_{i}", EP.id, kind, "g1", f'{{"n": {i}}}', 1000 + i, coalesce=coalesce)


def ckpt(pos: str) -> DispatchCheckpoint:
    return DispatchCheckpoint({0: pos, 3: "0-0"}, 77)


async def ids(store: WebhookStore) -> list[str]:
    return [d.id for d in await store.pending(EP.id, 100)]


async def test_endpoints_are_stored_listed_and_removed(store: WebhookStore) -> None:
    other = Endpoint(
        "ep_b", "http://a.example/x", "g1", ("game.ended",), (Secret("whsec_B", 5),), 2
    )
    await store.put_endpoint(EP)
    await store.put_endpoint(other)
    assert await store.endpoints() == [EP, other]  # by URL
    await store.enqueue(delivery(1), 10, 10)
    assert await store.remove_endpoint(EP.id)
    assert not await store.remove_endpoint(EP.id)
    assert await store.endpoints() == [other]
    assert await store.depth(EP.id) == 0


async def test_commit_queues_records_seen_and_moves_the_checkpoint_together(
    store: WebhookStore,
) -> None:
    assert await store.checkpoint() is None
    out = await store.commit(
        DispatchBatch([delivery(1), delivery(2)], {"g1": 5, "g2": 1}, ckpt("9-1")), 10, 10
    )
    assert (dict(out.dropped), dict(out.superseded)) == ({}, {})
    assert await ids(store) == ["msg_1", "msg_2"]
    assert await store.seen(["g1", "g2", "g3"]) == [5, 1, None]
    assert await store.checkpoint() == ckpt("9-1")
    # already queued: no-op
    again = await store.commit(DispatchBatch([delivery(1)], {}, ckpt("9-2")), 10, 10)
    assert again.dropped == {}
    assert await ids(store) == ["msg_1", "msg_2"]


async def test_a_newer_standings_change_replaces_the_pending_one_in_place(
    store: WebhookStore,
) -> None:
    await store.commit(
        DispatchBatch(
            [delivery(1, "g1", "standings.changed"), delivery(2), delivery(3, "g2")],
            {},
            ckpt("1-0"),
        ),
        10,
        10,
    )
    out = await store.commit(
        DispatchBatch([delivery(4, "g1", "standings.changed")], {}, ckpt("2-0")), 10, 10
    )
    assert out.superseded == {EP.id: 1}
    assert await ids(store) == ["msg_4", "msg_2", "msg_3"]
    log = await store.log(EP.id, 10)
    assert [(e.delivery.id, e.status) for e in log] == [
        ("msg_3", "pending"),
        ("msg_2", "pending"),
        ("msg_4", "pending"),
        ("msg_1", "superseded"),
    ]
    # once the pending one is delivered, the next one queues at the end
    first = (await store.pending(EP.id, 1))[0]
    assert await store.settle(first, "delivered", 204, 10)
    await store.commit(
        DispatchBatch([delivery(5, "g1", "standings.changed")], {}, ckpt("3-0")), 10, 10
    )
    assert await ids(store) == ["msg_2", "msg_3", "msg_5"]


async def test_a_full_queue_drops_its_oldest_coalescable_delivery_first(
    store: WebhookStore,
) -> None:
    await store.commit(
        DispatchBatch([delivery(1), delivery(2, "g1"), delivery(3, "g2")], {}, ckpt("1-0")), 3, 10
    )
    out = await store.commit(DispatchBatch([delivery(4)], {}, ckpt("2-0")), 3, 10)
    assert out.dropped == {EP.id: 1}
    assert await ids(store) == ["msg_1", "msg_3", "msg_4"]
    await store.commit(DispatchBatch([delivery(5)], {}, ckpt("3-0")), 3, 10)
    await store.commit(
        DispatchBatch([delivery(6)], {}, ckpt("4-0")), 3, 10
    )  # none coalescable: the oldest
    assert await ids(store) == ["msg_4", "msg_5", "msg_6"]
    assert await store.dropped(EP.id) == 3
    dropped = [e.delivery.id for e in await store.log(EP.id, 10) if e.status == "dropped"]
    assert dropped == ["msg_1", "msg_3", "msg_2"]
    # the dropped coalescable one no longer coalesces: g1's next change queues anew
    await store.commit(DispatchBatch([delivery(7, "g1")], {}, ckpt("5-0")), 5, 10)
    assert await ids(store) == ["msg_4", "msg_5", "msg_6", "msg_7"]


async def test_attempts_are_recorded_and_settling_logs_once(store: WebhookStore) -> None:
    await store.enqueue(delivery(1), 10, 2)
    d = (await store.pending(EP.id, 1))[0]
    tried = replace(d, attempts=2, last_error="HTTP 500")
    assert await store.attempted(tried)
    assert (await store.pending(EP.id, 1))[0] == tried
    assert await store.settle(tried, "failed", 500, 2)
    assert not await store.settle(tried, "failed", 500, 2)
    assert not await store.attempted(tried)
    [entry] = await store.log(EP.id, 10)
    assert (entry.delivery, entry.status, entry.http_status) == (tried, "failed", 500)
    for i in (2, 3, 4):  # the log keeps the newest `max_log`
        await store.enqueue(delivery(i), 10, 2)
        await store.settle(delivery(i), "delivered", 200, 2)
    assert [e.delivery.id for e in await store.log(EP.id, 10)] == ["msg_4", "msg_3"]
    assert await store.depth(EP.id) == 0


async def test_scrub_replaces_a_name_in_the_game_s_kept_bodies_only(store: WebhookStore) -> None:
    # A forget's texts: the name's JSON literal (non-ASCII letters raw, as bodies hold them)
    # becomes the pseudonym's, in pending and logged deliveries of the game only.
    await store.put_endpoint(EP)
    body = '{"players":[{"player_id":"oren","name":"Alma Nováková"},"Alma Nováková ok"]}'
    mine = [replace(delivery(i), body=body) for i in (1, 2)]
    other = replace(delivery(3), game_id="g2", body=body)
    for d in (*mine, other):
        await store.enqueue(d, 10, 10)
    assert await store.settle(mine[0], "delivered", 200, 10)
    pairs = [('"Alma Nováková"', '"player-2"'), ('"Alma Nov\\u00e1kov\\u00e1"', '"player-2"')]
    assert await store.scrub("g1", pairs) == 2
    bodies = {e.delivery.id: e.delivery.body for e in await store.log(EP.id, 10)}
    scrubbed = '{"players":[{"player_id":"oren","name":"player-2"},"Alma Nováková ok"]}'
    assert bodies == {"msg_1": scrubbed, "msg_2": scrubbed, "msg_3": body}
    assert [d.body for d in await store.pending(EP.id, 10)] == [scrubbed, body]
    assert await store.scrub("g1", pairs) == 0


async def test_a_commit_read_before_a_scrub_of_its_game_stores_nothing(
    store: WebhookStore,
) -> None:
    # The dispatcher reads a game's scrub count before its events; a forget's scrub after
    # that read refuses the commit whole (bodies, seen, checkpoint), so no body derived from
    # the events as read before the forget is kept (docs/forget.md).
    await store.commit(DispatchBatch([delivery(1)], {"g1": 1}, ckpt("1-0"), {"g1": 0}), 10, 10)
    assert await store.scrubs(["g1", "g2"]) == [0, 0]
    assert await store.scrub("g1", []) == 0  # counted even with no endpoint, nothing changed
    await store.put_endpoint(EP)
    assert await store.scrub("g1", [('"Mira"', '"player-1"')]) == 0
    assert await store.scrubs(["g1", "g2"]) == [2, 0]
    stale = DispatchBatch([delivery(2)], {"g1": 5, "g2": 3}, ckpt("2-0"), {"g1": 1, "g2": 0})
    with pytest.raises(ScrubRaced):
        await store.commit(stale, 10, 10)
    assert await ids(store) == ["msg_1"]
    assert await store.seen(["g1", "g2"]) == [1, None]
    assert await store.checkpoint() == ckpt("1-0")
    # read again after the scrub: committed; another game's count is not checked
    fresh = DispatchBatch([delivery(2)], {"g1": 5, "g2": 3}, ckpt("2-0"), {"g1": 2})
    await store.commit(fresh, 10, 10)
    assert await ids(store) == ["msg_1", "msg_2"]
    assert await store.seen(["g1", "g2"]) == [5, 3]
    assert await store.checkpoint() == ckpt("2-0")


async def test_a_delivery_in_flight_during_a_scrub_keeps_the_scrubbed_body(
    store: WebhookStore,
) -> None:
    # The sender holds the body it read before a forget's scrub; recording its attempt and
    # settling it must not store that body back (docs/forget.md: the scrub wins).
    await store.put_endpoint(EP)
    body = '{"result":"Winner: Mira","name":"Mira","url":"a/b\\\\c"}'
    held = [replace(delivery(i), body=body) for i in (1, 2)]
    for d in held:
        await store.enqueue(d, 10, 10)
    assert await store.scrub("g1", [('"Mira"', '"player-1"')]) == 2
    scrubbed = '{"result":"Winner: Mira","name":"player-1","url":"a/b\\\\c"}'
    assert await store.attempted(replace(held[0], attempts=1, last_error="HTTP 503"))
    assert await store.attempted(replace(held[1], attempts=1, last_error="HTTP 503"))
    (first, second) = await store.pending(EP.id, 10)
    assert (first.body, first.attempts, first.last_error) == (scrubbed, 1, "HTTP 503")
    assert second.body == scrubbed
    assert await store.settle(replace(held[1], attempts=2), "delivered", 200, 10)
    logged = {e.delivery.id: e.delivery for e in await store.log(EP.id, 10)}
    assert (logged["msg_2"].body, logged["msg_2"].attempts) == (scrubbed, 2)
    assert logged["msg_1"].body == scrubbed
    assert not any('"Mira"' in e.delivery.body for e in await store.log(EP.id, 10))
    # a body the scrub did not change is stored as sent
    await store.enqueue(replace(delivery(3), body=body), 10, 10)
    assert await store.settle(replace(delivery(3), body=body), "failed", 500, 10)
    assert {e.delivery.id: e.delivery.body for e in await store.log(EP.id, 10)}["msg_3"] == body
