"""A forget while the projector is behind the log: the stored projection is at another seq
than the log, so forget does not store its render (the projector's to write), and the
projector's cached fold was made with the name. Once the projector catches up, no stored
projection field holds the name (docs/forget.md)."""

from __future__ import annotations

import json

import pytest

from contracts.events import parse_event_json
from services.adapters.memory.store import MemoryBackend
from services.adapters.redis.keys import shard_of
from services.bootstrap import memory_ports, use_cases
from services.platform.settings import ServiceSettings
from services.usecases.names import NamedEventLog
from tests.names.helpers import EXPECTED, GAME, PLAYER, holds_name, lines, ranks_and_totals

SHARDS = 4
BEHIND = 40
"""The seq the projector has applied when the forget runs (the example has 91 events)."""


@pytest.mark.parametrize("split", [False, True], ids=["one batch", "re-fed entry alone"])
async def test_a_forget_while_the_projector_is_behind_leaves_no_name_once_it_catches_up(
    split: bool,
) -> None:
    # one batch: the events it had not applied, then the entry forget fed again; or those
    # events in a batch (folded onto the cached fold that holds the name), then that entry
    ports = memory_ports(SHARDS)
    cases = use_cases(ports, ServiceSettings(shards=SHARDS))
    backend: MemoryBackend = ports.log.b  # type: ignore[attr-defined]
    assert ports.names is not None
    named = NamedEventLog(ports.log, ports.names)
    await named.append(GAME, [parse_event_json(line) for line in lines()])
    shard = shard_of(GAME, SHARDS)
    entries = list(backend.feeds[shard])
    assert len(entries) == 91
    await cases.project.apply(shard, entries[:BEHIND])
    assert backend.projections[GAME]["seq"] == str(BEHIND)
    assert holds_name(json.dumps(backend.projections[GAME], ensure_ascii=False).encode())

    forget = cases.forget
    assert forget is not None
    done = await forget.forget(GAME, PLAYER)
    (hot,) = done.changes
    assert "the projector renders" in hot.what  # not rendered here: the projection is behind

    if split:
        await cases.project.apply(shard, entries)  # the 91 events, not the re-fed entry
        assert holds_name(backend.projections[GAME]["standings"].encode())  # the check can fail
    await cases.project.apply(shard, list(backend.feeds[shard]))  # catches up, re-fed entry too
    stored = backend.projections[GAME]
    assert stored["seq"] == "91"
    assert [k for k, v in stored.items() if holds_name(v.encode())] == []
    standings = json.loads(stored["standings"])
    assert {p["player_id"]: p["name"] for p in standings["players"]}[PLAYER] == "player-2"
    view = json.loads(stored["view"])
    assert ranks_and_totals(view) == EXPECTED


@pytest.mark.redis
async def test_on_redis_no_key_or_value_holds_the_name_once_the_projector_catches_up(
    clean_redis_url: str,
) -> None:
    from services.bootstrap import build
    from tests.archive.test_forget import redis_values

    service = build(ServiceSettings(redis_url=clean_redis_url, shards=SHARDS))
    try:
        ports, cases = service.ports, service.cases
        await ports.named_log().append(GAME, [parse_event_json(line) for line in lines()])
        shard = shard_of(GAME, SHARDS)
        assert ports.pipeline is not None
        (batch,) = await ports.pipeline.feeds.read({shard: "0-0"}, 1000, 0)
        assert len(batch.entries) == 91
        await cases.project.apply(shard, batch.entries[:BEHIND])
        forget = cases.forget
        assert forget is not None
        await forget.forget(GAME, PLAYER)
        await cases.project.apply(shard, batch.entries)  # the old fold, as a projector behind
        (after,) = await ports.pipeline.feeds.read({shard: batch.last_id}, 1000, 0)
        assert [e.seq for e in after.entries] == [91]  # the entry forget fed again
        assert [v for v in redis_values(clean_redis_url, ":proj:") if holds_name(v)]  # can fail
        await cases.project.apply(shard, after.entries)
        # every key and value but the shard feed, which keeps the events as appended until
        # trimmed (docs/operating/archive.md)
        held = [v for v in redis_values(clean_redis_url) if holds_name(v)]
        feed = [v for v in redis_values(clean_redis_url, ":feed:") if holds_name(v)]
        assert held == feed
    finally:
        await service.client.aclose()
