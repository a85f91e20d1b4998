"""Stray projections: a projection left in Redis for a game that lives only in the archive.

Before the projector dropped the feed entries of sealed games (`without_sealed`,
docs/decisions/0013-archive-cold-tier.md), a projector behind the archiver could fold such entries and write
the game's projection back into Redis after the seal had removed it, without the names that left
with the archive. The query door reads Redis before the archive, so such a game showed player ids
where the archive holds names. Nothing writes a stray projection now; this sweep finds those
already written and, when asked, deletes them, so reads fall through to the archived projection.

A projection is deleted only when the archive holds the game (`Archive.exists`), under the game's
tier lock (`HotGames.lock`: no seal, restore or forget of the game runs meanwhile), and in one
atomic step that checks Redis still holds none of its events (`HotGames.drop_stray`). A stray of a
game the archive does not hold is reported and kept: no tier could answer for it once gone.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from services.archive.ports.cold import Archive
from services.archive.ports.hot import HotGames

LOCK_TTL_MS = 60_000
"""How long the sweep's tier lock of one game lasts if the sweep dies holding it (ms)."""


@dataclass(slots=True)
class StraySweep:
    """What one sweep found (game ids, sorted): `archived` strays of archived games (deleted
    when `deleted` names them), `unarchived` strays of games the archive does not hold (kept),
    `busy` games whose tier lock another holder had (kept; a later sweep tries again)."""

    archived: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    unarchived: list[str] = field(default_factory=list)
    busy: list[str] = field(default_factory=list)


async def sweep_strays(hot: HotGames, archive: Archive, delete: bool) -> StraySweep:
    """Find Redis's stray projections (`HotGames.stray_projections`) and, with `delete`, delete
    those of archived games (module docstring). Idempotent: a second sweep finds what the first
    kept. Raises: storage errors of Redis or the archive (what was deleted before stays so)."""
    found = StraySweep()
    async for game_id in hot.stray_projections():
        if not await archive.exists(game_id):
            found.unarchived.append(game_id)
            continue
        found.archived.append(game_id)
        if not delete:
            continue
        owner = f"sweep-{uuid.uuid4().hex}"
        if not await hot.lock(game_id, owner, LOCK_TTL_MS):
            found.busy.append(game_id)
            continue
        try:
            if await hot.drop_stray(game_id):
                found.deleted.append(game_id)
        finally:
            await hot.unlock(game_id, owner)
    for ids in (found.archived, found.deleted, found.unarchived, found.busy):
        ids.sort()
    return found
