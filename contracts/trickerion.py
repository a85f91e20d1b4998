"""Trickerion event payloads (stub: the Trickerion helper fills this in)."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict

from contracts.common import GameStartedBase
from contracts.envelope import Payload


class TrickerionOptions(BaseModel):
    """Ruleset options recorded in the game-started event."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    dark_alley: bool = True


class TrickerionGameStarted(GameStartedBase):
    """A Trickerion game starts."""

    TYPE: ClassVar[str] = "trickerion.game_started"
    options: TrickerionOptions = TrickerionOptions()


TRICKERION_PAYLOADS: tuple[type[Payload], ...] = (TrickerionGameStarted,)
