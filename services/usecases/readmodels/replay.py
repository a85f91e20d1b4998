"""Replays of a game's log with the pure domain, for the scoreboard's chart, history and dispute
view. No I/O: each function takes the game's events (seq order) and returns JSON-ready dicts.

* `series`: each player's total (Fame or VP) after every event and at the end of every turn.
* `timeline`: every event with the points it moved per player, marked voided / void / correction.
* `compare_without`: the standings with and without one event (the dispute view).

A point of the series at seq N is `fold(events, upto_seq=N)`, the same replay as
`GET /games/{id}/standings?at_seq=N`, so the chart, the slider and the API agree: an event
voided later still counts before its void and drops out at the void's seq.
Source: issue brief (scoreboard, history, dispute view); docs/decisions/0001-events-are-immutable-facts.md
(charts over rounds, corrections that show in the history).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from typing import Any

from contracts.common import EventVoided, GameEnded, ScoreCorrected, TurnStarted
from contracts.envelope import Envelope
from contracts.events import parse_event
from domain.errors import RuleViolation
from domain.fold import Folder, GameState, fold
from domain.standings import Standings, standings
from domain.whatif import evolve_void


def _totals(state: GameState) -> dict[str, int]:
    """Each player's total in the score unit: the fold's running sums, O(players) (docs/decisions/0012-hot-reads-and-off-loop-replays.md;
    the sums equal the ledger's, a property the fold's tests guard)."""
    totals = dict.fromkeys((p.player_id for p in state.players), 0)
    for pid, total in state.totals.items():
        totals[pid] = total
    return totals


def _states(events: Iterable[Envelope]) -> Iterator[tuple[Envelope, GameState]]:
    """Each event with the state after it, from one `Folder` in one pass (docs/decisions/0012-hot-reads-and-off-loop-replays.md: each step
    O(1) amortised, the running sums kept by the folder, no re-derivation per event).

    Raises:
        RuleViolation: an event breaks a rule (a stored log never should: appends are checked).
    """
    folder: Folder[Any] = Folder()
    for event in events:
        folder.add(event)
        yield event, folder.state


def series(events: Sequence[Envelope]) -> dict[str, Any]:
    """Each player's total after every event and after the last event of every turn.

    One `Folder` in one pass, its running sums read per event (`Folder.totals`): no state is
    handed out per event, so the folder never copies its sums (docs/decisions/0012-hot-reads-and-off-loop-replays.md: 6,000 events cost
    the fold plus about 1 µs each).

    Returns:
        `{"game_id", "score_unit", "players": [{player_id, name}], "per_event": [{seq, type,
        totals: {pid: points}}], "per_turn": [{turn, seq, totals}]}`; points in the game's
        score unit (Fame or VP). Events before the first `game.turn_started` belong to turn 0
        (setup). Empty lists for an empty log.

    Raises:
        RuleViolation: an event breaks a rule (a stored log never should: appends are checked).
    """
    if not events:
        return {"game_id": None, "score_unit": None, "players": [], "per_event": [], "per_turn": []}
    folder: Folder[Any] = Folder()
    folder.add(events[0])
    first = folder.state
    pids = [p.player_id for p in first.players]
    per_event: list[dict[str, Any]] = []
    per_turn: list[dict[str, Any]] = []
    turn = 0
    for i, event in enumerate(events):
        if i:
            folder.add(event)
        sums = folder.totals
        totals = {pid: sums.get(pid, 0) for pid in pids}
        per_event.append({"seq": event.seq, "type": event.type, "totals": totals})
        if isinstance(event.payload, TurnStarted):
            turn = event.payload.turn
        end_of_turn = {"turn": turn, "seq": event.seq, "totals": totals}
        if per_turn and per_turn[-1]["turn"] == turn:
            per_turn[-1] = end_of_turn
        else:
            per_turn.append(end_of_turn)
    return {
        "game_id": first.game_id,
        "score_unit": str(first.ruleset.score_resource),
        "players": [{"player_id": p.player_id, "name": p.name} for p in first.players],
        "per_event": per_event,
        "per_turn": per_turn,
    }


def timeline(events: Sequence[Envelope]) -> dict[str, Any]:
    """Every event with the points it moved, oldest first.

    Returns:
        `{"game_id", "score_unit", "players", "events": [{seq, event_id, type, occurred_at,
        actor, turn, summary, payload, delta: {pid: points}, entries: [{player_id, category,
        amount, rule, note}], voided, voided_by_seq, void_of_seq, correction,
        disputed_by_seq}]}`. `payload` is the event's data (JSON) from which the page words
        the history in the reader's language; `turn` the turn or round it happened in (0:
        setup).
        `delta` is the change of each player's total at that event (for a void: the effect
        of taking the voided event out); `entries` are the score-unit ledger entries the
        event produced when applied. `disputed_by_seq` lists the corrections whose
        `causation_id` names the event (how the dispute view links a correction to it).
    """
    if not events:
        return {"game_id": None, "score_unit": None, "players": [], "events": []}
    voided_by = {
        str(e.payload.voided_event_id): e.seq for e in events if isinstance(e.payload, EventVoided)
    }
    seq_of = {str(e.event_id): e.seq for e in events}
    disputed: dict[str, list[int]] = {}
    for e in events:
        if isinstance(e.payload, ScoreCorrected) and e.causation_id in seq_of:
            disputed.setdefault(e.causation_id, []).append(e.seq)
    rows = []
    first = fold(events[:1])  # the game start: its players and score unit
    unit = first.ruleset.score_resource
    before: dict[str, int] = dict.fromkeys((p.player_id for p in first.players), 0)
    turn = 0
    seen = 0  # ledger length before the event: its own entries are the ones after
    for event, state in _states(events):
        after = _totals(state)
        # A void refolds the ledger and adds no entry of its own; others append theirs.
        own = () if isinstance(event.payload, EventVoided) else state.ledger[seen:]
        seen = len(state.ledger)
        eid = str(event.event_id)
        if isinstance(event.payload, TurnStarted):
            turn = event.payload.turn
        payload = event.payload.model_dump(mode="json")  # once: the row and its summary
        rows.append(
            {
                "seq": event.seq,
                "event_id": eid,
                "type": event.type,
                "occurred_at": event.occurred_at.isoformat(),
                "actor": event.actor,
                "turn": turn,
                "summary": _summary(payload),
                "payload": payload,
                "delta": {
                    pid: after[pid] - before.get(pid, 0)
                    for pid in after
                    if after[pid] != before.get(pid, 0)
                },
                "entries": [
                    {
                        "player_id": x.player_id,
                        "category": x.category,
                        "amount": x.amount,
                        "rule": x.rule,
                        "note": x.note,
                    }
                    for x in own
                    if x.event_id == event.event_id and x.resource == unit
                ],
                "voided": eid in voided_by,
                "voided_by_seq": voided_by.get(eid),
                "void_of_seq": seq_of.get(str(event.payload.voided_event_id))
                if isinstance(event.payload, EventVoided)
                else None,
                "correction": isinstance(event.payload, ScoreCorrected),
                "disputed_by_seq": disputed.get(eid, []),
            }
        )
        before = after
    return {
        "game_id": first.game_id,
        "score_unit": str(unit),
        "players": [{"player_id": p.player_id, "name": p.name} for p in first.players],
        "events": rows,
    }


def _summary(data: dict[str, Any]) -> str:
    """A one-line description of a payload (its JSON data): its fields other than long lists."""
    parts = [
        f"{k}={v}" for k, v in data.items() if not isinstance(v, list | dict) and v is not None
    ]
    return ", ".join(parts)[:200]


def compare_without(events: Sequence[Envelope], event_id: str, now: datetime) -> dict[str, Any]:
    """The standings now, and as they would be if `event_id` were voided (dispute view).

    The "without" side folds the log plus a hypothetical `game.event_voided` for the event, so
    it obeys the same rules as a real void (the game start and voids cannot be voided; a later
    event that depended on it makes the void impossible). `now` stamps the hypothetical event.
    The void of `game.ended` reopens the game, so its hypothetical void says so
    (`reopens_game: true`, contracts/common.py `EventVoided`) and `reopens_game` is true: the
    "without" side is the game back in progress, and the page asks the referee to confirm that.

    Returns:
        `{"event": {seq, event_id, type}, "with": Standings, "without": Standings | None,
        "error": {rule, field, message} | None, "delta": {pid: points}, "reopens_game": bool}`;
        `without` is None and `error` says why when the event cannot be voided.

    Raises:
        LookupError: no event `event_id` in the log.
    """
    if not any(str(e.event_id) == event_id for e in events):
        raise LookupError(f"no event {event_id} in this game")
    return compare_state(fold(events), event_id, now)


def compare_state(current: GameState, event_id: str, now: datetime) -> dict[str, Any]:
    """`compare_without` of a folded game: the event found by its id in O(1) (an id that is not
    an event of the game's history, in its canonical text, is not found). A state from a
    snapshot answers the same as the fold of its events.

    Raises:
        LookupError: no event `event_id` in the game.
    """
    try:
        wanted = uuid.UUID(event_id)
    except ValueError:
        wanted = None
    seq = current.seq_of(wanted) if wanted is not None and str(wanted) == event_id else None
    if seq is None:
        raise LookupError(f"no event {event_id} in this game")
    target = current.history[seq - 1]
    with_side = standings(current)
    reopens = target.type == GameEnded.TYPE
    hypothetical = parse_event(
        {
            "event_id": str(uuid.uuid4()),
            "game_id": current.game_id,
            "seq": current.seq + 1,
            "type": EventVoided.TYPE,
            "schema_version": EventVoided.SCHEMA_VERSION,
            "occurred_at": now.isoformat(),
            "actor": "dispute-view",
            "payload": {
                "voided_event_id": event_id,
                "reason": "what if",
                "referee": "dispute-view",
                "reopens_game": reopens,
            },
        }
    )
    without: Standings | None
    try:
        without = standings(evolve_void(current, hypothetical)[0])  # stops where it rejoins
        error = None
    except RuleViolation as violation:
        without, error = None, violation.to_dict()
    return {
        "event": {"seq": target.seq, "event_id": event_id, "type": target.type},
        "with": with_side.model_dump(mode="json"),
        "without": without.model_dump(mode="json") if without else None,
        "error": error,
        "delta": _delta(with_side, without),
        "reopens_game": reopens,
    }


def _delta(with_side: Standings, without: Standings | None) -> dict[str, int]:
    if without is None:
        return {}
    after = {p.player_id: p.total for p in without.players}
    return {p.player_id: after[p.player_id] - p.total for p in with_side.players}
