"""Penumbra event payloads (stub: the Penumbra helper fills this in)."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict

from contracts.common import GameStartedBase
from contracts.envelope import Payload


class PenumbraOptions(BaseModel):
    """Ruleset options recorded in the game-started event."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    arcana_cap: int = 12


class PenumbraGameStarted(GameStartedBase):
    """A Penumbra game starts."""

    TYPE: ClassVar[str] = "penumbra.game_started"
    options: PenumbraOptions = PenumbraOptions()


PENUMBRA_PAYLOADS: tuple[type[Payload], ...] = (PenumbraGameStarted,)
