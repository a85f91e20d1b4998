"""Two writers continuing one state, one of them through a void (whose refold shares the
state's event id table, `domain.eventids`), that both add the same event at different seqs:
each state still finds that event at its own seq, whichever fork read the table last, and can
void it. Source: docs/decisions/0012-hot-reads-and-off-loop-replays.md (a state's id index).
"""

from __future__ import annotations

import uuid

from contracts.envelope import Envelope
from domain.fold import Folder, GameState
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
