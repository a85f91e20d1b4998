"""The hot-games contract (memory and Redis): a snapshot is the game as stored, a removal
happens only on an unchanged game and takes every key, a restore brings the same log back
(event ids, digest) and feeds its last event again."""

from __future__ import annotations

import dataclasses

from services.archive.ports.cold import ArchiveEntry, SealedGame, checksum_of
from services.archive.ports.hot import HotGames
from tests.pipeline.factory import game_log
from tests.ports.conftest import Backend

DIGEST = "cd" * 32


def hot_games(backend: Backend) -> HotGames:
    if backend.name == "memory":
        from services.archive.adapters.memory_hot import MemoryHotGames

        return MemoryHotGames(backend.log.b)  # type: ignore[attr-defined]
    from services.archive.adapters.redis_hot import RedisHotGames

    return RedisHotGames(backend.log.client, backend.log.keys)  # type: ignore[attr-defined]


async def last_fed(backend: Backend, game_id: str) -> tuple[int, bytes]:
    """The seq and data of the last entry of the game's shard feed."""
    from services.adapters.redis.keys import shard_of

    if backend.name == "memory":
        b = backend.log.b  # type: ignore[attr-defined]
        last = b.feeds[shard_of(game_id, b.shards)][-1]
        return last.seq, last.data
    log = backend.log
    feed = log.keys.feed(shard_of(game_id, log.keys.shards))  # type: ignore[attr-defined]
    [(_, fields)] = await log.client.xrevrange(feed, count=1)  # type: ignore[attr-defined]
    return int(fields[b"seq"]), fields[b"data"]


def sealed_of(game_id: str, events: tuple[bytes, ...], digest: str | None) -> SealedGame:
    entry = ArchiveEntry(game_id, "trickerion", (), "", len(events), checksum_of(events), "")
    return SealedGame(entry, events, digest, None, 1_700_000_000_000)


async def test_snapshot_remove_and_restore(backend: Backend) -> None:
    hot = hot_games(backend)
    log = game_log("g1", 6)
    await backend.log.append("g1", log, credential=DIGEST)
    await backend.log.append("g2", game_log("g2", 2), credential=DIGEST)
    snap = await hot.snapshot("g1")
    assert snap is not None
    assert snap.events == tuple(await backend.log.read_raw("g1"))
    assert (snap.version, snap.head_event_id, snap.token_digest) == (
        6,
        str(log[-1].event_id),
        DIGEST,
    )
    assert not snap.held
    assert await hot.snapshot("nope") is None

    behind = dataclasses.replace(snap, events=snap.events[:5])
    assert not await hot.remove("g1", behind)  # another version
    other_head = dataclasses.replace(snap, head_event_id=str(log[0].event_id))
    assert not await hot.remove("g1", other_head)  # another last event
    assert await backend.log.version("g1") == 6
    assert await hot.remove("g1", snap)
    assert await backend.log.version("g1") == 0
    assert (await backend.credentials.lookup("g1")).digest is None
    assert (await backend.log.list_games()).games == ("g2",)
    assert await backend.projections.get("g1") is None
    assert not await hot.remove("g1", snap)

    assert await hot.restore(sealed_of("g1", snap.events, DIGEST))
    assert not await hot.restore(sealed_of("g1", snap.events, DIGEST))  # already there
    assert await backend.log.read_raw("g1") == list(snap.events)
    assert (await backend.credentials.lookup("g1")).digest == DIGEST
    assert set((await backend.log.list_games()).games) == {"g1", "g2"}
    assert await last_fed(backend, "g1") == (6, snap.events[-1])  # the projector refolds it
    again = await backend.log.append("g1", log[2:3], credential=DIGEST)  # ids came back
    assert [(e.seq, e.duplicate) for e in again.events] == [(3, True)]
    more = game_log("g1", 8)[6:]
    assert (await backend.log.append("g1", more, credential=DIGEST)).version == 8


async def test_the_tier_lock_has_one_owner_at_a_time_and_ends_by_itself(
    backend: Backend,
) -> None:
    import asyncio

    hot = hot_games(backend)
    assert await hot.lock("g-lock", "seal-1", 60_000)
    assert await hot.lock("g-lock", "seal-1", 60_000)  # its owner again: renewed
    assert not await hot.lock("g-lock", "forget-1", 60_000)
    assert await hot.lock("g-other", "forget-1", 60_000)  # another game's lock is its own
    await hot.unlock("g-lock", "forget-1")  # not the owner: nothing
    assert not await hot.lock("g-lock", "forget-1", 60_000)
    await hot.unlock("g-lock", "seal-1")
    assert await hot.lock("g-lock", "forget-1", 200)
    await asyncio.sleep(0.4)  # a holder that crashed: the lock ends after its 200 ms
    assert await hot.lock("g-lock", "seal-2", 60_000)


async def keep_names(backend: Backend, game_id: str, names: dict[str, str]) -> None:
    """Set the game's kept names (`player_id -> name`; "" forgotten) as the names store does."""
    if backend.name == "memory":
        backend.log.b.names.setdefault(game_id, {}).update(names)  # type: ignore[attr-defined]
        return
    log = backend.log
    await log.client.hset(log.keys.names(game_id), mapping=names)  # type: ignore[attr-defined]


async def test_a_removal_compares_the_kept_names_to_the_snapshot_s(backend: Backend) -> None:
    """Names of every script (accents, Cyrillic, an emoji outside the BMP) read back as the
    snapshot holds them, so an unchanged game is removed; a name forgotten, changed or added
    between the snapshot and the removal keeps the game (the archived copy is older)."""
    hot = hot_games(backend)
    names = {"p1": "Zoë", "p2": "Ёжик", "p3": "Ana 🎩", "p4": 'O\'Brien "Bo"'}
    for game_id in ("g-same", "g-forgot", "g-changed", "g-added"):
        await backend.log.append(game_id, game_log(game_id, 3), credential=DIGEST)
        await keep_names(backend, game_id, names)
    snaps = {game_id: await hot.snapshot(game_id) for game_id in ("g-same", "g-forgot")}
    snaps |= {game_id: await hot.snapshot(game_id) for game_id in ("g-changed", "g-added")}
    assert all(s is not None and s.names == names for s in snaps.values())
    await keep_names(backend, "g-forgot", {"p2": ""})
    await keep_names(backend, "g-changed", {"p3": "Ana"})
    await keep_names(backend, "g-added", {"p5": "Eve"})
    for game_id in ("g-forgot", "g-changed", "g-added"):
        snap = snaps[game_id]
        assert snap is not None
        assert not await hot.remove(game_id, snap), game_id
        assert await backend.log.version(game_id) == 3
    same = snaps["g-same"]
    assert same is not None
    assert await hot.remove("g-same", same)
    assert await backend.log.version("g-same") == 0


async def put_projection(backend: Backend, game_id: str) -> None:
    """A projection HASH for `game_id` written as the projector writes one (seq 2, final)."""
    fields = {"seq": "2", "status": "final", "game": "trickerion", "standings": "{}"}
    if backend.name == "memory":
        backend.log.b.projections[game_id] = fields  # type: ignore[attr-defined]
        return
    log = backend.log
    await log.client.hset(log.keys.projection(game_id), mapping=fields)  # type: ignore[attr-defined]


async def test_a_projection_without_events_is_a_stray_and_only_it_is_dropped(
    backend: Backend,
) -> None:
    hot = hot_games(backend)
    await backend.log.append("live", game_log("live", 2), credential=DIGEST)
    await put_projection(backend, "live")
    for stray in ("sealed-1", "sealed-2"):
        await put_projection(backend, stray)
    assert sorted([g async for g in hot.stray_projections()]) == ["sealed-1", "sealed-2"]

    assert not await hot.drop_stray("live")  # its events are in the hot tier: kept
    assert await backend.projections.get("live") is not None
    assert await hot.drop_stray("sealed-1")
    assert await backend.projections.get("sealed-1") is None
    assert not await hot.drop_stray("sealed-1")  # nothing left to drop
    assert [g async for g in hot.stray_projections()] == ["sealed-2"]

    await backend.log.append("sealed-2", game_log("sealed-2", 2), credential=DIGEST)
    assert not await hot.drop_stray("sealed-2")  # a write brought its events back meanwhile
    assert [g async for g in hot.stray_projections()] == []
