"""Tiny Dice's events: a start and a roll (the common `game.*` events come for free)."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from contracts.common import GameStartedBase
from contracts.envelope import Payload, PlayerId


class DiceGameStarted(GameStartedBase):
    """A game of Tiny Dice begins (no options)."""

    TYPE: ClassVar[str] = "dice.game_started"


class DiceRolled(Payload):
    """A player rolls one die: `pips` points."""

    TYPE: ClassVar[str] = "dice.rolled"
    player_id: PlayerId
    pips: int = Field(ge=1, le=6)


DICE_PAYLOADS: tuple[type[Payload], ...] = (DiceGameStarted, DiceRolled)
