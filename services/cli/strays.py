"""`scoreledger sweep-projections [--delete]`: find, and with `--delete` delete, projections
left in Redis for games that live only in the archive (`services.archive.usecases.strays`), an
operator's one-off command after an upgrade.

Connects like every other command (`services.bootstrap.build`: the Redis URL, cluster mode,
ACL user, password and TLS from the settings and the environment) to Redis and to the archive
of `SCORELEDGER_ARCHIVE_URL`, which it needs: without one no game is archived, so no
projection can be a stray.
"""

from __future__ import annotations

from dataclasses import dataclass

from services.cli.startup import EXIT_CONFIG
from services.platform.settings import CommonSettings

SHOWN = 20
"""Game ids listed per kind; the rest are counted."""


@dataclass(frozen=True, slots=True)
class SweepReport:
    """What to print and the exit code: 0 swept (or nothing found), 1 strays found and kept
    (a dry run, a game another holder had locked, or a game the archive lacks), 78 no archive
    configured."""

    code: int
    lines: tuple[str, ...]


def _listed(what: str, ids: list[str]) -> str:
    more = f" and {len(ids) - SHOWN} more" if len(ids) > SHOWN else ""
    return f"{what} ({len(ids)}): {', '.join(ids[:SHOWN])}{more}"


async def sweep_projections(settings: CommonSettings, delete: bool) -> SweepReport:
    """Sweep Redis's stray projections (see `sweep_strays`) and say what was found and done.

    Raises: redis errors (Redis unreachable), archive errors (`ArchiveUnavailable`)."""
    from services.archive.usecases.strays import sweep_strays
    from services.bootstrap import build
    from services.platform.settings import ServiceSettings

    service = build(
        ServiceSettings(
            redis_url=settings.redis_url, shards=settings.shards, archive_url=settings.archive_url
        )
    )
    hot, archive = service.ports.hot_games, service.ports.archive
    try:
        if hot is None or archive is None:
            return SweepReport(
                EXIT_CONFIG,
                ("sweep-projections needs SCORELEDGER_ARCHIVE_URL (the archive's URL)",),
            )
        found = await sweep_strays(hot, archive, delete)
    finally:
        if archive is not None:
            await archive.close()
        await service.client.aclose()
    lines: list[str] = []
    if found.deleted:
        lines.append(_listed("deleted the stray projections of archived games", found.deleted))
    kept = sorted(set(found.archived) - set(found.deleted) - set(found.busy))
    if kept:
        lines.append(_listed("stray projections of archived games", kept))
        if not delete:
            lines.append("run again with --delete to delete them (reads then use the archive)")
    if found.busy:
        lines.append(_listed("kept, the game's tier lock is held (run again)", found.busy))
    if found.unarchived:
        lines.append(
            _listed("kept, projections with no events in Redis nor the archive", found.unarchived)
        )
    if not lines:
        lines.append("no stray projection: every projection in Redis has its game's events there")
    code = 1 if (kept and not delete) or found.busy or found.unarchived else 0
    return SweepReport(code, tuple(lines))
