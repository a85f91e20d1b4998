"""Simulated Trickerion tables that scoring joins in progress (issue: "a table that connects in
turn 3"): the same game cut at a turn boundary, its first part declared in the start event's
`joined_in_progress` as the table would count it, the rest renumbered from seq 2.

The declaration is what the ruleset's state holds at the cut (Fame, Coins, Shards, the Trick
cards owned, the characters hired, the track), so everything after scores as in the whole game;
referee corrections before the cut are not declared (a table counts holdings, not a referee's
adjustments). A cut that the rules would refuse (a later void of an event before the cut, say)
keeps the whole game. Source: docs/integrating/events.md ("Joining a game in progress"); domain/trickerion/join.py.
"""

from __future__ import annotations

import random

from contracts.common import TurnStarted
from contracts.envelope import Envelope
from contracts.trickerion import TrickerionGameStarted
from domain.errors import RuleViolation
from domain.fold import fold

JOIN_SHARE = 0.1
"""About one simulated Trickerion table in ten is joined in progress."""


def joined_in_progress(log: list[Envelope], rng: random.Random) -> list[Envelope]:
    """`log` (a whole Trickerion game) joined before a turn drawn from turns 2..final, or `log`
    itself when the cut is not a valid game (the tail voids an event before the cut)."""
    starts = [i for i, e in enumerate(log) if isinstance(e.payload, TurnStarted)]
    if len(starts) < 2:
        return log
    joined = joined_at(log, rng.choice(starts[1:]))
    try:
        fold(joined)
    except RuleViolation:
        return log
    return joined


def joined_at(log: list[Envelope], cut: int) -> list[Envelope]:
    """`log` (a whole Trickerion game) joined before its event at index `cut` (a turn's
    start): the start event declares the folded holdings there, the rest renumbered from 2."""
    before = fold(log[:cut]).rules
    seats = [
        {
            "player_id": pid,
            "fame": book.fame,
            "coins": book.coins,
            "shards": book.shards,
            "tricks": list(book.tricks),
            "hires": list(book.hires),
        }
        for pid, book in before.books.items()
    ]
    start = log[0].payload.model_dump()
    start["joined_in_progress"] = {
        "turn": before.turn,
        "initiative_order": list(before.initiative),
        "players": seats,
    }
    first = log[0].model_copy(update={"payload": TrickerionGameStarted.model_validate(start)})
    return [first] + [e.model_copy(update={"seq": n}) for n, e in enumerate(log[cut:], start=2)]
