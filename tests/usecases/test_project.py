"""The project use case on in-memory adapters: a feed batch becomes the fold's standings, one
write per batch, exactly once; a bad event holds its game and is dead-lettered."""

from __future__ import annotations

import json

import pytest

from services.adapters.memory.feeds import MemoryShardFeeds
from services.adapters.memory.store import MemoryBackend
from services.adapters.redis.keys import shard_of
from services.bootstrap import memory_ports, use_cases
from services.doors.projector.loop import ProjectorLoop
from services.platform.settings import ServiceSettings
from services.ports.eventlog import FeedEntry
from services.usecases.project import Project
from tests.pipeline.factory import corrected, game_log
from tests.pipeline.helpers import offline_standings

SHARDS = 4


def setup():  # type: ignore[no-untyped-def]
    ports = memory_ports(SHARDS)
    project = use_cases(ports, ServiceSettings(shards=SHARDS)).project
    backend: MemoryBackend = ports.log.b  # type: ignore[attr-defined]
    return ports, project, backend


def feed(backend: MemoryBackend, game_id: str) -> tuple[int, list[FeedEntry]]:
    shard = shard_of(game_id, SHARDS)
    return shard, list(backend.feeds.get(shard, []))


async def test_a_batch_becomes_the_folds_standings_and_the_checkpoint() -> None:
    ports, project, backend = setup()
    log = game_log("g1", 12, seed=3)
    await ports.log.append("g1", log)
    shard, entries = feed(backend, "g1")
    applied = await project.apply(shard, entries[:5])
    assert applied.events == 5
    applied = await project.apply(shard, entries)  # overlaps the first batch: counted once
    assert applied.events == 7
    stored = await ports.projections.get("g1")
    assert stored is not None
    assert json.loads(stored.standings_json) == offline_standings(log)
    assert stored.checkpoint == entries[-1].feed_id
    again = await project.apply(shard, entries)  # a replay of an applied batch: nothing
    assert (again.events, again.last_feed_id) == (0, None)
    notices = await ports.notices.read({shard: "0-0"})
    assert [n.seq for n in notices] == [5, 12]


async def test_a_restarted_projector_resumes_exactly() -> None:
    ports, project, backend = setup()
    log = game_log("g1", 9, seed=1)
    await ports.log.append("g1", log[:4])
    shard, entries = feed(backend, "g1")
    await project.apply(shard, entries)
    await ports.log.append("g1", log[4:])
    fresh = Project(ports.log, ports.projections, ports.letters)  # no cached state
    _, entries = feed(backend, "g1")
    assert (await fresh.apply(shard, entries)).events == 5
    stored = await ports.projections.get("g1")
    assert stored is not None
    assert json.loads(stored.standings_json) == offline_standings(log)


async def test_a_bad_event_holds_its_game_and_is_dead_lettered() -> None:
    ports, project, backend = setup()
    log = game_log("g1", 3)
    await ports.log.append("g1", log)
    bad = corrected("g1", 4, "nobody", 5)  # appended raw: the log's checks were skipped
    await ports.log.append("g1", [bad, corrected("g1", 5, "ann", 1)])
    shard, entries = feed(backend, "g1")
    await project.apply(shard, entries)
    stored = await ports.projections.get("g1")
    assert stored is not None
    assert stored.seq == 3
    assert (await ports.projections.heads(["g1"]))[0].held == 4
    letters = await ports.letters.read()
    assert len(letters) == 1
    assert letters[0].letter.source == "projector"
    assert letters[0].letter.reason["rule"] == "correction.unknown_player"
    assert letters[0].letter.context["seq"] == "4"


class _FencedOnce:
    """Projections whose first write is refused (the projector was fenced off after it
    lettered the refused event); every other call goes to the real projections."""

    def __init__(self, inner: object) -> None:
        self.inner = inner
        self.refused = 0

    async def write(self, batch: object, changes_maxlen: int) -> object:
        if self.refused == 0:
            self.refused += 1
            raise RuntimeError("fenced: the shard has a newer owner")
        return await self.inner.write(batch, changes_maxlen)  # type: ignore[attr-defined]

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)


async def test_a_refused_event_is_lettered_once_across_a_takeover() -> None:
    """Faults (docs/decisions/0011-faults-are-answered-not-crashed.md): leftover: a projector letters the refused event, its write is fenced off, the
    new owner holds the game again: one dead letter, not two."""
    ports, _, backend = setup()
    log = game_log("g1", 3)
    await ports.log.append("g1", log)
    await ports.log.append("g1", [corrected("g1", 4, "nobody", 5)])  # refused by the fold
    shard, entries = feed(backend, "g1")
    fenced = _FencedOnce(ports.projections)
    old_owner = Project(ports.log, fenced, ports.letters)  # type: ignore[arg-type]
    with pytest.raises(RuntimeError, match="fenced"):
        await old_owner.apply(shard, entries)
    assert fenced.refused == 1
    new_owner = Project(ports.log, ports.projections, ports.letters)
    await new_owner.apply(shard, entries)
    assert (await ports.projections.heads(["g1"]))[0].held == 4
    letters = await ports.letters.read()
    assert [(x.letter.source, x.letter.context["seq"]) for x in letters] == [("projector", "4")]


async def test_a_lost_shard_drops_its_games_and_a_stopping_loop_drops_all_at_once() -> None:
    ports, project, backend = setup()
    games = {shard_of(f"g{i}", SHARDS): f"g{i}" for i in range(40)}  # one game per shard
    for shard, game in games.items():
        await ports.log.append(game, game_log(game, 3))
        await project.apply(shard, feed(backend, game)[1])
    loop = ProjectorLoop(MemoryShardFeeds(backend), SHARDS, project, ports.projections)  # type: ignore[arg-type]
    lost, *kept = sorted(games)
    await loop.lose(lost)
    assert sorted(project.views.kept_keys()) == sorted(games[s] for s in kept)
    loop.stopping = True  # every shard is being given back: one clear
    await loop.lose(kept[0])
    assert project.views.kept_keys() == []


async def test_a_failed_write_drops_the_views_a_batch_folded_in_place() -> None:
    """The projector's folders write their Trickerion rules state in place (`domain.fold`):
    a batch whose write fails leaves no view ahead of storage, so the batch read again after
    the failure (the loop re-reads from the checkpoint) is folded once, on a rebuilt view,
    and the stored standings are the offline fold's at every step."""
    from services.ports.errors import StoreUnavailable
    from services.simulator.tables import simulate_game

    ports, project, backend = setup()
    log = list(simulate_game("trickerion", 3))[:90]
    game_id = log[0].game_id
    await ports.log.append(game_id, log[:40])
    shard, entries = feed(backend, game_id)
    assert (await project.apply(shard, entries)).events == 40
    await ports.log.append(game_id, log[40:])
    _, entries = feed(backend, game_id)
    real = ports.projections.write

    async def failing(*args: object, **kwargs: object) -> object:
        raise StoreUnavailable("down")

    ports.projections.write = failing  # type: ignore[method-assign]
    with pytest.raises(StoreUnavailable):
        await project.apply(shard, entries[40:70])
    assert game_id not in project.views
    ports.projections.write = real  # type: ignore[method-assign]
    assert (await project.apply(shard, entries[40:70])).events == 30
    stored = await ports.projections.get(game_id)
    assert stored is not None
    assert json.loads(stored.standings_json) == offline_standings(log, 70)
    assert (await project.apply(shard, entries)).events == 20
    stored = await ports.projections.get(game_id)
    assert stored is not None
    assert json.loads(stored.standings_json) == offline_standings(log)
