"""Snapshots answer byte for byte as a replay from the first event (`snapshots.Snapshots`).

Property (hypothesis): for simulated games (Trickerion and Penumbra, voids included) with
referee corrections and voids appended, any snapshot spacing and any order of requests, the
standings at N, every player's ledger at N, a dispute of any event at the version and any
audit page are the same JSON bytes as the work functions on the log's first N events.
Also: a log that is not the one folded (a flushed Redis, a restored backup) is folded again
rather than answered from its snapshots, and a replay reads only the events after its
snapshot. Source: issue brief (bound the cost of any at_seq, dispute, ledger or events page
by snapshots; a property test guards equivalence).
"""

from __future__ import annotations

import functools
import json
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contracts.events import dump_event_json, parse_event_json
from domain.fold import evolve, fold
from services.adapters.memory.store import MemoryBackend, MemoryEventLog
from services.simulator.tables import simulate_game
from services.usecases.readmodels import work
from services.usecases.readmodels.offloop import Replays
from services.usecases.readmodels.snapshots import (
    SnapshotConfig,
    Snapshots,
    Unfinished,
    page_job,
    state_job,
)

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def game_log(
    kind: str, seed: int, extra: list[tuple[str, int]], game_id: str | None = None
) -> list[bytes]:
    """A simulated game, then `extra` referee events: ("correct", amount) corrects a player,
    ("void", k) voids the k-th correction still standing (none: a correction instead). The
    extra events' ids depend on their place only, and no event has a `recorded_at`: two logs
    of one `game_id` may share events 1 and k and differ between, which a store cannot
    produce (it stamps `recorded_at` on every append), so such logs get their own ids."""
    events = [json.loads(dump_event_json(e)) for e in simulate_game(kind, seed, 0)]
    game_id = game_id or f"snap-{kind}-{seed}"
    players = [p["player_id"] for p in events[0]["payload"]["players"]]
    standing: list[str] = []
    for i, (what, value) in enumerate(extra):
        base = {"event_id": str(uuid.UUID(int=seed * 10_000 + i + 1)), "seq": len(events) + 1,
                "occurred_at": events[-1]["occurred_at"], "actor": "referee"}  # fmt: skip
        if what == "void" and standing:
            target = standing.pop(value % len(standing))
            payload = {"voided_event_id": target, "reason": "test", "referee": "r"}
            events.append({**base, "type": "game.event_voided", "schema_version": 1,
                           "payload": payload})  # fmt: skip
            continue
        payload = {"player_id": players[i % len(players)], "amount": value % 7 - 3 or 1,
                   "reason": "test", "referee": "r"}  # fmt: skip
        events.append({**base, "type": "game.score_corrected", "schema_version": 2,
                       "payload": payload})  # fmt: skip
        standing.append(base["event_id"])
    return [json.dumps({**e, "game_id": game_id}).encode() for e in events]


def reader(raw: list[bytes], reads: list[tuple[int, int]] | None = None) -> Any:
    def read(first: int, last: int) -> list[bytes]:
        if reads is not None:
            reads.append((first, last))
        return raw[first - 1 : last]

    return read


def dumped(value: Any) -> bytes:
    return work.json_bytes(value.model_dump(mode="json") if hasattr(value, "model_dump") else value)


extras = st.lists(st.tuples(st.sampled_from(["correct", "void"]), st.integers(0, 99)), max_size=60)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    kind=st.sampled_from(["trickerion", "penumbra"]),
    seed=st.integers(1, 50),
    extra=extras,
    every=st.integers(1, 40),
    asks=st.lists(st.floats(0, 1), min_size=1, max_size=8),
    data=st.data(),
)
def test_a_snapshot_answers_as_a_replay_from_the_first_event(
    kind: str, seed: int, extra: list[tuple[str, int]], every: int, asks: list[float], data: Any
) -> None:
    raw = game_log(kind, seed, extra, f"snap-{uuid.uuid4().hex}")  # `page_job`: one cache
    events = [parse_event_json(r) for r in raw]
    game_id, version = events[0].game_id, len(events)
    config = SnapshotConfig(every=every)
    snaps = Snapshots(config)
    players = [p["player_id"] for p in json.loads(raw[0])["payload"]["players"]]
    read = reader(raw)
    for ask in asks:  # in the order hypothesis chose: below, above, at earlier snapshots
        n = max(1, round(ask * version))
        state = snaps.state_at(read, game_id, n)
        assert dumped(work.standings_of(state)) == dumped(work.standings_replay(events[:n]))
        for pid in players:
            assert dumped(work.ledger_of(state, pid)) == dumped(work.ledger(events[:n], pid))
    target = data.draw(st.sampled_from(events), label="disputed")
    eid = str(target.event_id)
    at_version = snaps.state_at(read, game_id, version)
    assert dumped(work.dispute_of(at_version, eid, NOW)) == dumped(work.dispute(events, eid, NOW))
    from_seq = data.draw(st.integers(1, version + 2), label="from_seq")
    limit = data.draw(st.integers(1, 50), label="limit")
    page = page_job(config, read, game_id, version, work.events_page_of, (from_seq, limit))
    whole = work.events_page(events, game_id, version, from_seq, limit)
    assert dumped(page) == dumped(whole)


def test_state_job_runs_the_work_on_the_state() -> None:
    raw = game_log("penumbra", 7, [("correct", 5)] * 30)
    events = [parse_event_json(r) for r in raw]
    got = state_job(
        SnapshotConfig(every=10), reader(raw), events[0].game_id, 40, work.standings_of, ()
    )
    assert dumped(got) == dumped(work.standings_replay(events[:40]))


def test_a_replay_reads_only_the_events_after_its_snapshot() -> None:
    raw = game_log("trickerion", 3, [("correct", 2)] * 400)
    game_id = parse_event_json(raw[0]).game_id
    snaps = Snapshots(SnapshotConfig(every=50))
    snaps.state_at(reader(raw), game_id, len(raw))  # the first: the whole log, once
    reads: list[tuple[int, int]] = []
    state = snaps.state_at(reader(raw, reads), game_id, 333)
    assert state.seq == 333
    assert reads == [(1, 1), (300, 333)]  # event 1 checked, then from the snapshot at 300


def test_a_different_log_under_the_same_id_is_folded_again() -> None:
    old = game_log("penumbra", 5, [("correct", 1)] * 100)
    new = game_log("penumbra", 5, [("correct", 4)] * 100)  # same first event, other later ones
    game_id = parse_event_json(old[0]).game_id
    assert old[0] == new[0]
    assert old[-1] != new[-1]
    snaps = Snapshots(SnapshotConfig(every=20))
    snaps.state_at(reader(old), game_id, len(old))
    events = [parse_event_json(r) for r in new]
    got = snaps.state_at(reader(new), game_id, len(new) - 3)
    assert dumped(work.standings_of(got)) == dumped(work.standings_replay(events[:-3]))
    other_first = [json.dumps({**json.loads(new[0]), "actor": "another"}).encode(), *new[1:]]
    got = snaps.state_at(reader(other_first), game_id, len(new))
    assert got.history[0].actor == "another"


def test_the_voids_index_follows_the_log() -> None:
    raw = game_log("trickerion", 9, [("correct", 1), ("void", 0)] * 30)
    events = [parse_event_json(r) for r in raw]
    game_id, version = events[0].game_id, len(events)
    config = SnapshotConfig(every=25)
    half = version // 2
    for upto in (half, version, half):  # index grows, then an older version
        got = page_job(config, reader(raw[:upto]), game_id, upto, work.events_page_of, (1, 1000))
        assert dumped(got) == dumped(work.events_page(events[:upto], game_id, upto, 1, 1000))


def test_a_void_keeps_the_id_index_rather_than_rebuilding_it() -> None:
    """A void refolds from the fold's mark before the voided event; rebuilding the index of
    every event id made each void O(game length) (a 20,000-event game with a void every 50
    events took 10 s to fold instead of 2)."""
    raw = game_log("trickerion", 4, [("correct", 1), ("void", 0)])
    events = [parse_event_json(r) for r in raw]
    before = fold(events[:-1])
    after = evolve(before, events[-1])
    assert after.ids is before.ids
    target = events[-2]
    assert after.seq_of(target.event_id) == target.seq
    assert target.event_id in after.voided


def test_a_long_first_fold_is_cut_in_slices_that_go_on_from_each_other() -> None:
    raw = game_log("penumbra", 11, [("correct", 3)] * 60)
    events = [parse_event_json(r) for r in raw]
    game_id, version = events[0].game_id, len(events)
    snaps = Snapshots(SnapshotConfig(every=10))
    reads: list[tuple[int, int]] = []
    answers = []
    while True:
        got = snaps.state_at(reader(raw, reads), game_id, version, 40)
        answers.append(got)
        if not isinstance(got, Unfinished):
            break
    assert answers[:2] == [Unfinished(40), Unfinished(80)]
    assert max(last - first for first, last in reads) <= 40  # no read past a slice
    assert dumped(work.standings_of(answers[-1])) == dumped(work.standings_replay(events))


async def test_replays_run_a_sliced_job_in_several_turns_of_the_queue() -> None:
    raw = game_log("trickerion", 12, [("correct", 1)] * 30)
    events = [parse_event_json(r).model_copy(update={"game_id": "sliced-12"}) for r in raw]
    log = MemoryEventLog(MemoryBackend())
    await log.append("sliced-12", events)
    replays = Replays(log, executor=ThreadPoolExecutor(1))
    job = functools.partial(state_job, SnapshotConfig(every=10, slice=50))
    got = await replays.run("at", "sliced-12", len(events), work.standings_of, job=job)
    assert dumped(got) == dumped(work.standings_replay(events))
    turns = -(-len(events) // 50)  # 50 events a turn
    assert turns >= 3
    assert replays.queue.stats().admitted == turns
