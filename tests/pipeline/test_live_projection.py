"""Live projection (docs/decisions/0004-projector-catch-up-subscription.md): an append stores its
game's projection, rendered from the state its check folded, in the same atomic step, when the
stored projection is just behind it; the projector skips the feed entries such a projection
reaches and projects the rest (a lagging projection, a held game, a forgotten player).

The properties: the projection an append stores equals the one the projector writes for the
same events (simulated games cut into random batches, some appended with live projection off,
so the projector catches up in between), on the memory backend (hypothesis) and on Redis
(single node, and a cluster with `SCORELEDGER_TEST_REDIS=cluster`), where a rebuild from the
log gives the same projection again; every live append leaves one change notice."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any, NamedTuple

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contracts.envelope import Envelope
from contracts.events import dump_event_json
from services.adapters.redis.keys import Keys, shard_of
from services.bootstrap import Service, build, memory_ports, use_cases
from services.bootstrap.backends import Ports
from services.platform.settings import ServiceSettings
from services.simulator.tables import simulate_game
from services.usecases.check import CheckedAppend
from services.usecases.project import Project
from tests.pipeline.factory import corrected

SHARDS = 16
FIELDS = ("seq", "status", "game", "standings", "view", "view_seq")
"""The projection fields both writers store (`updated_at` is each write's own time)."""


def cut(events: Sequence[Envelope], sizes: Sequence[int]) -> list[list[Envelope]]:
    """`events` in consecutive batches of `sizes` (cycled), the last one what is left."""
    out, at, i = [], 0, 0
    while at < len(events):
        size = sizes[i % len(sizes)]
        out.append(list(events[at : at + size]))
        at, i = at + size, i + 1
    return out


async def fields(ports: Ports, game_id: str) -> dict[str, str]:
    """The projection's stored fields of `FIELDS`, and `live`."""
    (raw,) = await ports.projections.fields([game_id])
    return {k: v for k, v in raw.items() if k in (*FIELDS, "live")}


class Pipeline:
    """One backend's ingest (live projection on or off per append) and projector, and the
    feed entries the projector has not read yet."""

    def __init__(self, ports: Ports, project: Project) -> None:
        self.ports = ports
        self.project = project
        log = ports.named_log()
        self.live = CheckedAppend(log, live_changes_maxlen=100_000)
        self.plain = CheckedAppend(log)
        self.after: dict[int, str] = {}

    async def append(self, events: list[Envelope], live: bool) -> None:
        await (self.live if live else self.plain).append(events[0].game_id, events)

    async def catch_up(self, shard: int) -> int:
        """Apply the shard's feed entries not read yet; returns the events folded."""
        assert self.ports.pipeline is not None
        folded = 0
        for batch in await self.ports.pipeline.feeds.read(
            {shard: self.after.get(shard, "0-0")}, 1000, 0
        ):
            folded += (await self.project.apply(shard, batch.entries, batch.malformed)).events
            self.after[shard] = batch.last_id
        return folded

    async def notices(self, shard: int) -> int:
        return len(await self.ports.notices.read({shard: "0-0"}, count=100_000, block_ms=None))


async def check_game(mine: Pipeline, theirs: Pipeline, events: list[Envelope], plan: Any) -> None:
    """Append `events` in `plan`'s batches (live or not) to `mine`, the projector catching up
    after each batch when the plan says so; `theirs` appends the same batches with live
    projection off and projects them. After every batch whose projection is stored, both
    stored projections are equal."""
    game_id = events[0].game_id
    shard = shard_of(game_id, SHARDS)
    for batch, (live, project) in zip(cut(events, plan.sizes), plan.flags, strict=False):
        before = await fields(mine.ports, game_id)
        notices = await mine.notices(shard)
        await mine.append(batch, live)
        await theirs.append(batch, False)
        await theirs.catch_up(shard)
        got = await fields(mine.ports, game_id)
        reference = await fields(theirs.ports, game_id)
        if live and before.get("seq", "0") == str(batch[0].seq - 1):  # projection just behind
            assert got["live"] == "1"
            assert {k: got[k] for k in FIELDS} == {k: reference[k] for k in FIELDS}
            assert await mine.notices(shard) == notices + 1  # SSE and webhooks see the change
            assert await mine.catch_up(shard) == 0  # nothing left to fold
            assert await fields(mine.ports, game_id) == got
        elif project:
            await mine.catch_up(shard)
            got = await fields(mine.ports, game_id)
            assert {k: got[k] for k in FIELDS} == {k: reference[k] for k in FIELDS}
            assert got["live"] == "0"
    await mine.catch_up(shard)  # whatever the plan left behind
    got, reference = await fields(mine.ports, game_id), await fields(theirs.ports, game_id)
    assert got["seq"] == str(len(events))
    assert {k: got[k] for k in FIELDS} == {k: reference[k] for k in FIELDS}


class Plan:
    """Batch sizes and, per batch, (appended with live projection, projector run after)."""

    def __init__(self, sizes: list[int], flags: list[tuple[bool, bool]]) -> None:
        self.sizes = sizes
        self.flags = flags * (1 + 400 // max(1, len(flags)))  # enough for any simulated game

    @classmethod
    def of(cls, rng: random.Random) -> Plan:
        sizes = [rng.randint(1, 60) for _ in range(rng.randint(1, 6))]
        flags = [(rng.random() < 0.8, rng.random() < 0.5) for _ in range(rng.randint(1, 6))]
        return cls(sizes, flags)


def memory_pipeline() -> Pipeline:
    ports = memory_ports(SHARDS)
    return Pipeline(ports, use_cases(ports, ServiceSettings(shards=SHARDS)).project)


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    seed=st.integers(0, 10_000),
    sizes=st.lists(st.integers(1, 60), min_size=1, max_size=6),
    flags=st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=6),
)
def test_an_appends_projection_equals_the_projectors_on_memory(
    seed: int, sizes: list[int], flags: list[tuple[bool, bool]]
) -> None:
    events = list(simulate_game("mixed", seed))
    asyncio.run(check_game(memory_pipeline(), memory_pipeline(), events, Plan(sizes, flags)))


@pytest.mark.redis
async def test_on_redis_an_appends_projection_equals_the_projectors_and_a_rebuilds(
    clean_redis_url: str, redis_url: str
) -> None:
    mine = build(ServiceSettings(redis_url=clean_redis_url, shards=SHARDS))
    rng = random.Random(30)
    games = [list(simulate_game("mixed", 3, table)) for table in range(4)]
    try:
        for i, events in enumerate(games):
            theirs = memory_pipeline()  # the reference projector, live projection off
            here = Pipeline(mine.ports, mine.cases.project)
            plan = Plan.of(rng) if i else Plan([50], [(True, False)])  # the first: all live
            await check_game(here, theirs, events, plan)
        # a rebuild from the log (projections and checkpoints gone, a new projector) stores
        # the same projections again, by the projector this time
        before = {e[0].game_id: await fields(mine.ports, e[0].game_id) for e in games}
        keys = Keys(SHARDS)
        for events in games:
            await mine.client.delete(keys.projection(events[0].game_id))
        for shard in range(SHARDS):
            await mine.client.delete(keys.checkpoint(shard))
        rebuilt = build(ServiceSettings(redis_url=clean_redis_url, shards=SHARDS))
        try:
            again = Pipeline(rebuilt.ports, rebuilt.cases.project)
            for shard in {shard_of(e[0].game_id, SHARDS) for e in games}:
                assert await again.catch_up(shard) == sum(
                    len(e) for e in games if shard_of(e[0].game_id, SHARDS) == shard
                )
            for game_id, was in before.items():
                now = await fields(rebuilt.ports, game_id)
                assert {k: now[k] for k in FIELDS} == {k: was[k] for k in FIELDS}
                assert now["live"] == "0"
        finally:
            await rebuilt.client.aclose()
    finally:
        await mine.client.aclose()


@pytest.fixture
async def service(clean_redis_url: str) -> AsyncIterator[Service]:
    """The service on the test's clean Redis; its client closed at the end."""
    built = build(ServiceSettings(redis_url=clean_redis_url, shards=SHARDS))
    try:
        yield built
    finally:
        await built.client.aclose()


class LiveGame(NamedTuple):
    """A game under way with live projection: its pipeline, events, id and feed shard."""

    here: Pipeline
    events: list[Envelope]
    game_id: str
    shard: int


async def live_game(service: Service, seed: int, upto: int) -> LiveGame:
    """Simulated Penumbra game `seed` on `service`, its first `upto` events appended with the
    projection stored by the append (live)."""
    here = Pipeline(service.ports, service.cases.project)
    events = list(simulate_game("penumbra", seed))
    game_id = events[0].game_id
    await here.append(events[:upto], live=True)
    return LiveGame(here, events, game_id, shard_of(game_id, SHARDS))


@pytest.mark.redis
async def test_on_redis_a_live_games_poisoned_feed_copy_is_skipped_not_held(
    service: Service,
) -> None:
    here, events, game_id, shard = await live_game(service, 5, 20)
    poison = dump_event_json(corrected(game_id, 21, "nobody", 5))  # a player not seated
    await service.client.xadd(
        Keys(SHARDS).feed(shard), {"game": game_id, "seq": 21, "data": poison}
    )
    await here.append(events[20:], live=True)
    assert await here.catch_up(shard) == 0
    (head,) = await service.ports.projections.heads([game_id])
    assert (head.seq, head.held, head.live) == (len(events), None, True)


@pytest.mark.redis
async def test_on_redis_a_game_with_a_forgotten_player_is_left_to_the_projector(
    service: Service,
) -> None:
    here, events, game_id, shard = await live_game(service, 7, 30)
    assert (await fields(service.ports, game_id))["live"] == "1"
    player = events[0].payload.players[1].player_id  # type: ignore[attr-defined]
    forget = service.cases.forget
    assert forget is not None
    await forget.forget(game_id, player)
    # the ingest's cached state still holds the name: its projection is not stored
    await here.append(events[30:40], live=True)
    stored = await fields(service.ports, game_id)
    assert stored["seq"] == "30"
    assert await here.catch_up(shard) == 10  # the projector folds them, from the log
    stored = await fields(service.ports, game_id)
    assert (stored["seq"], stored["live"]) == ("40", "0")
    assert "player-2" in stored["standings"]


async def feed_flags(ports: Ports, shard: int) -> list[tuple[int, bool]]:
    """(seq, live) of every entry of `shard`'s feed, in feed order."""
    assert ports.pipeline is not None
    batches = await ports.pipeline.feeds.read({shard: "0-0"}, 100_000, 0)
    return [(e.seq, e.live) for b in batches for e in b.entries]


async def check_flags_and_heads(here: Pipeline) -> None:
    """Feed entries carry `live` exactly when their append stored the projection, and the
    projector reads heads only of games it has not cached or whose entries say `live`."""
    events = list(simulate_game("penumbra", 11))
    game_id = events[0].game_id
    shard = shard_of(game_id, SHARDS)
    await here.append(events[:10], live=False)  # projection behind: the projector's work
    await here.append(events[10:20], live=True)  # still behind (seq 0 stored): not stored
    read: list[list[str]] = []
    heads, advance = here.project.projections.heads, here.project.projections.advance

    async def counted(game_ids: Sequence[str]) -> Any:
        read.append(list(game_ids))
        return await heads(game_ids)

    async def advanced(shard: int, last: str, reached: Mapping[str, int]) -> Any:
        read.append(list(reached))  # the heads are read by the checkpoint's write
        return await advance(shard, last, reached)

    here.project.projections.heads = counted  # type: ignore[method-assign]
    here.project.projections.advance = advanced  # type: ignore[method-assign,assignment]
    assert await here.catch_up(shard) == 20
    assert read == [[game_id]]  # not cached yet: read once (live_reached and the view's load)
    await here.append(events[20:30], live=False)
    read.clear()
    assert await here.catch_up(shard) == 10
    assert read == []  # cached, no entry live-projected: no head read
    await here.append(events[30:40], live=True)  # projection just behind: stored
    assert await here.catch_up(shard) == 0
    assert read == [[game_id]]  # the live entries: read with the write, found reached, skipped
    flags = await feed_flags(here.ports, shard)
    assert flags == [(s, 30 < s <= 40) for s in range(1, 41)]
    assert (await fields(here.ports, game_id))["seq"] == "40"


async def test_feed_entries_say_live_and_the_projector_reads_heads_only_then_on_memory() -> None:
    await check_flags_and_heads(memory_pipeline())


@pytest.mark.redis
async def test_feed_entries_say_live_and_the_projector_reads_heads_only_then_on_redis(
    service: Service,
) -> None:
    await check_flags_and_heads(Pipeline(service.ports, service.cases.project))
