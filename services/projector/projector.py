"""The projector's core: fold a shard's feed batch into per-game standings, write atomically.

One ordered reader per shard (catch-up, no consumer group). A batch is folded in memory onto
the cached `GameState`s, then one Lua call writes projections, ledgers, change notices and the
checkpoint. A bad event is dead-lettered and its game held; other games go on.
Source: research/tech.md §3.4; issue brief (projector).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime

import redis.asyncio as aioredis
import structlog
from pydantic import TypeAdapter, ValidationError
from redis.exceptions import RedisError

from contracts.common import EventVoided
from contracts.envelope import Envelope
from contracts.events import parse_event_json
from domain.errors import RuleViolation
from domain.fold import GameState, evolve, fold
from domain.ledger import LedgerEntry
from domain.standings import standings
from services.adapters.redis.deadletters import dead_letter
from services.adapters.redis.eventlog import EventStore
from services.adapters.redis.project_lua import APPLY_LUA
from services.keys import Keys, shard_of
from services.metrics import APPLY_LATENCY, EVENTS_APPLIED, PROJECTOR_LAG

log = structlog.get_logger("projector")
_LEDGER_ENTRY = TypeAdapter(LedgerEntry)
START_ID = "0-0"


@dataclass(slots=True)
class GameView:
    """The projector's view of one game: the state at the projection's seq, or held."""

    state: GameState | None
    held: int | None = None

    @property
    def seq(self) -> int:
        return self.state.seq if self.state is not None else 0


@dataclass(slots=True)
class _Work:
    """One game's changes within a batch."""

    base: GameView
    state: GameState | None
    replace_ledger: bool = False
    held: int | None = None
    events: int = 0


def _id_key(stream_id: str) -> tuple[int, int]:
    ms, _, seq = stream_id.partition("-")
    return int(ms), int(seq)


class Projector:
    """Applies feed batches of any shard; keeps a per-game state cache and per-shard checkpoints.

    `client` is a `redis.asyncio.Redis` without `decode_responses`; give it a redis-py `Retry`
    so a short outage is retried (the apply script is idempotent).
    """

    def __init__(
        self,
        client: aioredis.Redis,
        keys: Keys,
        changes_maxlen: int = 100_000,
        cache_games: int = 10_000,
    ) -> None:
        self.client = client
        self.keys = keys
        self.store = EventStore(client, keys)
        self.changes_maxlen = changes_maxlen
        self.cache_games = cache_games
        self.views: dict[str, GameView] = {}
        self.checkpoints: dict[int, str] = {}
        self._recover: set[int] = set()
        self._apply = client.register_script(APPLY_LUA)

    async def load_checkpoint(self, shard: int) -> str:
        """The shard's stored checkpoint (last applied feed id), `0-0` when none."""
        stored = await self.client.get(self.keys.checkpoint(shard))
        self.checkpoints[shard] = stored.decode() if stored else START_ID
        return self.checkpoints[shard]

    async def view(self, game_id: str) -> GameView:
        """The game's view at its projection's stored seq: from the cache, else rebuilt by
        folding the game stream up to that seq (a restart or a cache miss)."""
        await self._load_views([game_id])
        return self.views[game_id]

    async def _load_views(self, game_ids: list[str]) -> None:
        """Put every game of `game_ids` missing from the cache into it: one pipelined HMGET
        for all, then one pipelined XRANGE for those with a stored projection."""
        missing = [g for g in dict.fromkeys(game_ids) if g not in self.views]
        if not missing:
            return
        async with self.client.pipeline(transaction=False) as pipe:
            for game_id in missing:
                pipe.hmget(self.keys.projection(game_id), ["seq", "held"])
            stored = await pipe.execute()
        upto = {g: int(seq) for g, (seq, _) in zip(missing, stored, strict=True) if seq}
        logs: dict[str, list[bytes]] = {}
        if upto:
            async with self.client.pipeline(transaction=False) as pipe:
                for game_id, seq in upto.items():
                    pipe.xrange(self.keys.game_stream(game_id), "1-1", f"{seq}-1")
                for game_id, entries in zip(upto, await pipe.execute(), strict=True):
                    logs[game_id] = [fields[b"data"] for _, fields in entries]
        for game_id, (_, held) in zip(missing, stored, strict=True):
            state = fold(parse_event_json(d) for d in logs[game_id]) if game_id in logs else None
            if len(self.views) >= self.cache_games:
                self.views.pop(next(iter(self.views)))
            self.views[game_id] = GameView(state, int(held) if held else None)

    async def handle(self, shard: int, ids: list[str], entries: list[dict[bytes, bytes]]) -> None:
        """Apply one feed batch of `shard` (ids and field maps, in feed order). Never raises for
        a bad event; a Redis failure is logged and the batch re-read from the feed next time."""
        if shard not in self.checkpoints:
            await self.load_checkpoint(shard)
        try:
            if shard in self._recover and ids:
                ids, entries = await self._with_missed(shard, ids, entries)
            await self._apply_batch(shard, ids, entries)
            self._recover.discard(shard)
        except RedisError:
            # FastStream's XREAD moved on: re-read from the checkpoint with the next batch.
            log.exception("projector.batch_failed", shard=shard, first=ids[0] if ids else None)
            self._recover.add(shard)
            self.views.clear()

    async def _with_missed(self, shard: int, ids: list[str], entries: list[dict[bytes, bytes]]):
        missed = await self.client.xrange(
            self.keys.feed(shard), f"({self.checkpoints[shard]}", f"({ids[0]}"
        )
        return [i.decode() for i, _ in missed] + ids, [f for _, f in missed] + entries

    async def _apply_batch(
        self, shard: int, ids: list[str], entries: list[dict[bytes, bytes]]
    ) -> None:
        started = time.perf_counter()
        ckpt = _id_key(self.checkpoints[shard])
        work: dict[str, _Work] = {}
        fresh = [(i, e) for i, e in zip(ids, entries, strict=True) if _id_key(i) > ckpt]
        if not fresh:
            return
        games = [fields[b"game"].decode() for _, fields in fresh]
        await self._load_views(games)
        for game_id, (feed_id, fields) in zip(games, fresh, strict=True):
            w = work.get(game_id)
            if w is None:
                base = self.views.get(game_id) or await self.view(game_id)  # evicted meanwhile
                w = work[game_id] = _Work(base=base, state=base.state, held=base.held)
            seq, data = int(fields[b"seq"]), fields[b"data"]
            if w.held is None and seq == (w.state.seq if w.state is not None else 0) + 1:
                reason = self._evolve_sync(w, data)  # the common case: no await per event
                if reason is not None:
                    await self._hold(w, game_id, data, feed_id, reason)
            else:
                await self._fold_one(w, game_id, seq, data, feed_id)
        skipped = await self._write(shard, fresh[-1][0], work)
        for game_id, w in work.items():
            if game_id in skipped:
                self.views.pop(game_id, None)  # someone else wrote it: rebuild from Redis
            else:
                self.views[game_id] = GameView(w.state, w.held)
                EVENTS_APPLIED.labels(shard=str(shard)).inc(w.events)
        self.checkpoints[shard] = fresh[-1][0]
        APPLY_LATENCY.labels(shard=str(shard)).observe(time.perf_counter() - started)
        PROJECTOR_LAG.labels(shard=str(shard)).set(
            max(0.0, time.time() - _id_key(fresh[-1][0])[0] / 1000)
        )

    async def _fold_one(self, w: _Work, game_id: str, seq: int, data: bytes, feed_id: str) -> None:
        current = w.state.seq if w.state is not None else 0
        if w.held is not None or seq <= current:
            return  # held game, or already applied before a restart
        if seq > current + 1:  # a gap (e.g. after a released hold): fill from the game stream
            for raw in await self.store.read_raw(game_id, current + 1, seq - 1):
                if not await self._evolve(w, game_id, raw, feed_id):
                    return
        await self._evolve(w, game_id, data, feed_id)

    async def _evolve(self, w: _Work, game_id: str, data: bytes, feed_id: str) -> bool:
        reason = self._evolve_sync(w, data)
        if reason is None:
            return True
        await self._hold(w, game_id, data, feed_id, reason)
        return False

    async def _hold(
        self, w: _Work, game_id: str, data: bytes, feed_id: str, reason: dict[str, object]
    ) -> None:
        """Hold the game at the event that failed and dead-letter it."""
        seq = (w.state.seq if w.state is not None else 0) + 1
        w.held = seq
        log.error("projector.event_held", game_id=game_id, seq=seq, reason=reason)
        await dead_letter(
            self.client,
            self.keys,
            data,
            reason,
            "projector",
            game=game_id,
            seq=seq,
            feed_id=feed_id,
        )

    @staticmethod
    def _evolve_sync(w: _Work, data: bytes) -> dict[str, object] | None:
        """Parse and fold one event onto `w`; the dead-letter reason when it cannot be."""
        try:
            event: Envelope = parse_event_json(data)
            w.state = evolve(w.state, event)
        except (RuleViolation, ValidationError, ValueError) as error:
            reason = error.to_dict() if isinstance(error, RuleViolation) else {"error": str(error)}
        except Exception as error:  # a ruleset bug must not stop the projector
            reason = {"error": f"{type(error).__name__}: {error}"}
        else:
            w.events += 1
            w.replace_ledger |= isinstance(event.payload, EventVoided)
            return None
        return reason

    async def _write(self, shard: int, last_id: str, work: dict[str, _Work]) -> set[str]:
        keys = [self.keys.checkpoint(shard), self.keys.changes(shard)]
        args: list[str | int] = [last_id, self.changes_maxlen, datetime.now(UTC).isoformat(), 0]
        ops: list[str] = []
        for game_id, w in work.items():
            if w.state is not None and w.state.seq > w.base.seq:
                ops.append(game_id)
                keys += [self.keys.projection(game_id), self.keys.ledger(game_id)]
                args += self._apply_op(game_id, w)
            if w.held is not None and w.base.held is None:
                ops.append(game_id)
                keys += [self.keys.projection(game_id), self.keys.ledger(game_id)]
                args += ["hold", game_id, 0, w.held, "", "", "", "append", 0]
        args[3] = len(ops)
        out = await self._apply(keys=keys, args=args)
        if out == -1:
            return set(work)
        return {ops[i - 1] for i in out}

    @staticmethod
    def _apply_op(game_id: str, w: _Work) -> list[str | int]:
        assert w.state is not None
        base_len = len(w.base.state.ledger) if w.base.state is not None else 0
        new = w.state.ledger if w.replace_ledger else w.state.ledger[base_len:]
        table = standings(w.state)
        return [
            "apply",
            game_id,
            w.base.seq,
            w.state.seq,
            w.state.status,
            w.state.game,
            table.model_dump_json(),
            "replace" if w.replace_ledger else "append",
            len(new),
            *(_LEDGER_ENTRY.dump_json(e).decode() for e in new),
        ]

    def shard_of(self, game_id: str) -> int:
        """The feed shard of a game (for callers that wait on a checkpoint)."""
        return shard_of(game_id, self.keys.shards)
