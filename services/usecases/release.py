"""The release use case (`scoreledger release GAME`): resume a game the projector holds.

The projector holds a game when its rules refuse one of the game's feed entries (the event is
dead-lettered, later events wait; see `services.usecases.project`). Neither deleting the hold by
hand nor restarting resumed it (docs/decisions/0011-faults-are-answered-not-crashed.md): the shard checkpoint had moved past the game's entries.
After a referee's void or correction has been appended (or the projector's rules were fixed),
`release` refolds the game's whole log with the pure domain. If it folds, the hold is cleared
and the log's last event is fed again in one atomic step (`Projections.release`), so whichever
projector owns the shard refolds the game from the log from its projection's seq (the gap fill
of `Project`). If it does not fold, nothing changes: the game stays held and the refused seq
and its rule are returned.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import ValidationError

from contracts.events import parse_event_json
from domain.errors import RuleViolation
from domain.fold import Folder
from services.ports.eventlog import EventLog
from services.ports.projections import ProjectionHead, Projections

Status = Literal["released", "not_held", "still_failing", "changed"]


@dataclass(frozen=True, slots=True)
class ReleaseOutcome:
    """What `Release.release` did.

    `status`: `released` (hold cleared, the projector will refold), `not_held` (nothing to do),
    `still_failing` (the log does not fold: the game stays held; `seq` and `reason` say where
    and why), `changed` (the hold changed meanwhile, nothing done: try again). `held_seq`: the
    hold found; `version`: the log's version read.
    """

    game_id: str
    status: Status
    held_seq: int | None
    version: int
    seq: int | None = None
    reason: dict[str, Any] | None = None


Refusal = tuple[int, dict[str, Any]]
"""The seq of an event that does not fold and why (`kind`, `rule`, `field`, `message`)."""


def fold_until_refused(raws: Sequence[bytes]) -> tuple[Folder[Any], Refusal | None]:
    """Fold the stored events `raws` (seq order) from the start up to the first one that does
    not fold; the folder (at the seq before it) and that event's refusal (None: all fold)."""
    folder: Folder[Any] = Folder()
    for seq, data in enumerate(raws, start=1):
        try:
            folder.add(parse_event_json(data))
        except RuleViolation as error:
            return folder, (seq, {"kind": "rule", **error.to_dict()})
        except (ValidationError, ValueError) as error:
            why = {"kind": "invalid", "rule": "schema.field", "message": str(error)[:300]}
            return folder, (seq, why)
        except Exception as error:  # a ruleset bug: report it, like the projector does
            why = {"kind": "rule", "rule": "fold.error", "message": f"{error!r}"[:300]}
            return folder, (seq, why)
    return folder, None


def first_refusal(raws: Sequence[bytes]) -> Refusal | None:
    """The first event of `raws` that does not fold from the start, None if all do."""
    return fold_until_refused(raws)[1]


class Release:
    """Releases held games. Args: the event log (read) and the projections port."""

    def __init__(self, log: EventLog, projections: Projections) -> None:
        self.log = log
        self.projections = projections

    async def release(self, game_id: str) -> ReleaseOutcome:
        """Release `game_id` if it is held and its log folds (see the module docstring).

        Raises: storage errors (nothing is changed unless the release step ran).
        """
        (head,) = await self.projections.heads([game_id])
        raws = await self.log.read_raw(game_id)
        version = len(raws)
        if head.held is None:
            return ReleaseOutcome(game_id, "not_held", None, version)
        refused = first_refusal(raws)
        if refused is not None:
            seq, reason = refused
            return ReleaseOutcome(game_id, "still_failing", head.held, version, seq, reason)
        last = raws[-1] if raws else b""
        if not await self.projections.release(game_id, head.held, version, last):
            return ReleaseOutcome(game_id, "changed", head.held, version)
        return ReleaseOutcome(game_id, "released", head.held, version)

    async def wait(
        self, game_id: str, version: int, timeout_s: float, poll_s: float = 0.1
    ) -> ProjectionHead:
        """Poll the game's projection until it reaches `version`, is held again, or
        `timeout_s` passes; returns the last head read."""
        deadline = time.monotonic() + timeout_s
        while True:
            (head,) = await self.projections.heads([game_id])
            if head.held is not None or head.seq >= version or time.monotonic() >= deadline:
                return head
            await asyncio.sleep(poll_s)


def hold_reason(head: ProjectionHead) -> dict[str, Any]:
    """The hold's reason of `head` as a dict (empty when none or unreadable)."""
    try:
        reason: Any = json.loads(head.reason_json or "{}")
    except ValueError:
        return {}
    return reason if isinstance(reason, dict) else {}
