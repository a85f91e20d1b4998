"""Reusable builders of Penumbra events: `g = PenumbraGame(["ada", "bea"]); g.trial_completed(...)`.

Each method appends one envelope (seq 1..N, increasing timestamps, fresh UUIDs) to `g.events`
and returns it; `g.state()` folds them with `domain.fold.fold`, `g.standings()` adds
`domain.standings.standings`. Shared with the simulator, so it validates nothing itself: the
ruleset does.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable
from datetime import UTC, datetime, timedelta
from typing import Any

from contracts import penumbra as pen
from contracts.common import EventVoided, GameEnded, Player, ScoreCorrected, TurnStarted
from contracts.envelope import Envelope, Payload
from contracts.events import ENVELOPE_BY_TYPE
from domain.fold import GameState, fold
from domain.penumbra.categories import CATEGORIES
from domain.standings import Standings, standings

START = datetime(2026, 11, 30, 18, 0, tzinfo=UTC)


class PenumbraGame:
    """A Penumbra event log under construction; `penumbra.game_started` is event 1.

    Args:
        players: player ids in seat order (names are the ids capitalised).
        options: the ruleset options (default: every REC).
        game_id / actor: envelope fields; `step`: time between events.
        new_id: the event-id factory (default `uuid.uuid4`).
    """

    def __init__(
        self,
        players: Iterable[str],
        options: pen.PenumbraOptions | None = None,
        *,
        game_id: str = "pen-test",
        actor: str = "table-1",
        start: datetime = START,
        step: timedelta = timedelta(seconds=45),
        new_id: Callable[[], uuid.UUID] = uuid.uuid4,
    ) -> None:
        self.players = list(players)
        self.game_id, self.actor, self.start, self.step, self.new_id = (
            game_id,
            actor,
            start,
            step,
            new_id,
        )
        self.events: list[Envelope] = []
        seated = tuple(
            Player(player_id=p, name=p.capitalize(), seat=i) for i, p in enumerate(self.players, 1)
        )
        self.add(pen.PenumbraGameStarted(players=seated, options=options or pen.PenumbraOptions()))

    def add(self, payload: Payload) -> Envelope:
        """Wrap `payload` in the next envelope, append it and return it."""
        seq = len(self.events) + 1
        envelope = ENVELOPE_BY_TYPE[payload.TYPE](
            event_id=self.new_id(),
            game_id=self.game_id,
            seq=seq,
            type=payload.TYPE,
            schema_version=payload.SCHEMA_VERSION,
            occurred_at=self.start + self.step * seq,
            actor=self.actor,
            payload=payload,
        )
        self.events.append(envelope)
        return envelope

    # Turns and the end -------------------------------------------------------------------
    def turn(self, turn: int) -> Envelope:
        return self.add(TurnStarted(turn=turn))

    def prophecy(self, prophecy_id: str, by: str) -> Envelope:
        return self.add(pen.ProphecyTriggered(prophecy_id=prophecy_id, by_player=by))

    def final_turn(self, player_id: str) -> Envelope:
        return self.add(pen.FinalTurnTaken(player_id=player_id))

    def ended(self, reason: str | None = None) -> Envelope:
        return self.add(GameEnded(reason=reason))

    def finish(self, prophecy_id: str = "prophecy-1") -> Envelope:
        """Trigger a Prophecy (by the first player), give everyone the final turn, end."""
        self.prophecy(prophecy_id, by=self.players[0])
        for pid in self.players:
            self.final_turn(pid)
        return self.ended()

    def corrected(
        self, player_id: str, amount: int, category: str = "correction", reason: str = "fix"
    ) -> Envelope:
        return self.add(
            ScoreCorrected(
                player_id=player_id, amount=amount, category=category, reason=reason, referee="ref"
            )
        )

    def voided(self, event: Envelope, reason: str = "void") -> Envelope:
        return self.add(EventVoided(voided_event_id=event.event_id, reason=reason, referee="ref"))

    # Holdings ----------------------------------------------------------------------------
    def arcana_gained(self, player_id: str, amount: int) -> Envelope:
        return self.add(pen.ArcanaGained(player_id=player_id, amount=amount))

    def arcana_spent(self, player_id: str, amount: int) -> Envelope:
        return self.add(pen.ArcanaSpent(player_id=player_id, amount=amount))

    def trial_reserved(self, player_id: str, trial_id: str) -> Envelope:
        return self.add(pen.TrialReserved(player_id=player_id, trial_id=trial_id))

    def trial_reservation_cleared(self, player_id: str, trial_id: str) -> Envelope:
        return self.add(
            pen.TrialReservationCleared(player_id=player_id, trial_id=trial_id, reason="given up")
        )

    def trial_completed(
        self,
        player_id: str,
        trial_id: str,
        vp: int,
        xp: dict[str, int] | None = None,
        light: int = 0,
        dark: int = 0,
    ) -> Envelope:
        rewards = _rewards(vp, xp, light, dark)
        return self.add(pen.TrialCompleted(player_id=player_id, trial_id=trial_id, **rewards))

    def contract_reserved(
        self,
        player_id: str,
        contract_id: str,
        vp: int = 0,
        xp: dict[str, int] | None = None,
        light: int = 0,
        dark: int = 0,
    ) -> Envelope:
        rewards = _rewards(vp, xp, light, dark)
        return self.add(
            pen.ContractReserved(player_id=player_id, contract_id=contract_id, **rewards)
        )

    def contract_fulfilled(
        self,
        player_id: str,
        contract_id: str,
        vp: int,
        xp: dict[str, int] | None = None,
        light: int = 0,
        dark: int = 0,
    ) -> Envelope:
        rewards = _rewards(vp, xp, light, dark)
        return self.add(
            pen.ContractFulfilled(player_id=player_id, contract_id=contract_id, **rewards)
        )

    def contract_reservation_removed(self, player_id: str, contract_id: str) -> Envelope:
        return self.add(
            pen.ContractReservationRemoved(
                player_id=player_id, contract_id=contract_id, reason="discarded"
            )
        )

    def tome_gained(
        self, player_id: str, tome_id: str, xp: dict[str, int] | None = None
    ) -> Envelope:
        return self.add(pen.TomeGained(player_id=player_id, tome_id=tome_id, xp=xp or {}))

    def tome_lost(self, player_id: str, tome_id: str) -> Envelope:
        return self.add(pen.TomeLost(player_id=player_id, tome_id=tome_id, reason="lost"))

    def mortal_wound_taken(self, player_id: str, card_id: str) -> Envelope:
        return self.add(pen.MortalWoundTaken(player_id=player_id, card_id=card_id))

    def mortal_wound_removed(self, player_id: str, card_id: str) -> Envelope:
        return self.add(
            pen.MortalWoundRemoved(player_id=player_id, card_id=card_id, reason="healed")
        )

    def mark_placed(
        self, player_id: str, slot_id: str, vp_under: int = 0, spark: bool = False
    ) -> Envelope:
        return self.add(
            pen.MarkPlaced(player_id=player_id, slot_id=slot_id, vp_under=vp_under, spark=spark)
        )

    def mark_removed(self, player_id: str, slot_id: str) -> Envelope:
        return self.add(pen.MarkRemoved(player_id=player_id, slot_id=slot_id, reason="moved"))

    def goal_scored(self, player_id: str, goal_id: str, vp: int) -> Envelope:
        return self.add(pen.GoalScored(player_id=player_id, goal_id=goal_id, vp=vp))

    def goal_revoked(self, player_id: str, goal_id: str) -> Envelope:
        return self.add(
            pen.GoalRevoked(player_id=player_id, goal_id=goal_id, reason="no longer met")
        )

    # Results -----------------------------------------------------------------------------
    def state(self) -> GameState:
        """`domain.fold.fold` of the events so far."""
        return fold(self.events)

    def standings(self) -> Standings:
        """`domain.standings.standings` of the folded events."""
        return standings(self.state())

    def totals(self) -> dict[str, int]:
        """Player id -> total VP."""
        return {p.player_id: p.total for p in self.standings().players}

    def breakdown(self, player_id: str) -> dict[str, int]:
        """Every category (the rules' eight, 0 when untouched, and `joined` after a join in
        progress) -> VP for one player."""
        line = next(p for p in self.standings().players if p.player_id == player_id)
        keys = [c.key for c in CATEGORIES if c.key != "joined" or "joined" in line.categories]
        return {key: line.categories.get(key, 0) for key in keys}


def _rewards(vp: int, xp: dict[str, int] | None, light: int, dark: int) -> dict[str, Any]:
    """The reward fields a completed Trial and a reserved or fulfilled Contract share: VP, XP
    by kind (none when `None`), Light and Dark fate."""
    return {"vp": vp, "xp": xp or {}, "light": light, "dark": dark}


def xp(*counts: int) -> dict[str, int]:
    """Experience as counts of XP1..XP6 in order, zeros left out: `xp(1, 2, 0, 3)`."""
    return {f"XP{i}": n for i, n in enumerate(counts, 1) if n}


def build(
    players: Iterable[str],
    steps: Callable[[PenumbraGame], Any],
    options: pen.PenumbraOptions | None = None,
) -> PenumbraGame:
    """A game with `steps(g)` applied: handy for one-line Given blocks."""
    g = PenumbraGame(players, options)
    steps(g)
    return g
