"""Reseed: a shard's projections refolded from the game streams, for a shard without a
checkpoint (a rebuild from checkpoint 0) whose feed was trimmed.

The shard feeds are trimmed once the checkpoint has passed (`adapters.redis.retention`); the
game streams remain the record. So a rebuild cannot read the trimmed part of a feed: it folds
every game of the shard from its stream (the pure domain, as the projector does), writes the
projections without moving the checkpoint, then moves the checkpoint to an id just before the
first entry the feed kept (its last id when it kept none). Every entry the feed lost was
appended before the streams were read, so it is included;
entries after it are read from the feed as usual and skipped by seq when already folded. A game
whose log does not fold is projected up to the event before and held there (dead-lettered,
like the projector does). Held games are left as they are (`scoreledger release`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

import structlog

from domain.standings import standings, standings_json
from services.ports.deadletters import DeadLetter, DeadLetters
from services.ports.eventlog import EventLog
from services.ports.projections import ProjectionBatch, ProjectionOp, Projections
from services.ports.shards import shard_of
from services.usecases.readmodels.render import view_json
from services.usecases.release import fold_until_refused

log = structlog.get_logger("projector")


@dataclass(eq=False, slots=True)
class Reseed:
    """Refolds a shard's games from their streams (see the module docstring).

    Args:
        shards: the deployment's shard count (which games are the shard's).
        chunk: games per projection write.
    """

    log: EventLog
    projections: Projections
    letters: DeadLetters
    shards: int
    changes_maxlen: int = 100_000
    chunk: int = 100
    clock: Callable[[], datetime] = lambda: datetime.now(UTC)

    async def _games(self, shard: int) -> list[str]:
        games: list[str] = []
        after: str | None = None
        while True:
            page = await self.log.list_games(after, 1000)
            games += [g for g in page.games if shard_of(g, self.shards) == shard]
            if page.next_after is None:
                return games
            after = page.next_after

    async def _ops(self, game_id: str, base_seq: int) -> list[ProjectionOp]:
        raws = await self.log.read_raw(game_id, 1)
        if len(raws) <= base_seq:
            return []
        folder, refused = fold_until_refused(raws)
        ops: list[ProjectionOp] = []
        if folder.started and folder.seq > base_seq:
            state = folder.state
            ops.append(
                ProjectionOp(
                    "apply",
                    game_id,
                    base_seq,
                    state.seq,
                    state.status,
                    state.game,
                    standings_json(state).decode(),
                    view_json=view_json(standings(state), state.cache),
                )
            )
        if refused is not None:
            seq, reason = refused
            log.error("projector.event_held", game_id=game_id, seq=seq, reason=reason)
            context: dict[str, str | int] = {"game": game_id, "seq": seq, "feed_id": "reseed"}
            await self.letters.put(DeadLetter(raws[seq - 1], reason, "projector", context))
            why = json.dumps({"seq": seq, **reason}, default=str)
            ops.append(ProjectionOp("hold", game_id, 0, seq, reason_json=why))
        return ops

    async def shard(self, shard: int, upto_feed_id: str) -> int:
        """Refold `shard`'s games from their streams, then move its checkpoint to
        `upto_feed_id` (read before this call, see the module docstring). Returns the games whose
        projection was written. Raises: storage errors (the caller retries; nothing is
        counted twice: each op applies only on the stored seq it was folded from)."""
        games = await self._games(shard)
        written = 0
        for i in range(0, len(games), self.chunk):
            chunk = games[i : i + self.chunk]
            ops: list[ProjectionOp] = []
            for game_id, head in zip(chunk, await self.projections.heads(chunk), strict=True):
                if head.held is None:
                    ops += await self._ops(game_id, head.seq)
            if ops:
                now = self.clock().isoformat()
                outcome = await self.projections.write(
                    ProjectionBatch(shard, "", ops, now), self.changes_maxlen
                )
                written += len({op.game_id for op in ops} - outcome.skipped)
        batch = ProjectionBatch(shard, upto_feed_id, (), self.clock().isoformat())
        await self.projections.write(batch, self.changes_maxlen)
        log.info("projector.reseeded", shard=shard, games=written, checkpoint=upto_feed_id)
        return written
