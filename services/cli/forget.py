"""`scoreledger forget GAME PLAYER` (and `forget TOURNAMENT PLAYER --tournament`): make a
player's name unreadable in every tier (`services.usecases.names.Forget`), an operator's
command.

Connects like every other command (`services.bootstrap.build`: the Redis URL, cluster mode,
ACL user, password and TLS from the settings and the environment; the archive of
`SCORELEDGER_ARCHIVE_URL` when set), forgets (in the game, and in its tournament, the
tournament's other table games and the leagues that added them; or from a tournament, in it,
all its table games seating the player and those leagues), and prints what changed.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from services.platform.settings import CommonSettings

if TYPE_CHECKING:
    from services.usecases.names import Forget
    from services.usecases.side_names import SideForgotten

COPIES = (
    "copies taken before now (Redis RDB/AOF, pg_dump, archive directory backups) still"
    " hold the name until they expire"
)


_TIERS = {
    "hot": "Redis",
    "archive": "the archive",
    "webhooks": "the webhook deliveries kept",
    "letters": "the dead letters kept",
}
"""How the report names each tier `Forget` changed."""


@dataclass(frozen=True, slots=True)
class ForgetReport:
    """What to print and the exit code: 0 forgotten (now or before), 1 unknown game,
    tournament or player, or a game a seal kept busy (nothing changed)."""

    code: int
    lines: tuple[str, ...]


@asynccontextmanager
async def _forget_case(settings: CommonSettings) -> AsyncIterator[Forget]:
    from services.bootstrap import build
    from services.platform.settings import ServiceSettings

    service = build(
        ServiceSettings(
            redis_url=settings.redis_url, shards=settings.shards, archive_url=settings.archive_url
        )
    )
    forget = service.cases.forget
    assert forget is not None  # the Redis ports keep names apart
    try:
        yield forget
    finally:
        if service.ports.archive is not None:
            await service.ports.archive.close()
        await service.client.aclose()


def _side_lines(player_id: str, side: SideForgotten | None, games_line: str) -> list[str]:
    lines: list[str] = []
    if side is not None and side.tournament is not None:
        tid, shown = side.tournament
        lines.append(f"tournament {tid}: shown as {shown}")
        if side.judge is not None and side.judge != shown:  # a player and a judge of one id
            lines.append(f"tournament {tid}: the judge {player_id} shown as {side.judge}")
        if side.games:
            lines.append(f"{games_line} of {player_id}: {', '.join(side.games)}")
    for league_id, shown in side.leagues if side is not None else ():
        lines.append(f"league {league_id}: shown as {shown}")
    return lines


async def forget_player(settings: CommonSettings, game_id: str, player_id: str) -> ForgetReport:
    """Forget `player_id` of `game_id` in Redis and the archive, and beside the game (see
    `Forget.forget`).

    Raises: redis errors (Redis unreachable), archive errors (`ArchiveUnavailable`).
    """
    from services.usecases.names import GameBusy, UnknownGame, UnknownPlayer

    async with _forget_case(settings) as forget:
        try:
            done = await forget.forget(game_id, player_id)
        except (UnknownGame, UnknownPlayer, GameBusy) as error:
            return ForgetReport(1, (str(error.args[0]),))
    where = " and ".join(_TIERS[c.tier] for c in done.changes if c.changed)
    if done.already:
        first = f"{player_id} of game {game_id} was forgotten already: shown as {done.pseudonym}"
    else:
        first = f"forgot {player_id} of game {game_id} in {where}: shown as {done.pseudonym}"
    lines = [first, *_side_lines(player_id, done.side, "the tournament's other games")]
    if done.already:
        return ForgetReport(0, tuple(lines))
    lines += [f"{_TIERS[c.tier]}: {c.what}" for c in done.changes]
    return ForgetReport(0, (*lines, COPIES))


async def forget_tournament_player(
    settings: CommonSettings, tournament_id: str, player_id: str
) -> ForgetReport:
    """Forget `player_id` of tournament `tournament_id`, its table games and the leagues
    that added them (see `Forget.forget_tournament`).

    Raises: redis errors (Redis unreachable), archive errors (`ArchiveUnavailable`).
    """
    from services.usecases.names import GameBusy
    from services.usecases.side_names import NotNamed

    async with _forget_case(settings) as forget:
        try:
            side, games = await forget.forget_tournament(tournament_id, player_id)
        except (NotNamed, GameBusy) as error:
            return ForgetReport(1, (str(error.args[0]),))
    lines = _side_lines(player_id, side, "the tournament's games")
    lines += [f"game {g.game_id}: shown as {g.pseudonym}" for g in games]
    return ForgetReport(0, (*lines, COPIES))
