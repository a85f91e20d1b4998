"""Two writers continuing one state, one of them through a void (whose refold shares the
state's event id table, `domain.eventids`), that both add the same event at different seqs:
each state still finds that event at its own seq, whichever fork read the table last, and can
void it. Source: docs/decisions/0012-hot-reads-and-off-loop-replays.md (a state's id index).
"""

from __future__ import annotations

import contextlib
import uuid
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contracts.envelope import Envelope
from domain.errors import RuleViolation
from domain.fold import Folder, GameState, _refold
from domain.standings import standings
from tests.domain.referee import (
    KINDS,
    SEEDS,
    correction_of,
    middle_of_play,
    referee_pick,
    void_of,
)
from tests.pipeline.factory import envelope, started


def _correction(game: str, seq: int, event_id: uuid.UUID | None = None) -> Envelope:
    payload = {"player_id": "ann", "amount": 1, "reason": "recount", "referee": "ref"}
    event = envelope(game, seq, "game.score_corrected", payload)
    return event if event_id is None else event.model_copy(update={"event_id": event_id})


def _void(state: GameState, target: uuid.UUID) -> Envelope:
    payload = {"voided_event_id": str(target), "reason": "dispute", "referee": "ref"}
    return envelope(state.game_id, state.seq + 1, "game.event_voided", payload)


def _forks() -> tuple[Folder[object], Folder[object], uuid.UUID]:
    """A: the base state and X at 21; B: the base state, a void at 21 and X at 22."""
    game = f"tr-forks-{uuid.uuid4().hex[:8]}"
    folder: Folder[object] = Folder()
    for event in [started(game)] + [_correction(game, seq) for seq in range(2, 21)]:
        folder.add(event)
    base = folder.state
    x = uuid.uuid4()
    a: Folder[object] = Folder.resume(base)
    a.add(_correction(game, 21, x))
    b: Folder[object] = Folder.resume(base)
    b.add(_void(base, base.history[4].event_id))
    b.add(_correction(game, 22, x))
    return a, b, x


def test_each_fork_finds_the_shared_event_at_its_own_seq_whatever_was_read_last() -> None:
    for order in ("aba", "bab"):
        a, b, x = _forks()
        seen = [(a if who == "a" else b).state.seq_of(x) for who in order]
        assert seen == [21 if who == "a" else 22 for who in order]


def test_each_fork_can_void_the_shared_event_after_the_other_read_it() -> None:
    a, b, x = _forks()
    assert a.state.seq_of(x) == 21
    assert b.state.seq_of(x) == 22
    a.add(_void(a.state, x))
    b.add(_void(b.state, x))
    assert x in a.state.voided
    assert x in b.state.voided


STEPS = st.lists(st.tuples(st.booleans(), st.integers(min_value=0, max_value=10_000)), max_size=8)
"""(to writer A first?, pick) after B's first event, a void (its refold shares the state's id
table): pick % 4 == 0 adds one new correction to both writers (the same event id at each
writer's next seq), 1 voids the last such event in both, else a referee pick each (a void or
a correction, `referee_pick`)."""


def _add(folder: Folder[Any], event: Envelope) -> None:
    with contextlib.suppress(RuleViolation):
        folder.add(event.model_copy(update={"seq": folder.state.seq + 1}))


def _own_seqs_found(state: GameState[Any]) -> None:
    """Every event id of the state's history at its own seq (an id twice: the later one)."""
    last = {event.event_id: seq for seq, event in enumerate(state.history, start=1)}
    for event_id, seq in last.items():
        assert state.seq_of(event_id) == seq


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(KINDS, SEEDS, st.integers(min_value=0, max_value=10_000), STEPS)
def test_two_writers_of_one_state_each_find_their_events_and_score_their_own_log(
    kind: str, seed: int, first: int, steps: list[tuple[bool, int]]
) -> None:
    base = middle_of_play(kind, seed).state
    a: Folder[Any] = Folder.resume(base)
    b: Folder[Any] = Folder.resume(base)
    _add(b, void_of(base, first))
    shared: Envelope | None = None
    for a_first, pick in steps:
        writers = (a, b) if a_first else (b, a)
        if pick % 4 == 0:
            shared = correction_of(a.state, pick, pick % 5 + 1, "correction").model_copy(
                update={"event_id": uuid.uuid4()}
            )
            events = [shared, shared]
        elif pick % 4 == 1 and shared is not None:
            payload = {"voided_event_id": str(shared.event_id), "reason": "d", "referee": "r"}
            events = [envelope(base.game_id, 1, "game.event_voided", payload)] * 2
        else:
            events = [referee_pick(w.state, pick) for w in writers]
        for writer, event in zip(writers, events, strict=True):
            _add(writer, event)
            _own_seqs_found(a.state)
            _own_seqs_found(b.state)
    for writer in (a, b):
        state = writer.state
        assert standings(state) == standings(_refold(state.history, state.voided))
