"""The projector's round trips on a batch the appends projected already
(docs/profiles/projector-round-trips.md): the read that woke it and one fenced write that
moves the checkpoint, with the heads check inside it; no read-ahead after a read that was not
full; no event of a skipped entry decoded. A batch not all projected is still folded (a
non-live entry, a held game), and a former lease holder's checkpoint write is refused.
Running, the loop waits `checkpoint_every_ms` after a step that only moved the checkpoint, so
the appends meanwhile share one read and one write; after a step that folded it reads at once.
Counted on the client (each request sent is one round trip); the running loop's tests wait at
most `DEADLINE_S` for what a wake-up does in milliseconds."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import pytest

from contracts.envelope import Envelope
from services.adapters.memory.projections import MemoryProjections
from services.adapters.memory.store import MemoryBackend
from services.adapters.redis import feed, feeds
from services.adapters.redis.connect import is_cluster
from services.adapters.redis.keys import Keys, shard_of
from services.adapters.redis.projections import RedisProjections
from services.bootstrap import Service
from services.doors.projector.loop import ProjectorLoop
from services.ports.errors import LeaseLost
from services.ports.projections import Projections
from services.simulator.tables import simulate_game
from services.usecases import gameview
from services.usecases.check import CheckedAppend
from tests.pipeline.sends import on_every_send
from tests.pipeline.single_node import single_node

SHARDS = 4
KEYS = Keys(SHARDS)
DEADLINE_S = 20.0
"""Longest wait for a running loop to reach a checkpoint (a wake-up takes milliseconds)."""

pytestmark = pytest.mark.redis


@dataclass
class Sent:
    """Requests sent to Redis (one round trip each) and the commands in them."""

    requests: int = 0
    commands: list[str] | None = None


_NAME = re.compile(rb"(?:^|\r\n)\*\d+\r\n\$\d+\r\n([A-Za-z]+)\r\n")
"""A command's name in RESP as sent (the arguments here hold no such line)."""


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> Sent:
    """Counts every request any client of this process sends (a pipeline is one) and the
    commands in it."""
    count = Sent(0, [])

    def note(raw: bytes) -> None:
        assert count.commands is not None
        count.requests += 1
        count.commands += [m.decode().upper() for m in _NAME.findall(raw)]

    on_every_send(monkeypatch, note)
    return count


@pytest.fixture
async def service(clean_redis_url: str) -> AsyncIterator[Service]:
    async for built in single_node(
        clean_redis_url, SHARDS, "a cluster reads and writes each shard on its own"
    ):
        yield built


def games_of_one_shard(n: int) -> tuple[int, list[list[Envelope]]]:
    """`n` simulated games whose ids fall in one shard, and that shard."""
    by_shard: dict[int, list[list[Envelope]]] = {}
    for table in range(200):
        events = list(simulate_game("mixed", 7, table))
        shard = shard_of(events[0].game_id, SHARDS)
        by_shard.setdefault(shard, []).append(events)
        if len(by_shard[shard]) == n:
            return shard, by_shard[shard]
    raise AssertionError("no shard got enough games")


async def holding(service: Service, shard: int, owner: str = "rt") -> ProjectorLoop:
    """A projector loop over `shard`, its lease held (its writes fenced), not running."""
    pipe = service.ports.pipeline
    assert pipe is not None
    loop = ProjectorLoop(pipe.feeds, SHARDS, service.cases.project, pipe.projections)
    lease = await pipe.leases(owner, 10_000).acquire(shard)
    assert lease is not None
    await loop.acquire(lease)
    return loop


async def stored(service: Service, game_id: str) -> dict[bytes, bytes]:
    got: Any = await service.client.hgetall(KEYS.projection(game_id))
    return dict(got)


async def test_a_batch_the_appends_projected_costs_its_read_and_one_write(
    service: Service, sent: Sent, monkeypatch: pytest.MonkeyPatch
) -> None:
    shard, games = games_of_one_shard(3)
    live = CheckedAppend(service.ports.named_log(), live_changes_maxlen=1000)
    loop = await holding(service, shard)
    await live.append(games[0][0].game_id, games[0][:1])
    assert await loop.step() == 0  # the first after `acquire` reads the checkpoint it wrote
    for events in games:
        await live.append(events[0].game_id, events[1:20] if events is games[0] else events[:20])
    folded: list[bytes] = []
    real_add = gameview.GameView.add

    def add(self: gameview.GameView, data: bytes) -> None:
        folded.append(data)
        real_add(self, data)

    monkeypatch.setattr(gameview.GameView, "add", add)
    built: list[int] = []  # reads turned into `FeedEntry`s (`feed_entries`), by entries
    real_entries = feed.feed_entries

    def entries_of(read: Any, shard: int, shards: int) -> Any:
        built.append(len(read))
        return real_entries(read, shard, shards)

    for module in (feed, feeds):  # the name as the reader and the lazy entries call it
        monkeypatch.setattr(module, "feed_entries", entries_of)
    sent.requests, sent.commands = 0, []
    assert await loop.step() == 0  # nothing folded: the appends projected every entry
    print(f"requests {sent.requests}, commands {sent.commands}")
    assert sent.requests == 2  # the read, and the fenced checkpoint write
    assert sent.commands == ["XREAD", "EVALSHA"]  # no heads read, no read-ahead, no GET
    assert folded == []  # no event of the batch decoded
    assert built == []  # no entry of the batch built (`feed.live_read` checked them)
    tail: Any = await service.client.xrevrange(KEYS.feed(shard), count=1)
    last = tail[0][0]
    assert await service.client.get(KEYS.checkpoint(shard)) == last
    for events in games:
        assert (await stored(service, events[0].game_id))[b"seq"] == b"20"


async def test_entries_no_append_projected_are_still_folded(service: Service, sent: Sent) -> None:
    shard, games = games_of_one_shard(2)
    log = service.ports.named_log()
    live, plain = CheckedAppend(log, live_changes_maxlen=1000), CheckedAppend(log)
    loop = await holding(service, shard)
    first, second = games
    await live.append(first[0].game_id, first[:10])
    await plain.append(second[0].game_id, second[:10])  # not projected by its append
    assert await loop.step() == 10  # the second game's ten, folded
    assert (await stored(service, first[0].game_id))[b"live"] == b"1"
    mine = await stored(service, second[0].game_id)
    assert (mine[b"seq"], mine[b"live"]) == (b"10", b"0")
    # live entries of a game whose stored projection does not reach them any more (gone,
    # as after a restore) are folded too, the heads read once, by the advance that said no
    await live.append(first[0].game_id, first[10:15])
    await service.client.delete(KEYS.projection(first[0].game_id))
    sent.requests, sent.commands = 0, []
    assert await loop.step() == 15  # refolded from the log: the log's ten and the batch's five
    print(f"gone projection: requests {sent.requests}, commands {sent.commands}")
    assert sent.commands.count("EVALSHA") == 2  # the advance said no; then the fold's write
    assert "HMGET" not in sent.commands  # the heads came with the advance's answer
    now = await stored(service, first[0].game_id)
    assert (now[b"seq"], now[b"live"]) == (b"15", b"0")


async def test_a_former_lease_holder_moves_no_checkpoint(service: Service) -> None:
    shard, games = games_of_one_shard(1)
    live = CheckedAppend(service.ports.named_log(), live_changes_maxlen=1000)
    loop = await holding(service, shard, "old")
    await live.append(games[0][0].game_id, games[0][:5])
    before = await service.client.get(KEYS.checkpoint(shard))
    await service.client.delete(f"sl:lease:{KEYS.shard_tag(shard)}")  # expired
    pipe = service.ports.pipeline
    assert pipe is not None
    assert await pipe.leases("new", 10_000).acquire(shard) is not None  # a new fence
    assert await loop.step() == 0
    assert shard not in loop.held  # the fenced write lost the shard
    assert await service.client.get(KEYS.checkpoint(shard)) == before
    with pytest.raises(LeaseLost):  # the old token is kept: refused, nothing written
        await pipe.projections.advance(shard, "9999999999999-0", {games[0][0].game_id: 1})
    assert await service.client.get(KEYS.checkpoint(shard)) == before


@pytest.mark.parametrize("on", ["memory", "redis"])
async def test_advance_moves_only_a_reached_checkpoint(on: str, redis_client: Any) -> None:
    """Both stores answer `advance` alike: moved only when every game's projection is an
    append's, not held and at or past its seq; else nothing written and the heads; stale when
    the checkpoint is at or past the id."""
    fields = {"a": {"seq": "5", "live": "1"}, "b": {"seq": "5", "live": "0"}}
    fields["c"] = {"seq": "5", "live": "1", "held": "6", "held_reason": "{}"}
    projections: Projections
    if on == "redis":
        if is_cluster(redis_client):
            pytest.skip("the games' keys are of several slots here")
        projections = RedisProjections(redis_client, KEYS)
        for game_id, values in fields.items():
            await redis_client.hset(KEYS.projection(game_id), mapping=values)
    else:
        backend = MemoryBackend()
        projections = MemoryProjections(backend)
        backend.projections.update({g: dict(v) for g, v in fields.items()})
    shard = 0
    not_reached = await projections.advance(shard, "10-0", {"a": 5, "b": 3})
    assert (not_reached.moved, not_reached.stale) == (False, False)
    heads = {g: (h.seq, h.live) for g, h in not_reached.heads.items()}
    assert heads == {"a": (5, True), "b": (5, False)}
    assert (await projections.advance(shard, "10-0", {"a": 6})).moved is False  # behind
    assert (await projections.advance(shard, "10-0", {"c": 5})).heads["c"].held == 6
    assert await projections.checkpoint(shard) == "0-0"  # nothing written so far
    assert (await projections.advance(shard, "10-0", {"a": 5})).moved
    assert await projections.checkpoint(shard) == "10-0"
    assert (await projections.advance(shard, "10-0", {"a": 5})).stale
    assert (await projections.advance(shard, "9-5", {"a": 5})).stale


async def reached(service: Service, shard: int) -> None:
    """Wait (polling) until `shard`'s checkpoint is its feed's last entry id."""
    async with asyncio.timeout(DEADLINE_S):
        while True:
            tail: Any = await service.client.xrevrange(KEYS.feed(shard), count=1)
            if tail and await service.client.get(KEYS.checkpoint(shard)) == tail[0][0]:
                return
            await asyncio.sleep(0.005)


async def running_loop(loop: ProjectorLoop, body: Callable[[], Awaitable[None]]) -> None:
    """Run `loop` while `body()` runs; stopped after it."""
    task = asyncio.create_task(loop.run())
    try:
        await body()
    finally:
        loop.stopping = True
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task


async def test_appends_during_the_pause_after_an_advance_share_one_read_and_one_write(
    service: Service, sent: Sent
) -> None:
    shard, games = games_of_one_shard(4)
    live = CheckedAppend(service.ports.named_log(), live_changes_maxlen=1000)
    loop = await holding(service, shard)
    loop.checkpoint_every_ms = 1_000  # the settings' longest: the appends take milliseconds
    await live.append(games[0][0].game_id, games[0][:5])

    async def body() -> None:
        await reached(service, shard)  # its first step moved the checkpoint: now it waits
        sent.requests, sent.commands = 0, []
        for events in games[1:]:
            await live.append(events[0].game_id, events[:20])
        await reached(service, shard)

    await running_loop(loop, body)
    assert sent.commands is not None
    print(f"XREAD {sent.commands.count('XREAD')}, EVALSHA {sent.commands.count('EVALSHA')}")
    assert sent.commands.count("XREAD") == 1  # the three appends' entries in one read
    assert sent.commands.count("EVALSHA") == 3 + 1  # the appends' scripts and one advance


async def test_after_a_step_that_folded_the_loop_reads_again_at_once(service: Service) -> None:
    shard, games = games_of_one_shard(1)
    plain = CheckedAppend(service.ports.named_log())  # not projected by its append: folded
    loop = await holding(service, shard)
    loop.checkpoint_every_ms = 600_000  # a pause after this step would outlast the deadline
    game = games[0]

    async def body() -> None:
        await plain.append(game[0].game_id, game[:5])
        await reached(service, shard)
        await plain.append(game[0].game_id, game[5:10])
        await reached(service, shard)  # raises TimeoutError after DEADLINE_S

    await running_loop(loop, body)
    assert (await stored(service, game[0].game_id))[b"seq"] == b"10"
