"""The pure fold: `evolve(state, event) -> state`, `fold(events) -> state`.

Game-independent duties live here: the log's order (`seq`), one game per log, nothing after
the end but corrections and voids, corrections as ledger entries, voids as a refold without the
voided event. Everything else is delegated to the game's `Ruleset`. No I/O, clock or
randomness. Source: issue #2 (domain/), research/anchors.md §1.6 lessons 1 and 6.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal
from uuid import UUID

from contracts.common import EventVoided, GameEnded, GameStartedBase, Player, ScoreCorrected
from contracts.envelope import Envelope
from domain.errors import RuleViolation
from domain.ledger import LedgerEntry
from domain.ruleset import Ruleset
from domain.rulesets import RULESET_BY_GAME, ruleset_for_started
from domain.values import replace

Status = Literal["in_progress", "final"]


@dataclass(frozen=True)
class GameState:
    """Everything known about one game after its events so far (immutable).

    Attributes:
        game_id / game: the game and its ruleset key.
        players: the seated players, in seat order.
        seq: the last applied event's seq (the game's version).
        status: `in_progress` until `game.ended`, then `final`.
        rules: the ruleset's own state value.
        ledger: every resource change, in order.
        history: every event applied, voided ones included (needed to refold on a void).
        voided: ids of voided events.
    """

    game_id: str
    game: str
    players: tuple[Player, ...]
    seq: int
    status: Status
    rules: Any
    ledger: tuple[LedgerEntry, ...]
    history: tuple[Envelope, ...]
    voided: frozenset[UUID]

    @property
    def ruleset(self) -> Ruleset:
        """The game's ruleset."""
        return RULESET_BY_GAME[self.game]


def start(event: Envelope) -> GameState:
    """The state after the first event, which must be a `*.game_started` with seq 1.

    Raises:
        RuleViolation: `log.first_event` if the event is not a game start or its seq is not 1.
    """
    if not isinstance(event.payload, GameStartedBase):
        raise RuleViolation(
            "log.first_event",
            f"a game's first event must be *.game_started, got {event.type}",
            "type",
        )
    if event.seq != 1:
        raise RuleViolation("log.first_event", f"a game starts at seq 1, got {event.seq}", "seq")
    ruleset = ruleset_for_started(event.type)
    rules, entries = ruleset.start(event)
    return GameState(
        game_id=event.game_id,
        game=ruleset.game,
        players=tuple(sorted(event.payload.players, key=lambda p: p.seat)),
        seq=1,
        status="in_progress",
        rules=rules,
        ledger=entries,
        history=(event,),
        voided=frozenset(),
    )


def evolve(state: GameState | None, event: Envelope) -> GameState:
    """Apply one event; return the new state. `state` None means no event yet.

    Raises:
        RuleViolation: the event breaks a rule (log order, game id, the game's rules); the
            given state is unchanged.
    """
    if state is None:
        return start(event)
    _check_log_order(state, event)
    return _apply(state, event)


def fold(events: Iterable[Envelope], upto_seq: int | None = None) -> GameState:
    """Fold a game's events from the first; stop after `upto_seq` when given.

    Raises:
        RuleViolation: from the first event that breaks a rule; `log.empty` for no events.
    """
    state: GameState | None = None
    for event in events:
        if upto_seq is not None and event.seq > upto_seq:
            break
        state = evolve(state, event)
    if state is None:
        raise RuleViolation("log.empty", "no events to fold")
    return state


def _check_log_order(state: GameState, event: Envelope) -> None:
    if event.game_id != state.game_id:
        raise RuleViolation(
            "log.game_id",
            f"event is for game {event.game_id}, this log is {state.game_id}",
            "game_id",
        )
    if event.seq != state.seq + 1:
        kind = "log.seq_gap" if event.seq > state.seq + 1 else "log.seq_order"
        raise RuleViolation(kind, f"expected seq {state.seq + 1}, got {event.seq}", "seq")
    if isinstance(event.payload, GameStartedBase):
        raise RuleViolation("log.started_twice", "the game has already started", "type")
    if state.status == "final" and not isinstance(event.payload, ScoreCorrected | EventVoided):
        raise RuleViolation(
            "log.after_game_ended",
            f"the game has ended; only corrections and voids may follow, got {event.type}",
            "type",
        )


def _apply(state: GameState, event: Envelope) -> GameState:
    payload = event.payload
    status: Status = state.status
    if isinstance(payload, ScoreCorrected):
        rules, entries = state.rules, (_correction_entry(state, event, payload),)
    elif isinstance(payload, EventVoided):
        return _void(state, event, payload)
    elif isinstance(payload, GameEnded):
        rules, entries = state.ruleset.end(state.rules, event)
        status = "final"
    else:
        rules, entries = state.ruleset.apply(state.rules, event)
    return replace(
        state,
        seq=event.seq,
        status=status,
        rules=rules,
        ledger=state.ledger + entries,
        history=(*state.history, event),
    )


def _correction_entry(state: GameState, event: Envelope, payload: ScoreCorrected) -> LedgerEntry:
    if payload.player_id not in {p.player_id for p in state.players}:
        raise RuleViolation(
            "correction.unknown_player",
            f"no player {payload.player_id!r} in this game",
            "payload.player_id",
        )
    known = {c.key for c in state.ruleset.categories} | {"correction"}
    if payload.category not in known:
        raise RuleViolation(
            "correction.unknown_category",
            f"category {payload.category!r} is not one of {sorted(known)}",
            "payload.category",
        )
    return LedgerEntry(
        event_id=event.event_id,
        seq=event.seq,
        player_id=payload.player_id,
        resource=state.ruleset.score_resource,
        category=payload.category,
        amount=payload.amount,
        rule="correction",
        note=f"{payload.referee}: {payload.reason}",
    )


def _void(state: GameState, event: Envelope, payload: EventVoided) -> GameState:
    target = next((e for e in state.history if e.event_id == payload.voided_event_id), None)
    if target is None:
        raise RuleViolation(
            "void.unknown_event",
            f"no event {payload.voided_event_id} in this game",
            "payload.voided_event_id",
        )
    if target.seq == 1:
        raise RuleViolation(
            "void.game_started", "the game start cannot be voided", "payload.voided_event_id"
        )
    if isinstance(target.payload, EventVoided):
        raise RuleViolation(
            "void.of_void",
            "a void cannot be voided; correct the score instead",
            "payload.voided_event_id",
        )
    if target.event_id in state.voided:
        raise RuleViolation(
            "void.already_void",
            f"event seq {target.seq} is already void",
            "payload.voided_event_id",
        )
    ends = isinstance(target.payload, GameEnded)  # voiding it makes a final game live again
    if ends and not payload.reopens_game:
        raise RuleViolation(
            "void.game_ended_needs_reopen",
            "voiding game.ended reopens the game: send reopens_game: true",
            "payload.reopens_game",
        )
    if payload.reopens_game and not ends:
        raise RuleViolation(
            "void.reopen_not_game_ended",
            f"reopens_game is only for voiding game.ended, not {target.type}",
            "payload.reopens_game",
        )
    voided = state.voided | {target.event_id}
    history = (*state.history, event)
    return _refold(history, voided)


def _refold(history: tuple[Envelope, ...], voided: frozenset[UUID]) -> GameState:
    """Refold `history` as if the `voided` events had never counted (their seqs still pass)."""
    state = replace(start(history[0]), voided=voided)
    for event in history[1:]:
        if event.event_id in voided or isinstance(event.payload, EventVoided):
            state = replace(state, seq=event.seq, history=(*state.history, event))
            continue
        try:
            state = _apply(state, event)
        except RuleViolation as error:
            raise RuleViolation(
                "void.breaks_later_event",
                f"without the voided event, seq {event.seq} ({event.type}) breaks {error.rule}: {error.message}",
                "payload.voided_event_id",
            ) from error
    return state
