"""The projector's cached view of one game (`services.usecases.project`): its working fold at
the stored projection's seq, or its hold. Source: docs/decisions/0004-projector-catch-up-subscription.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from domain.fold import Folder
from services.runtime.sizedcache import GAME_BYTES, state_bytes


@dataclass(slots=True)
class GameView:
    """The projector's view of one game: its working fold at the projection's seq, or held.

    The folder is changed in place by a batch; a batch whose write fails or is skipped drops
    the view (the next batch rebuilds it from storage), so a view never runs ahead of storage.
    """

    folder: Folder[Any]
    held: int | None = None

    @property
    def seq(self) -> int:
        return self.folder.seq if self.folder.started else 0


def view_bytes(view: GameView) -> int:
    """A view's estimated bytes (`sizedcache.state_bytes` of its fold so far)."""
    return state_bytes(view.folder.state) if view.folder.started else GAME_BYTES
