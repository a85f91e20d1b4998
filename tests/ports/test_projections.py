"""The projections, checkpoints, notices and dead-letters contract, for every backend."""

from __future__ import annotations

from services.adapters.redis.keys import shard_of
from services.ports.deadletters import DeadLetter
from services.ports.projections import (
    START_ID,
    HeldGame,
    ProjectionBatch,
    ProjectionHead,
    ProjectionOp,
)
from tests.pipeline.factory import game_log
from tests.ports.conftest import Backend


def in_shard(shard: int, count: int) -> list[str]:
    """`count` game ids whose shard (of 4) is `shard`."""
    return [g for g in (f"game-{i}" for i in range(100)) if shard_of(g, 4) == shard][:count]


G1, G2 = in_shard(0, 2)
"""Games of shard 0: a batch names its shard's games only (one slot on a Redis Cluster)."""


def apply(game_id: str, base: int, seq: int, standings: str = '{"x": 1}') -> ProjectionOp:
    return ProjectionOp("apply", game_id, base, seq, "in_progress", "trickerion", standings)


async def test_a_batch_moves_projections_and_the_checkpoint_together(backend: Backend) -> None:
    p = backend.projections
    assert await p.checkpoint(0) == START_ID
    assert await p.get(G1) is None
    out = await p.write(ProjectionBatch(0, "5-0", [apply(G1, 0, 3)], "T1"), 1000)
    assert (out.stale, out.skipped) == (False, frozenset())
    assert await p.checkpoint(0) == "5-0"
    stored = await p.get(G1)
    assert stored is not None
    assert (stored.seq, stored.status, stored.game, stored.standings_json, stored.updated_at) == (
        3,
        "in_progress",
        "trickerion",
        '{"x": 1}',
        "T1",
    )
    assert await p.heads([G1, G2]) == [ProjectionHead(3, None), ProjectionHead(0, None)]


async def test_a_batch_at_or_before_the_checkpoint_changes_nothing(backend: Backend) -> None:
    p = backend.projections
    await p.write(ProjectionBatch(0, "5-0", [apply(G1, 0, 3)], "T1"), 1000)
    for last in ("5-0", "4-9"):
        out = await p.write(ProjectionBatch(0, last, [apply(G1, 3, 4)], "T2"), 1000)
        assert out.stale
    stored = await p.get(G1)
    assert stored is not None
    assert (stored.seq, await p.checkpoint(0)) == (3, "5-0")


async def test_an_op_on_a_moved_or_held_game_is_skipped(backend: Backend) -> None:
    p = backend.projections
    await p.write(ProjectionBatch(0, "1-1", [apply(G1, 0, 2), apply(G2, 0, 1)], "T"), 1000)
    batch = ProjectionBatch(0, "1-2", [apply(G1, 1, 3), ProjectionOp("hold", G2, 1, 2)], "T")
    out = await p.write(batch, 1000)
    assert out.skipped == frozenset({G1})
    assert await p.heads([G1, G2]) == [ProjectionHead(2, None), ProjectionHead(1, 2)]
    held = await p.write(ProjectionBatch(0, "1-3", [apply(G2, 1, 2)], "T"), 1000)
    assert held.skipped == frozenset({G2})
    assert await p.checkpoint(0) == "1-3"  # the checkpoint moves on regardless


async def test_each_applied_op_leaves_one_notice(backend: Backend) -> None:
    p, n = backend.projections, backend.notices
    a, b = in_shard(1, 2)
    assert await n.tail(1) == START_ID
    await p.write(ProjectionBatch(1, "1-1", [apply(a, 0, 1), apply(b, 0, 2)], "T"), 1000)
    notices = await n.read({1: START_ID})
    assert [(x.shard, x.game_id, x.seq) for x in notices] == [(1, a, 1), (1, b, 2)]
    assert await n.tail(1) == notices[-1].entry_id
    assert await n.read({1: notices[-1].entry_id}) == []
    await p.write(ProjectionBatch(1, "1-2", [apply(a, 1, 4)], "T"), 1000)
    since = await n.changed_since(a, notices[0].entry_id)
    assert since is not None
    assert since.seq == 4
    assert await n.changed_since(b, notices[-1].entry_id) is None


async def test_lag_counts_feed_entries_after_the_checkpoint(backend: Backend) -> None:
    result = await backend.log.append("g1", game_log("g1", 5))
    assert await backend.projections.lag(100) == 5
    assert await backend.projections.lag(2) == 3  # counted to cap + 1
    shard = shard_of("g1", 4)
    third = result.events[2].feed_id
    assert third is not None
    await backend.projections.write(ProjectionBatch(shard, third, [], "T"), 1000)
    assert await backend.projections.lag(100) == 2


async def test_get_many_in_order(backend: Backend) -> None:
    await backend.projections.write(ProjectionBatch(0, "1-1", [apply(G2, 0, 1)], "T"), 1000)
    got = await backend.projections.get_many([G1, G2])
    assert got[0] is None
    assert got[1] is not None
    assert got[1].seq == 1


async def test_dead_letters_keep_the_raw_input_reason_and_context(backend: Backend) -> None:
    raw = b"\xff not json"
    letter = DeadLetter(
        raw, {"kind": "invalid", "rule": "body.json", "field": "data"}, "inbox", {"inbox_id": "1-0"}
    )
    first = await backend.letters.put(letter)
    await backend.letters.put(DeadLetter(b"{}", {"rule": "x"}, "projector", {"seq": 3}))
    stored = await backend.letters.read()
    assert stored[0].letter_id == first
    assert stored[0].letter.raw == raw
    assert stored[0].letter.reason == {"kind": "invalid", "rule": "body.json", "field": "data"}
    assert stored[0].letter.source == "inbox"
    assert stored[0].letter.context == {"inbox_id": "1-0"}
    assert stored[1].letter.context == {"seq": "3"}  # context comes back as text
    assert stored[0].time.endswith("+00:00")


async def test_a_letter_put_once_per_key_is_stored_once(backend: Backend) -> None:
    letter = DeadLetter(b"x", {"kind": "rule"}, "inbox", {"inbox_id": "7-0"})
    first = await backend.letters.put_once(letter, "inbox:7-0", 60)
    again = await backend.letters.put_once(letter, "inbox:7-0", 60)
    other = await backend.letters.put_once(letter, "inbox:8-0", 60)
    stored = await backend.letters.read()
    assert again is None
    assert None not in (first, other)
    assert [s.letter_id for s in stored] == [first, other]
    assert stored[0].letter.raw == b"x"


async def test_a_hold_is_listed_until_released_once(backend: Backend) -> None:
    p = backend.projections
    (game,) = in_shard(2, 1)
    why = '{"seq": 2, "kind": "rule", "rule": "r.x", "message": "m"}'
    hold = ProjectionOp("hold", game, 0, 2, reason_json=why)
    await p.write(ProjectionBatch(2, "1-1", [apply(game, 0, 1), hold], "T"), 1000)
    assert await p.held(10) == (1, [HeldGame(game, 2, "r.x", "m")])
    (head,) = await p.heads([game])
    assert (head.seq, head.held, head.reason_json) == (1, 2, why)
    assert not await p.release(game, 3, 1, b"{}")  # not held there: nothing changes
    assert (await p.held(10))[0] == 1
    before = await p.lag(100)
    assert await p.release(game, 2, 5, b'{"e": 5}')
    assert await p.held(10) == (0, [])
    assert await p.heads([game]) == [ProjectionHead(1, None)]
    assert await p.lag(100) == before + 1  # the log's last event is fed again
    assert not await p.release(game, 2, 5, b'{"e": 5}')  # once


async def test_the_view_of_the_stored_seq_is_read_in_place_of_the_standings(
    backend: Backend,
) -> None:
    p = backend.projections
    view = '{"game_id":"g","source":"projection","é":"ü"}'.encode()
    with_view = ProjectionOp("apply", G1, 0, 3, "in_progress", "trickerion", '{"x": 1}', "", view)
    await p.write(ProjectionBatch(0, "5-0", [with_view], "T1"), 1000)
    stored = await p.standings(G1)
    assert stored is not None
    assert (stored.view, stored.standings, stored.updated_at, stored.checkpoint) == (
        view,
        None,
        "T1",
        "5-0",
    )
    # A writer without a view (a reseed, an older op) leaves none to serve: the standings are.
    await p.write(ProjectionBatch(0, "6-0", [apply(G1, 3, 4, '{"x": 2}')], "T2"), 1000)
    stored = await p.standings(G1)
    assert stored is not None
    assert (stored.view, stored.standings, stored.updated_at) == (None, b'{"x": 2}', "T2")
    assert await p.standings(G2) is None
