"""A game's work within one projector batch (`usecases.project.Project`): the fold of one
event onto its view, and the projection write's ops for the batch. Split from project.py to
keep it readable in one sitting; docs/decisions/0004-projector-catch-up-subscription.md."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from domain.errors import RuleViolation
from services.ports.projections import ProjectionOp
from services.usecases.gameview import GameView
from services.usecases.projected import rendered


@dataclass(slots=True)
class GameWork:
    """One game's changes within a batch: the seq and hold it started from."""

    view: GameView
    base_seq: int
    base_held: int | None
    held: int | None = None
    events: int = 0
    reason: dict[str, Any] | None = None
    refolded: bool = False
    """Folded again from the log (names as they are now) after an entry fed again: written
    even at the same seq."""

    @property
    def seq(self) -> int:
        return self.view.seq


def evolve(w: GameWork, data: bytes) -> dict[str, Any] | None:
    """Parse and fold one event onto `w`; the dead-letter reason when it cannot be."""
    try:
        w.view.add(data)
    except RuleViolation as error:
        return {"kind": "rule", **error.to_dict()}
    except (ValidationError, ValueError) as error:
        return {"kind": "invalid", "rule": "schema.field", "message": str(error)[:300]}
    except Exception as error:  # a ruleset bug must not stop the projector
        return {"kind": "rule", "rule": "fold.error", "message": f"{type(error).__name__}: {error}"}
    w.events += 1
    return None


def projection_ops(work: dict[str, GameWork]) -> list[ProjectionOp]:
    """The projection write's ops for a batch's `work`: each game folded further (or refolded
    unheld) rendered once ("apply"), each game newly held ("hold", its reason as JSON)."""
    ops: list[ProjectionOp] = []
    for game_id, w in work.items():
        if w.seq > w.base_seq or (w.refolded and w.held is None):
            state = w.view.folder.state  # frozen, O(1); rendered once per batch
            text, view = rendered(state)
            ops.append(
                ProjectionOp(
                    "apply", game_id, w.base_seq, state.seq, state.status, state.game, text,
                    view_json=view,
                )
            )  # fmt: skip
        if w.held is not None and w.base_held is None:
            why = json.dumps({"seq": w.held, **(w.reason or {})}, default=str)
            ops.append(ProjectionOp("hold", game_id, 0, w.held, reason_json=why))
    return ops
