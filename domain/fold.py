"""The pure fold: `Folder.add(event)`, `evolve(state, event) -> state`, `fold(events) -> state`.

Game-independent duties live here: the log's rules are checked (`domain.logrules`: order, one
game per log, nothing after the end but corrections and voids), corrections become ledger
entries, voids a refold without the voided event. Everything else is delegated to the game's
`Ruleset`. No I/O, clock or randomness. Source: docs/decisions/0007-pure-domain-fold.md.

Cost (docs/decisions/0012-hot-reads-and-off-loop-replays.md): a `Folder` is the mutable working state of one game. `add` costs O(1)
amortised whatever the game's length: the ledger and history are append-only lists, the score
tally is updated by the new entries only, and `state` hands out a frozen `GameState` in O(1) (views
of the lists, see `domain.log`). A void refolds from the nearest mark (a saved point every
`MARK_EVERY` events before the voided one), not from the start.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any, Generic
from uuid import UUID

from contracts.common import EventVoided, GameEnded, GameStartedBase, ScoreCorrected
from contracts.envelope import Envelope
from domain.errors import RuleViolation
from domain.eventids import EventIds
from domain.gamestate import GameState, Mark, S, Status
from domain.log import Log, own
from domain.logrules import KINDS, VOIDED, correction_entry, log_kind, void_target
from domain.ruleset import Entries, Handler
from domain.rulesets import ruleset_for_started
from domain.values import with_dict

__all__ = ["MARK_EVERY", "Folder", "GameState", "Mark", "evolve", "fold", "start"]
"""`GameState` and `Mark` live in `domain.gamestate`; callers import them from here too."""

_NONE: Mapping[type, Any] = MappingProxyType({})

MARK_EVERY = 16
"""Events between two marks (the saved points a void refolds from). 16, not 64: a void refolds
8 events on average instead of 32 (voids were 9% of the simulated games' fold, docs/decisions/0012-hot-reads-and-off-loop-replays.md), and
a mark costs a copy of the sums (a few dicts of players x categories) every 16 events."""


class Folder(Generic[S]):
    """The mutable working state of one game; `add` one event at a time, `state` to hand out.

    `Folder()` starts empty; `Folder.resume(state)` continues from a handed-out state without
    copying it. The ledger, history and marks are lists only ever appended to, so a handed-out
    state is a view of their first items; a writer that finds a list longer than its own count
    (someone else continued the same state) copies first (`domain.log.own`). The sums are
    copied on write after a state was handed out. Not thread-safe: one writer per folder.

    A ruleset may offer `handlers`, payload class -> `domain.ruleset.Handler`, when its
    `apply(state, event)` is `handlers[type(event.payload)](state, event, event.payload)` for
    every class in it (none of them a start, void, correction or end): the folder then calls
    the handler itself (docs/profiles/fold-event-cost.md). Both games offer them (Penumbra's
    handlers refuse every event after the final turns themselves).
    """

    def __init__(self) -> None:
        self._snap: GameState[S] | None = None
        self._shared = True  # the sums are (or may be) seen by a handed-out state
        self.started = False
        """Whether the game's first event has been added."""

    @classmethod
    def resume(cls, state: GameState[S] | None, run: bool = False) -> Folder[S]:
        """A folder that continues from `state` (None: from nothing), O(1). `run`: the caller
        adds several events before it reads `state` (a batch), so the rules state is made the
        folder's own from the first of them, not the second (docs/profiles/fold-event-cost.md:
        one event between hand-outs, `evolve`, gains nothing from that copy)."""
        folder: Folder[S] = cls()
        if state is not None:
            folder._load(state)
            folder._warm = run
        return folder

    def _load(self, state: GameState[S]) -> None:
        self.game_id, self.game, self.players = state.game_id, state.game, state.players
        self.ruleset = state.ruleset
        self._apply = self.ruleset.apply  # bound once: read per event
        # optional: payload class -> the handler `apply` would call (see `Folder`)
        self._handlers: Mapping[type, Handler[S]] = getattr(self.ruleset, "handlers", _NONE)
        # an owned rules state skips a copy per event (`Ruleset.apply`); frozen when handed out
        self._thaw = getattr(self.ruleset, "owned", None)
        self._freeze = getattr(self.ruleset, "frozen", None)
        self._rules_owned = False  # whether `rules` is ours to let `apply` write (thawed)
        self._warm = False  # whether an event was added since the last hand-out
        self._unit = self.ruleset.score_resource
        self.seq, self.status, self.rules = state.seq, state.status, state.rules
        self.voided = state.voided
        self._ledger, self._ledger_n = state.ledger.buffer()
        self._history, _ = state.history.buffer()
        self._marks, self._marks_n = state.marks.buffer()
        index = state.id_index  # it must read our list (a state built around a copy may not)
        self._ids = index if index.follows(self._history) else index.branch(self._history, 0)
        self._totals, self._breakdown = state.totals, state.breakdown
        self._cache = state.cache
        self._shared, self._snap, self.started = True, state, True

    @property
    def state(self) -> GameState[S]:
        """The current state, frozen; O(1) (views of the working lists).

        Raises:
            RuleViolation: `log.empty` before the first event.
        """
        if self._snap is not None:
            return self._snap
        if not self.started:
            raise RuleViolation("log.empty", "no events to fold")
        if self._rules_owned:
            self._hand_out()
        self._warm = False
        # the fields in their declared order, as a dict of the state's own (`with_dict`: a
        # dict updated through `__dict__` shares the class's keys, and reads of it are slow)
        snap: GameState[S] = with_dict(
            GameState,
            {
                "game_id": self.game_id,
                "game": self.game,
                "players": self.players,
                "seq": self.seq,
                "status": self.status,
                "rules": self.rules,
                "ledger": Log(self._ledger, self._ledger_n),
                "history": Log(self._history, self.seq),
                "voided": self.voided,
                "totals": self._totals,
                "breakdown": self._breakdown,
                "marks": Log(self._marks, self._marks_n),
                "id_index": self._ids,
                "memo": {},
                "cache": self._cache,
            },
        )
        self._snap, self._shared = snap, True
        return snap

    @property
    def totals(self) -> Mapping[str, int]:
        """Each player's running total in the score unit, O(1) without handing out a state
        (a read-only view, valid until the next `add`; docs/decisions/0012-hot-reads-and-off-loop-replays.md: `/series` reads it per event)."""
        return MappingProxyType(self._totals)

    def add(self, event: Envelope) -> None:
        """Apply one event; O(1) amortised, a void O(events since the mark before the voided
        one). Read the result with `state`.

        Raises:
            RuleViolation: the event breaks a rule; the folder is unchanged.
        """
        if not self.started:
            self._load(start(event))
            return
        # a pydantic model's attribute read goes through its `__getattr__` hook (about 440
        # instructions): its fields dict is read once instead (docs/profiles/fold-event-cost.md)
        fields = event.__dict__
        payload = fields["payload"]
        handler = self._handlers.get(type(payload))
        seq = fields["seq"]
        if (  # the ruleset's own event in order (most of any game): `log_kind` inlined
            (handler is not None or KINDS[type(payload)] is None)
            and seq == self.seq + 1
            and fields["game_id"] == self.game_id
            and self.status != "final"
        ):
            if not self._rules_owned and self._thaw is not None:
                if self._warm:  # a second event since a hand-out: a run, worth a copy of ours
                    self.rules, self._rules_owned = self._thaw(self.rules), True
                else:  # one event between hand-outs (evolve) gains nothing from the copy
                    self._warm = True
            if handler is None:
                rules, entries = self._apply(self.rules, event)
            else:  # `apply` without its own call and reads of the event (pydantic: slow reads)
                rules, entries = handler(self.rules, event, payload)
            self._advance(event, seq, rules, entries, self.status)
            return
        # the log's rules (raising for a ruleset's own event out of order), then its kind
        kind = log_kind(self.game_id, self.seq, self.status == "final", event)
        if kind is VOIDED:  # refold from the mark before the voided event
            assert isinstance(event.payload, EventVoided)
            redo: Folder[S] = Folder()
            redo._rewind(self.state, event.payload)
            redo._refold([*self.state.history[redo.seq :], event])
            self._load(redo.state)
        else:
            rules, entries, status = _step(self, event)
            self._advance(event, seq, rules, entries, status)

    def _advance(
        self, event: Envelope, seq: int, rules: S, entries: Entries, status: Status
    ) -> None:
        """Commit one event (seq `seq`) whose rules have been applied (nothing here can fail)."""
        if len(self._history) != self.seq:  # another writer continued our state: fork
            self._fork()
        if entries:
            self._ledger.extend(entries)
            self._ledger_n += len(entries)
            if self._shared:
                self._unshare()
            totals, breakdown, owned, unit = self._totals, self._breakdown, self._owned, self._unit
            # the score-unit entries into the sums (inlined, the entry unpacked: per event)
            for _, _, pid, resource, category, amount, _, _ in entries:
                if resource != unit:
                    continue
                try:  # every seated player has a total from the start
                    totals[pid] += amount  # type: ignore[index]
                except KeyError:
                    totals[pid] = amount  # type: ignore[index]
                if pid not in owned:  # the player's category dict is still a handed-out one
                    breakdown[pid] = dict(breakdown.get(pid, {}))  # type: ignore[index]
                    owned.add(pid)
                cats = breakdown[pid]
                cats[category] = cats.get(category, 0) + amount  # type: ignore[index]
        self._history.append(event)  # the id index reads it from there when asked
        self.seq, self.status, self.rules, self._snap = seq, status, rules, None
        if not seq % MARK_EVERY:
            if self._rules_owned:
                self._hand_out()  # the mark holds the rules
            self._shared = True  # the mark holds the sums
            mark = Mark(seq, status, rules, self._ledger_n, self._totals, self._breakdown)
            self._marks.append(mark)
            self._marks_n += 1

    def _hand_out(self) -> None:
        """Freeze the owned rules state before a mark or a `GameState` holds it."""
        if self._freeze is not None:
            self._freeze(self.rules)
        self._rules_owned = False

    def _fork(self) -> None:
        self._history = self._history[: self.seq]
        self._ledger = own(self._ledger, self._ledger_n)[:]
        self._marks = self._marks[: self._marks_n]
        self._ids = EventIds(self._history)  # read on first use

    def _unshare(self) -> None:
        """Copy the sums a handed-out state shares (a player's categories: on first entry)."""
        self._totals, self._breakdown = dict(self._totals), dict(self._breakdown)
        self._owned: set[str] = set()  # players whose category dict is ours
        self._shared = False

    def _rewind(self, state: GameState[S], payload: EventVoided) -> tuple[Envelope, int]:
        """Load `state` at its last mark before the event `payload` voids (later marks counted
        it), that event voided; returns it and the marks kept. Raises: as `void_target`."""
        seq = state.seq_of(payload.voided_event_id)
        target = void_target(None if seq is None else state.history[seq - 1], state.voided, payload)
        marks = state.marks[:]
        keep = bisect_left([m.seq for m in marks], target.seq)
        mark = marks[keep - 1]
        self._load(state)
        self.seq, self.status, self.rules = mark.seq, mark.status, mark.rules
        self.voided = state.voided | {target.event_id}
        self._ledger, self._ledger_n = list(state.ledger[: mark.ledger_len]), mark.ledger_len
        self._history = list(state.history[: mark.seq])
        self._marks, self._marks_n = list(marks[:keep]), keep
        # The id table stays the state's (the refold adds the same events at the same seqs):
        # rebuilding it made a void cost 15 s in a 20,000-event game.
        self._ids = self._ids.branch(self._history, mark.seq)
        self._totals, self._breakdown = mark.totals, mark.breakdown
        return target, keep

    def _refold(self, events: Iterable[Envelope]) -> None:
        """Continue over `events` as if the `voided` events had never counted (their seqs still
        pass, as do voids, already applied through `voided`).

        Raises:
            RuleViolation: `void.breaks_later_event` when an event no longer fits.
        """
        for event in events:
            if event.event_id in self.voided or isinstance(event.payload, EventVoided):
                self._advance(event, event.seq, self.rules, (), self.status)
                continue
            try:
                rules, entries, status = _step(self, event)
            except RuleViolation as error:
                raise RuleViolation(
                    "void.breaks_later_event",
                    f"without the voided event, seq {event.seq} ({event.type}) breaks {error.rule}: {error.message}",
                    "payload.voided_event_id",
                ) from error
            self._advance(event, event.seq, rules, entries, status)


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
    players = tuple(sorted(event.payload.players, key=lambda p: p.seat))
    totals: dict[str, int] = dict.fromkeys((p.player_id for p in players), 0)
    breakdown: dict[str, dict[str, int]] = {p.player_id: {} for p in players}
    for entry in entries:
        if entry.resource == ruleset.score_resource:
            totals[entry.player_id] += entry.amount
            cats = breakdown[entry.player_id]
            cats[entry.category] = cats.get(entry.category, 0) + entry.amount
    mark = Mark(1, "in_progress", rules, len(entries), totals, breakdown)
    return GameState(
        game_id=event.game_id,
        game=ruleset.game,
        players=players,
        seq=1,
        status="in_progress",
        rules=rules,
        ledger=Log(list(entries)),
        history=Log([event]),
        voided=frozenset(),
        totals=totals,
        breakdown=breakdown,
        marks=Log([mark]),
    )


def evolve(state: GameState[S] | None, event: Envelope) -> GameState[S]:
    """Apply one event; return the new state. `state` None means no event yet. O(1) amortised
    when states are evolved in a line (each from the last); `state` itself never changes.

    Raises:
        RuleViolation: the event breaks a rule (log order, game id, the game's rules); the
            given state is unchanged.
    """
    folder = Folder.resume(state)
    folder.add(event)
    return folder.state


def fold(events: Iterable[Envelope], upto_seq: int | None = None) -> GameState:
    """Fold a game's events from the first; stop after `upto_seq` when given. O(events).

    Raises:
        RuleViolation: from the first event that breaks a rule; `log.empty` for no events.
    """
    folder: Folder[Any] = Folder()
    for event in events:
        if upto_seq is not None and event.seq > upto_seq:
            break
        folder.add(event)
    return folder.state


def _step(state: Folder[S], event: Envelope) -> tuple[S, Entries, Status]:
    """The ruleset's answer to one non-void event: new rules state, entries, status.

    Raises:
        RuleViolation: the event breaks a rule (nothing has changed).
    """
    payload = event.payload
    if isinstance(payload, ScoreCorrected):
        ruleset = state.ruleset
        entry = correction_entry(
            event,
            payload,
            (p.player_id for p in state.players),
            (c.key for c in ruleset.categories),
            ruleset.score_resource,
        )
        return state.rules, (entry,), state.status
    if isinstance(payload, GameEnded):
        rules, entries = state.ruleset.end(state.rules, event)
        return rules, entries, "final"
    rules, entries = state.ruleset.apply(state.rules, event)
    return rules, entries, state.status


def _refold(history: Iterable[Envelope], voided: frozenset[UUID]) -> GameState:
    """Refold `history` from the start as if the `voided` events had never counted (the
    reference a refold from a mark must equal; used by the property tests).

    Raises:
        RuleViolation: `log.empty` for no events; `void.breaks_later_event`.
    """
    events = list(history)
    if not events:
        raise RuleViolation("log.empty", "no events to fold")
    folder: Folder[Any] = Folder.resume(start(events[0]))
    folder.voided = voided
    folder._refold(events[1:])
    return folder.state
