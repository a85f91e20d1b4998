"""The game-independent rules of a game's log, which the fold checks before any ruleset: the
log's order (`log.*`), a referee's score correction (`correction.*`) and a void (`void.*`).
Pure functions of plain values (no fold state), each raising `RuleViolation` with the rule's
name and the field it concerns. Source: docs/decisions/0007-pure-domain-fold.md (the log), docs/decisions/0001-events-are-immutable-facts.md (corrections and voids as
new events), docs/decisions/0007-pure-domain-fold.md.
"""

from __future__ import annotations

from collections.abc import Iterable
from uuid import UUID

from contracts.common import EventVoided, GameEnded, GameStartedBase, ScoreCorrected
from contracts.envelope import Envelope
from domain.errors import RuleViolation
from domain.ledger import LedgerEntry

STARTED, VOIDED, CORRECTED, ENDED = "started", "voided", "corrected", "ended"
"""What the fold does with an event besides its ruleset (`KINDS`)."""


class Kinds(dict[type, str | None]):
    """Payload class -> what the fold does with it besides the ruleset (None: the ruleset's own
    event), found by `isinstance` once per class: a dict read per event instead of the
    isinstance tests of pydantic's ABC-based classes."""

    def __missing__(self, cls: type) -> str | None:
        kind = None
        for base, name in (
            (GameStartedBase, STARTED),
            (EventVoided, VOIDED),
            (ScoreCorrected, CORRECTED),
            (GameEnded, ENDED),
        ):
            if issubclass(cls, base):
                kind = name
                break
        self[cls] = kind
        return kind


KINDS = Kinds()
"""Payload class -> its kind (None: the ruleset's own), filled on first sight."""


def log_kind(game_id: str, seq: int, final: bool, event: Envelope) -> str | None:
    """`event`'s kind (`KINDS`) once it passed `check_log_order` (same arguments), each rule
    tested once inline for the usual event (no isinstance per event).

    Raises:
        RuleViolation: as `check_log_order`.
    """
    kind = KINDS[type(event.payload)]
    if (
        event.seq != seq + 1
        or event.game_id != game_id
        or kind is STARTED
        or (final and kind is not CORRECTED and kind is not VOIDED)
    ):
        check_log_order(game_id, seq, final, event)
    return kind


def check_log_order(game_id: str, seq: int, final: bool, event: Envelope) -> None:
    """`event` may follow a log of game `game_id` whose last event is `seq` (`final`: the game
    has ended).

    Raises:
        RuleViolation: `log.game_id` (another game), `log.seq_gap` / `log.seq_order` (not
            `seq + 1`), `log.started_twice` (a second game start), `log.after_game_ended`
            (after the end only corrections and voids).
    """
    if event.game_id != game_id:
        raise RuleViolation(
            "log.game_id",
            f"event is for game {event.game_id}, this log is {game_id}",
            "game_id",
        )
    if event.seq != seq + 1:
        kind = "log.seq_gap" if event.seq > seq + 1 else "log.seq_order"
        raise RuleViolation(kind, f"expected seq {seq + 1}, got {event.seq}", "seq")
    if isinstance(event.payload, GameStartedBase):
        raise RuleViolation("log.started_twice", "the game has already started", "type")
    if final and not isinstance(event.payload, ScoreCorrected | EventVoided):
        raise RuleViolation(
            "log.after_game_ended",
            f"the game has ended; only corrections and voids may follow, got {event.type}",
            "type",
        )


def correction_entry(
    event: Envelope,
    payload: ScoreCorrected,
    players: Iterable[str],
    categories: Iterable[str],
    score_resource: str,
) -> LedgerEntry:
    """The ledger entry of a referee's correction: `payload.amount` of the game's score unit
    (`score_resource`) for one of `players` (ids), in one of the game's `categories` (keys) or
    `correction`; the note names the referee and the reason.

    Raises:
        RuleViolation: `correction.unknown_player`, `correction.unknown_category`.
    """
    if payload.player_id not in set(players):
        raise RuleViolation(
            "correction.unknown_player",
            f"no player {payload.player_id!r} in this game",
            "payload.player_id",
        )
    known = {*categories, "correction"}
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
        resource=score_resource,
        category=payload.category,
        amount=payload.amount,
        rule="correction",
        note=f"{payload.referee}: {payload.reason}",
    )


def void_target(target: Envelope | None, voided: frozenset[UUID], payload: EventVoided) -> Envelope:
    """`target`, the logged event `payload` voids (None: no such event in the game), if it may
    be voided; `voided` are the game's events already void.

    Raises:
        RuleViolation: `void.unknown_event`, `void.game_started`, `void.of_void`,
            `void.already_void`, `void.game_ended_needs_reopen`, `void.reopen_not_game_ended`.
    """
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
    if target.event_id in voided:
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
    return target
