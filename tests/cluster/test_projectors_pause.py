"""A projector paused past its lease and resumed is fenced off: its write is refused, it drops
the shard (position and cached states), and the successor resumed from the checkpoint; the
final standings are exact.

The first test pauses a projector by not running it (its loop and ownership driven step by
step, so the refused write happens for certain); the second SIGSTOPs a projector process
mid catch-up and SIGCONTs it once another process took its shards over."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from services.adapters.redis.connect import RedisClient
from services.adapters.redis.eventlog import RedisEventLog
from services.adapters.redis.keys import Keys, shard_of
from services.adapters.redis.lease import ShardLeases, lease_key
from services.bootstrap import Service, build
from services.doors.projector.loop import ProjectorLoop
from services.platform.settings import ServiceSettings
from services.usecases.ownership import ShardOwnership
from tests.cluster.projectors import (
    appended_games,
    check_invariant,
    holders,
    log_events,
    start_projector,
    wait_caught_up,
)
from tests.pipeline.factory import game_log
from tests.pipeline.helpers import projected_seqs, wait_until

SHARDS = 4
KEYS = Keys(SHARDS)


class Stepped:
    """A projector driven by hand: `tick` its ownership, `step` its loop (a pause is not
    calling either)."""

    def __init__(self, url: str, owner: str, ttl_ms: int) -> None:
        self.service: Service = build(ServiceSettings(redis_url=url, shards=SHARDS, batch=500))
        pipe = self.service.ports.pipeline
        assert pipe is not None
        self.loop = ProjectorLoop(
            pipe.feeds, SHARDS, self.service.cases.project, pipe.projections, block_ms=50
        )
        leases = ShardLeases(self.service.client, KEYS, owner, ttl_ms)
        self.ownership = ShardOwnership(leases, self.loop.acquire, self.loop.lose)

    async def close(self) -> None:
        await self.service.client.aclose()


async def test_a_paused_owners_write_is_refused_and_the_successor_resumes(
    clean_redis_url: str, redis_client: RedisClient
) -> None:
    store = RedisEventLog(redis_client, KEYS)
    logs = await appended_games(store, "pause", 30, 10)
    assert {shard_of(g, SHARDS) for g in logs} == set(range(SHARDS))
    # 2 s leases: every step that is not the pause must end within one, on a loaded machine too
    # (with 300 ms, CI's first step outlived its leases and its own write was fenced off)
    a, b = Stepped(clean_redis_url, "a", 2000), Stepped(clean_redis_url, "b", 2000)
    try:
        await a.ownership.tick()
        assert sorted(a.loop.held) == list(range(SHARDS))
        assert await a.loop.step() == 10 * len(logs)  # every held feed, one batch each
        # "a" pauses (no tick, no step) past its lease; "b" takes every shard over
        await wait_until(
            lambda: _no_lease(redis_client), 10, "a's leases to expire while it is paused"
        )
        await b.ownership.tick()
        assert sorted(b.loop.held) == list(range(SHARDS))
        for game_id, events in logs.items():
            await store.append(game_id, events[10:20])
        before = await projected_seqs(redis_client, KEYS, list(logs))
        # "a" resumes with a batch to write: refused by the fence, the shards dropped at once
        assert await a.loop.step() == 0
        assert await projected_seqs(redis_client, KEYS, list(logs)) == before
        assert a.loop.held == {}
        assert a.loop.positions == {}
        assert len(a.service.cases.project.views) == 0
        await a.ownership.tick()  # its renewals fail: it owns nothing, takes nothing yet
        assert a.ownership.owned == {}
        assert set((await holders(redis_client, KEYS)).values()) == {"b"}
        # the successor resumes from the checkpoints: nothing lost, nothing twice
        for _ in range(3):
            await b.loop.step()
        for game_id, events in logs.items():
            await store.append(game_id, events[20:])
        for _ in range(4):  # rebalancing: "a" gets half back, with new leases and positions
            for p in (a, b):
                await p.ownership.tick()
                await p.loop.step()
        assert sorted([*a.loop.held, *b.loop.held]) == list(range(SHARDS))
        assert a.loop.held
        assert b.loop.held
        await wait_caught_up(redis_client, KEYS, logs, timeout_s=1)
    finally:
        await a.close()
        await b.close()
    found = await check_invariant(redis_client, clean_redis_url, KEYS, logs)
    print(f"paused owner fenced off, successor resumed: {found}")
    assert (found.wrong, found.behind, found.twice) == (0, 0, 0)


async def _no_lease(client: RedisClient) -> bool:
    return not any([await client.exists(lease_key(KEYS, s)) for s in range(SHARDS)])


@pytest.mark.slow
async def test_a_sigstopped_projector_resumes_fenced_off(
    clean_redis_url: str, redis_client: RedisClient, tmp_path: Path
) -> None:
    store = RedisEventLog(redis_client, KEYS)
    logs = {f"stop-{i}": game_log(f"stop-{i}", 300, seed=i) for i in range(16)}
    for game_id, events in logs.items():
        await store.append(game_id, events[:250])
    games_of = {s: [g for g in logs if shard_of(g, SHARDS) == s] for s in range(SHARDS)}
    a_log, b_log = tmp_path / "a.log", tmp_path / "b.log"
    env = {"BATCH": "100", "LEASE_TTL_MS": "1000"}
    a = start_projector(clean_redis_url, SHARDS, a_log.open("wb"), **env)
    b = None
    try:

        async def a_catching_up() -> bool:
            seqs = await projected_seqs(redis_client, KEYS, list(logs))
            return len(await holders(redis_client, KEYS)) == SHARDS and sum(seqs.values()) > 0

        await wait_until(a_catching_up, 30, "a to hold every shard and apply something")
        a.send_signal(signal.SIGSTOP)  # mid catch-up: most likely between a read and its write
        paused_at = await projected_seqs(redis_client, KEYS, list(logs))
        b = start_projector(clean_redis_url, SHARDS, b_log.open("wb"), **env)

        async def b_holds_all() -> bool:
            owners = (await holders(redis_client, KEYS)).values()
            return len(owners) == SHARDS and all(f"-{b.pid}-" in o for o in owners)

        await wait_until(b_holds_all, 30, "b to take every shard over")
        a.send_signal(signal.SIGCONT)
        for game_id, events in logs.items():
            await store.append(game_id, events[250:])
        await wait_caught_up(redis_client, KEYS, logs, timeout_s=40)
        alive = (a.poll() is None, b.poll() is None)
    finally:
        for proc in (a, b):
            if proc is not None:
                proc.send_signal(signal.SIGCONT)
                proc.send_signal(signal.SIGTERM)
                proc.wait(timeout=10)
    a_seen, b_seen = log_events(a_log), log_events(b_log)
    found = await check_invariant(redis_client, clean_redis_url, KEYS, logs)
    print(
        f"SIGSTOPped projector at {sum(paused_at.values())} events applied; after SIGCONT: "
        f"its writes refused {a_seen['projector.write_fenced']}, shards dropped "
        f"{a_seen['projector.shard_lost']}, re-acquired later {a_seen['projector.shard_acquired'] - SHARDS}; "
        f"successor acquired {b_seen['projector.shard_acquired']}; {found}"
    )
    assert alive == (True, True)
    assert a_seen["projector.shard_acquired"] >= SHARDS
    assert a_seen["projector.shard_lost"] >= SHARDS  # every shard it held before the pause
    assert b_seen["projector.shard_acquired"] >= SHARDS
    assert all(games_of.values())
    assert (found.wrong, found.behind, found.twice) == (0, 0, 0)
