"""The fold skeleton every side stream kind shares (tournaments, leagues): the checks on a
stream's shape, made before a kind's own rules see an event.

Rules (a breach raises `RuleViolation`): the first event is the kind's created event
(`<kind>.not_created`), at seq 1 (`log.seq_gap`), of a game with a registered ruleset
(`<kind>.unknown_game`); every later event follows the last seq (`log.seq_gap`), names the same
stream (`log.wrong_stream`) and is not a second created event (`<kind>.already_created`); no
event at all is `log.empty`. Source: docs/decisions/0020-one-stream-kernel.md.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from contracts.envelope import Payload, StreamBody
from domain.errors import RuleViolation
from domain.rulesets import RULESET_BY_GAME


class StreamState(Protocol):
    """What the skeleton needs of a kind's state: the seq it has folded to (it sets it)."""

    seq: int


E = TypeVar("E", bound=StreamBody)
S = TypeVar("S", bound=StreamState)


@dataclass(frozen=True, slots=True)
class StreamFold(Generic[E, S]):
    """The fold of one stream kind: `kind` (`tournament`, the rule ids' prefix), `created`
    (the first event's payload type; it has a `game`), `start` (the state after the checked
    created event, seq 1) and `step` (a later event's own rules and effect on the state, in
    place; raises `RuleViolation`)."""

    kind: str
    created: type[Payload]
    start: Callable[[E], S]
    step: Callable[[S, E], None]

    def fold(self, events: Iterable[E], upto_seq: int | None = None) -> S:
        """Fold a stream's events from the first; stop after `upto_seq` when given.

        Raises:
            RuleViolation: from the first event that breaks a rule; `log.empty` for no events.
        """
        state: S | None = None
        for event in events:
            if upto_seq is not None and event.seq > upto_seq:
                break
            state = self.apply(state, event)
        if state is None:
            raise RuleViolation("log.empty", f"a {self.kind} needs at least its created event")
        return state

    def apply(self, state: S | None, event: E) -> S:
        """`state` after `event` (changed in place and returned; None before the first).

        Raises:
            RuleViolation: the event breaks a rule (the module doc's, or the kind's `step`).
        """
        if state is None:
            return self._open(event)
        if event.seq != state.seq + 1:
            raise RuleViolation(
                "log.seq_gap", f"expected seq {state.seq + 1}, got {event.seq}", "seq"
            )
        field = event.STREAM_FIELD
        if event.stream_id() != getattr(state, field):
            raise RuleViolation("log.wrong_stream", f"the event names another {self.kind}", field)
        if isinstance(event.payload, self.created):
            raise RuleViolation(f"{self.kind}.already_created", f"the {self.kind} exists", "type")
        self.step(state, event)
        state.seq = event.seq
        return state

    def _open(self, event: E) -> S:
        """The state of a stream's first event (see the module doc)."""
        payload = event.payload
        if not isinstance(payload, self.created):
            raise RuleViolation(
                f"{self.kind}.not_created",
                f"the first event must be {self.created.TYPE}",
                "type",
            )
        if event.seq != 1:
            raise RuleViolation("log.seq_gap", f"expected seq 1, got {event.seq}", "seq")
        game = str(getattr(payload, "game", ""))
        if game not in RULESET_BY_GAME:  # its tables are games of a registered ruleset
            known = ", ".join(sorted(RULESET_BY_GAME))
            raise RuleViolation(
                f"{self.kind}.unknown_game",
                f"no game {game!r} is registered (known: {known})",
                "game",
            )
        return self.start(event)
