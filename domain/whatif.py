"""A void that is not written (the dispute view's "without this event"): the state `evolve`
would give, but its refold stops where it rejoins the game's fold.

`evolve(state, void)` refolds every event after the mark before the voided one, to the end of
the game: a dispute of an early event of a 20,000-event game refolded 20,000 events. Yet the
fold is a pure function of (the ruleset's state, the status, the event): once the refold
reaches a mark (every `MARK_EVERY` events) where its ruleset state and status equal the game's
own mark there, every later event yields the same entries as it did in the game. So the refold
stops there, and the rest is the game's own: its later ledger entries, its final ruleset
state and status, its totals and breakdown shifted by what the refold changed up to that mark.
A void whose effect stays in the ruleset state (a card kept for end-game scoring) never
rejoins: it refolds to the end, as `evolve` does. `tests/domain/test_whatif.py` checks the
standings equal `evolve`'s for every event of the example games.

Pure: stdlib and the fold. Source: issue brief (bound a dispute's cost by the fold's marks).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Mapping
from typing import Any

from contracts.common import EventVoided
from contracts.envelope import Envelope
from domain.fold import MARK_EVERY, Folder, GameState, Mark, evolve
from domain.log import Log
from domain.logrules import check_log_order
from domain.memo import Memo


def _shift(
    final: Mapping[str, int], after: Mapping[str, int], before: Mapping[str, int]
) -> dict[str, int]:
    """`final + after - before`, key by key (a key absent counts 0)."""
    # an ordered union (not a set's): the answer's JSON bytes must not depend on the process's
    # hash seed (a replay worker and the request's process answered a dispute differently)
    # `after` first: the refold's own order up to the rejoin is the order `evolve` gives
    keys = dict.fromkeys([*after, *final, *before])
    return {k: final.get(k, 0) + after.get(k, 0) - before.get(k, 0) for k in keys}


def _touch(keep: dict[str, dict[str, None]], entries: Any, unit: str) -> None:
    """Add to `keep` (player -> categories, in order) those the score-unit (`unit`) ledger
    `entries` touch, in their order."""
    for _, _, pid, resource, category, _, _, _ in entries:
        if resource == unit:
            keep.setdefault(pid, {})[category] = None


def _shift_breakdown(
    final: Any, after: Any, before: Any, keep: Mapping[str, Mapping[str, None]]
) -> dict[str, dict[str, int]]:
    """`_shift` per player of three breakdowns (player -> category -> sum), keeping only the
    categories of `keep`, in its order: those `evolve` has, the refold's (`after`) and those a
    score entry past the rejoin mark touches (`_touch`). A category only the voided event
    touched is gone, not 0 (a category whose entries sum to 0 stays, as in `evolve`)."""
    shifted = {p: _shift(final.get(p, {}), after.get(p, {}), before.get(p, {})) for p in keep}
    return {p: {k: shifted[p].get(k, 0) for k in cats} for p, cats in keep.items()}


def evolve_void(state: GameState, void: Envelope) -> tuple[GameState, int]:
    """`evolve(state, void)` for a `game.event_voided` (an event of any other type goes to
    `evolve` as it is), and how many events the refold folded (the cost: bounded by the
    distance from the voided event to the mark where the refold rejoins the game's fold).

    Raises:
        RuleViolation: as `evolve` (log order, `void.*`, `void.breaks_later_event`).
    """
    payload = void.payload
    if not isinstance(payload, EventVoided):
        return evolve(state, void), 0
    check_log_order(state.game_id, state.seq, state.status == "final", void)
    redo: Folder[Any] = Folder()
    target, keep = redo._rewind(state, payload)
    later: dict[int, Mark[Any]] = {m.seq: m for m in state.marks[keep:] if m.seq > target.seq}
    folded = 0
    for event in state.history[redo.seq :]:
        redo._refold([event])
        folded += 1
        own = later.get(event.seq) if event.seq % MARK_EVERY == 0 else None
        if own is not None and (own.status, own.rules) == (redo.status, redo.rules):
            return _rejoined(state, redo, own, void), folded
    redo._refold([void])
    return redo.state, folded


def _rejoined(state: GameState, redo: Folder[Any], own: Mark[Any], void: Envelope) -> GameState:
    """The game's state at its end with the refold's part up to mark `own` put in (ledger,
    sums, marks), then `void` applied."""
    mine = redo.state  # the refold, at own.seq
    ledger_shift = len(mine.ledger) - own.ledger_len
    totals = _shift(state.totals, mine.totals, own.totals)
    unit, done = state.ruleset.score_resource, own.ledger_len
    # the refold's categories, then those each later stretch of the ledger touches: one walk
    keep = {p: dict.fromkeys(cats) for p, cats in mine.breakdown.items()}
    marks = list(mine.marks)
    for m in state.marks[bisect_left([m.seq for m in state.marks], own.seq + 1) :]:
        _touch(keep, state.ledger[done : m.ledger_len], unit)
        done = m.ledger_len
        marks.append(
            Mark(
                m.seq,
                m.status,
                m.rules,
                m.ledger_len + ledger_shift,
                _shift(m.totals, mine.totals, own.totals),
                _shift_breakdown(m.breakdown, mine.breakdown, own.breakdown, keep),
            )
        )
    _touch(keep, state.ledger[done:], unit)
    breakdown = _shift_breakdown(state.breakdown, mine.breakdown, own.breakdown, keep)
    joined = GameState(
        game_id=state.game_id,
        game=state.game,
        players=state.players,
        seq=state.seq,
        status=state.status,
        rules=state.rules,
        ledger=Log([*mine.ledger, *state.ledger[own.ledger_len :]]),
        history=Log(list(state.history)),
        voided=mine.voided,
        totals=totals,
        breakdown=breakdown,
        marks=Log(marks),
        id_index=state.id_index,
        cache=Memo(),
    )
    folder: Folder[Any] = Folder.resume(joined)
    folder._refold([void])
    return folder.state
