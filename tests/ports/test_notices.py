"""The change-notices and projection-fields contract as the push hub uses them, for every
backend: the tails of several shards at once, a waiting read woken by a write, `changed_since`
within a limit and refusing a malformed id, and the projection fields of games."""

from __future__ import annotations

import asyncio

import pytest

from services.ports.notices import Notice
from services.ports.projections import START_ID, ProjectionBatch
from tests.ports.conftest import Backend
from tests.ports.test_projections import apply, in_shard

G1, G2 = in_shard(1, 2)
DEADLINE_S = 30.0


async def test_tails_name_each_shards_newest_notice(backend: Backend) -> None:
    n = backend.notices
    assert await n.tails([0, 1, 2]) == [START_ID] * 3
    await backend.projections.write(ProjectionBatch(1, "5-1", [apply(G1, 0, 1)], "T"), 100)
    await backend.projections.write(ProjectionBatch(1, "5-2", [apply(G2, 0, 1)], "T"), 100)
    newest = (await n.read({1: START_ID}))[-1]
    assert await n.tails([0, 1, 2]) == [START_ID, newest.entry_id, START_ID]
    assert await n.tails([1]) == [await n.tail(1)]


async def test_a_waiting_read_is_woken_by_a_write(backend: Backend) -> None:
    n = backend.notices

    async def follow() -> list[Notice]:
        async with asyncio.timeout(DEADLINE_S):
            while True:  # a Redis Cluster polls: an empty answer early, read again
                got = await n.read({0: START_ID, 1: START_ID}, count=10, block_ms=1_000)
                if got:
                    return list(got)

    reader = asyncio.create_task(follow())
    await asyncio.sleep(0.05)
    assert not reader.done()
    await backend.projections.write(ProjectionBatch(1, "5-1", [apply(G1, 0, 3)], "T"), 100)
    got = await reader
    assert [(x.shard, x.game_id, x.seq) for x in got] == [(1, G1, 3)]


async def test_changed_since_looks_at_the_first_limit_notices(backend: Backend) -> None:
    n, p = backend.notices, backend.projections
    await p.write(ProjectionBatch(1, "5-1", [apply(G1, 0, 1)], "T"), 100)
    await p.write(ProjectionBatch(1, "5-2", [apply(G2, 0, 1)], "T"), 100)
    await p.write(ProjectionBatch(1, "5-3", [apply(G1, 1, 2)], "T"), 100)
    first, second, third = await n.read({1: START_ID})
    assert await n.changed_since(G1, START_ID) == third
    assert await n.changed_since(G1, START_ID, limit=2) == first
    assert await n.changed_since(G1, first.entry_id, limit=1) is None  # only G2's
    assert await n.changed_since(G2, second.entry_id) is None
    with pytest.raises(ValueError, match="not a notice id"):
        await n.changed_since(G1, "not-an-id")


async def test_projection_fields_are_the_stored_projection(backend: Backend) -> None:
    fields = backend.pipeline.fields
    assert await fields.fields([]) == []
    op = apply(G1, 0, 4, standings='{"x": 2}')
    await backend.projections.write(ProjectionBatch(1, "5-1", [op], "T9"), 100)
    got, none = await fields.fields([G1, G2])
    assert none == {}
    assert {k: got[k] for k in ("seq", "status", "game", "standings", "updated_at")} == {
        "seq": "4",
        "status": "in_progress",
        "game": "trickerion",
        "standings": '{"x": 2}',
        "updated_at": "T9",
    }
