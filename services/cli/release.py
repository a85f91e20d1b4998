"""`scoreledger release GAME`: resume a game the projector holds (`services.usecases.release`).

Connects like every other command (`services.bootstrap.build`, so `connect_from`: the Redis URL,
cluster mode, ACL user, password and TLS from the settings and the environment), releases the
game, then waits up to `wait_s` for a running projector to refold it to the log's version.
"""

from __future__ import annotations

from dataclasses import dataclass

from services.platform.settings import CommonSettings


@dataclass(frozen=True, slots=True)
class ReleaseReport:
    """What to print and the exit code: 0 released (or not held), 1 still held."""

    code: int
    lines: tuple[str, ...]


def _why(reason: dict[str, object] | None) -> str:
    reason = reason or {}
    field = f" [{reason['field']}]" if reason.get("field") else ""
    return f"{reason.get('rule', '?')}{field}: {reason.get('message', '')}"


async def release_game(settings: CommonSettings, game_id: str, wait_s: float) -> ReleaseReport:
    """Release `game_id` (see `Release.release`) and wait for the projector.

    Raises: redis errors (Redis unreachable).
    """
    from services.bootstrap import build
    from services.platform.settings import ServiceSettings
    from services.usecases.release import hold_reason

    service = build(ServiceSettings(redis_url=settings.redis_url, shards=settings.shards))
    release = service.cases.release
    try:
        outcome = await release.release(game_id)
        if outcome.status == "not_held":
            return ReleaseReport(0, (f"game {game_id} is not held (log at seq {outcome.version})",))
        if outcome.status == "still_failing":
            return ReleaseReport(
                1,
                (
                    f"game {game_id} stays held at seq {outcome.held_seq}: its log still does "
                    f"not fold at seq {outcome.seq}: {_why(outcome.reason)}",
                    "append a void or a correction (as a referee), then release again",
                ),
            )
        if outcome.status == "changed":
            return ReleaseReport(1, (f"game {game_id}: the hold changed meanwhile; try again",))
        head = await release.wait(game_id, outcome.version, wait_s)
        if head.held is not None:
            return ReleaseReport(
                1,
                (
                    f"game {game_id} was released and is held again at seq {head.held}: "
                    f"{_why(hold_reason(head))}",
                ),
            )
        if head.seq < outcome.version:
            return ReleaseReport(
                0,
                (
                    f"released game {game_id} (held at seq {outcome.held_seq}); the projector "
                    f"has not reached seq {outcome.version} within {wait_s:g} s (is one running?)",
                ),
            )
        return ReleaseReport(
            0,
            (
                f"released game {game_id} (held at seq {outcome.held_seq}); projected to seq "
                f"{head.seq}",
            ),
        )
    finally:
        await service.client.aclose()
