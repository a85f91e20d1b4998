"""`scoreledger forget GAME PLAYER`: make a player's name unreadable in every tier
(`services.usecases.names.Forget`), an operator's command.

Connects like every other command (`services.bootstrap.build`: the Redis URL, cluster mode,
ACL user, password and TLS from the settings and the environment; the archive of
`SCORELEDGER_ARCHIVE_URL` when set), forgets (in the game, and in its tournament, the
tournament's other table games and the leagues that added them), and prints what changed.
"""

from __future__ import annotations

from dataclasses import dataclass

from services.platform.settings import CommonSettings


@dataclass(frozen=True, slots=True)
class ForgetReport:
    """What to print and the exit code: 0 forgotten (now or before), 1 unknown game or player."""

    code: int
    lines: tuple[str, ...]


async def forget_player(settings: CommonSettings, game_id: str, player_id: str) -> ForgetReport:
    """Forget `player_id` of `game_id` in Redis and the archive (see `Forget.forget`).

    Raises: redis errors (Redis unreachable), archive errors (`ArchiveUnavailable`).
    """
    from services.bootstrap import build
    from services.platform.settings import ServiceSettings
    from services.usecases.names import UnknownGame, UnknownPlayer

    service = build(
        ServiceSettings(
            redis_url=settings.redis_url, shards=settings.shards, archive_url=settings.archive_url
        )
    )
    forget = service.cases.forget
    assert forget is not None  # the Redis ports keep names apart
    try:
        done = await forget.forget(game_id, player_id)
    except (UnknownGame, UnknownPlayer) as error:
        return ForgetReport(1, (str(error.args[0]),))
    finally:
        if service.ports.archive is not None:
            await service.ports.archive.close()
        await service.client.aclose()
    where = " and ".join({"hot": "Redis", "archive": "the archive"}[t] for t in done.tiers)
    lines: list[str] = []
    if done.already:
        lines.append(
            f"{player_id} of game {game_id} was forgotten already: shown as {done.pseudonym}"
        )
    else:
        lines.append(f"forgot {player_id} of game {game_id} in {where}: shown as {done.pseudonym}")
    side = done.side
    if side is not None and side.tournament is not None:
        tid, shown = side.tournament
        lines.append(f"tournament {tid}: shown as {shown}")
        if side.games:
            lines.append(f"the tournament's other games of {player_id}: {', '.join(side.games)}")
    for league_id, shown in side.leagues if side is not None else ():
        lines.append(f"league {league_id}: shown as {shown}")
    if not done.already:
        lines.append(
            "copies taken before now (Redis RDB/AOF, pg_dump, archive directory backups) still"
            " hold the name until they expire"
        )
    return ForgetReport(0, tuple(lines))
