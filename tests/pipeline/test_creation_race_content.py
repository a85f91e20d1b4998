"""A creation planned on its lookup's empty game (docs/profiles/write-round-trips.md) must not
be stored on another creation that landed meanwhile: a batch whose start event carries the
stored start's event id but other content, and a correction of a player only it seats, was
answered as the start's duplicate plus a new event never checked against the stored game
(not refused as an event id reused with another body).
The append now expects an empty game (`EMPTY_HEAD`), so such a batch is decided again on the
stored log. Source: docs/decisions/0002-one-atomic-append.md (the whole batch is checked)."""

from __future__ import annotations

import json

import pytest

from services.adapters.redis.connect import RedisClient
from services.adapters.redis.keys import Keys
from services.bootstrap import memory_ports, redis_ports, use_cases
from services.platform.settings import ServiceSettings
from services.usecases.authorize import WriteProof
from services.usecases.refusal import Refusal
from tests.pipeline.factory import body_source, corrected, started, wire_body

SHARDS = 4
TOKEN = "a-chosen-token-of-at-least-32-chars-xyz"


async def _race(ports_a: object, ports_b: object) -> list[str]:
    """Creation A lands while B, planned on the empty game, reads its body; B's start has
    A's event id, other players, and a correction of "dan" (seated only in B's start)."""
    settings = ServiceSettings(shards=SHARDS)
    first = use_cases(ports_a, settings).record  # type: ignore[arg-type]
    second = use_cases(ports_b, settings).record  # type: ignore[arg-type]
    a = started("g1", ("ann", "bob"))
    b = json.loads(wire_body(started("g1", ("dan", "eve")), corrected("g1", 2, "dan", 5)))
    b[0]["event_id"] = str(a.event_id)

    async def racing_body() -> bytes:
        await first.record("g1", WriteProof(TOKEN), body_source(wire_body(a)))
        return json.dumps(b).encode()

    with pytest.raises(Refusal) as refused:
        await second.record("g1", WriteProof(TOKEN), racing_body)
    assert refused.value.rule == "log.event_id_reused"  # as on the stored log, unraced
    stored = await ports_a.named_log().read("g1")  # type: ignore[attr-defined]
    return [e.type for e in stored]


async def test_in_memory() -> None:
    ports = memory_ports(SHARDS)
    assert await _race(ports, ports) == ["trickerion.game_started"]


@pytest.mark.redis
async def test_on_redis(redis_client: RedisClient) -> None:
    keys = Keys(SHARDS)
    a, b = redis_ports(redis_client, keys), redis_ports(redis_client, keys)
    assert await _race(a, b) == ["trickerion.game_started"]
