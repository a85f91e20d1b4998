"""The project use case: a shard's feed batch becomes new game states and one projection write.

The batch is folded in memory into the cached per-game `Folder`s (`domain.fold`: O(1) per
event, no state copies; a refused event leaves its folder unchanged), then one
`Projections.write` changes the projections, the change notices and the shard checkpoint
together (exactly-once effect: a batch at or before the checkpoint is skipped whole). An event
the fold refuses is dead-lettered and its game held at that seq; other games go on; `scoreledger
release` (`usecases.release`) resumes it. A malformed feed entry is dead-lettered alone, and a
feed copy that is not an event is replaced by the log's copy. A batch the appends
projected (`FeedEntry.live`) goes to `Projections.advance` first: the checkpoint moved in one
step, nothing decoded, if the projections reach it, else the heads for the fold
(docs/profiles/projector-round-trips.md). Pure apart from the ports (no feed reading).
Source: docs/decisions/0004-projector-catch-up-subscription.md; issue brief (projector).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import InitVar, dataclass, field
from datetime import UTC, datetime
from itertools import groupby
from operator import attrgetter
from typing import Any

import structlog

from services.ports.deadletters import DeadLetter, DeadLetters
from services.ports.eventlog import EventLog, FeedEntry, MalformedFeedEntry
from services.ports.feeds import LiveRead
from services.ports.names import PlayerNames
from services.ports.projections import (
    ProjectionBatch,
    ProjectionHead,
    Projections,
    feed_id_key,
)
from services.runtime.sizedcache import ByteLRU
from services.usecases.gameview import GameView, view_bytes
from services.usecases.projected import (
    first_seqs,
    live_lasts,
    live_reached,
    named,
    start_games,
    without_sealed,
)
from services.usecases.projectwork import GameWork, evolve, projection_ops

log = structlog.get_logger("projector")

MAX_RAW_BYTES = 1_048_576
"""Most bytes of a refused event kept in its dead letter (an appended event is far smaller)."""


@dataclass(frozen=True, slots=True)
class Applied:
    """What one batch did: events folded, the batch's last feed id (None: nothing new), and
    the rule of each malformed entry it dead-lettered (the door counts them)."""

    events: int
    last_feed_id: str | None
    malformed: tuple[str, ...] = ()


_game_id = attrgetter("game_id")

LETTER_KEEP_S = 30 * 86_400.0
"""How long a projector letter's once-marker is kept (as the inbox's `dead_letter_keep_s`): a
refused or malformed feed entry met again within it (another projector, a restart) is not
lettered twice."""


@dataclass(eq=False, slots=True)
class Project:
    """Applies feed batches of any shard; keeps a per-game state cache (at most `cache_games`).

    Args:
        log: the event log (to rebuild a game's state, and to fill a gap after a hold).
        projections: where batches are written.
        letters: where refused events go.
        changes_maxlen: approximate cap of each shard's change notices.
        clock: the time stamped as `updated_at` (UTC).
        names: the players' names kept outside the log (`ports.names`), put back into a fed
            start event (None: none; `log` puts them back into what it reads).
    """

    log: EventLog
    projections: Projections
    letters: DeadLetters
    changes_maxlen: int = 100_000
    cache_games: int = 10_000
    clock: Callable[[], datetime] = lambda: datetime.now(UTC)
    cache_bytes: InitVar[int] = 256 * 1024 * 1024
    names: PlayerNames | None = None
    # Bounded by games and estimated bytes (docs/decisions/0011-faults-are-answered-not-crashed.md); a view is re-put after its batch.
    views: ByteLRU[str, GameView] = field(init=False)

    def __post_init__(self, cache_bytes: int) -> None:
        self.views = ByteLRU(cache_bytes, view_bytes, self.cache_games)

    def forget(self) -> None:
        """Drop every cached state (after a failed write: the next batch rebuilds from storage)."""
        self.views.clear()

    async def _load_views(
        self, game_ids: Iterable[str], read: Mapping[str, ProjectionHead] | None = None
    ) -> None:
        """Put the views of `game_ids` missing from the cache into it: the stored projection's
        seq and hold (from `read`, the heads this apply read, else read now), and the state
        folded from the log up to that seq."""
        missing = [g for g in dict.fromkeys(game_ids) if g not in self.views]
        known = read or {}
        unread = [g for g in missing if g not in known]
        got = await self.projections.heads(unread) if unread else []
        heads = {**dict(zip(unread, got, strict=True)), **known}
        for game_id, head in ((g, heads[g]) for g in missing):
            lines = await self.log.read_raw(game_id, 1, head.seq) if head.seq else []
            self.views[game_id] = GameView.folded(lines, head.held)

    async def apply(
        self,
        shard: int,
        entries: Sequence[FeedEntry],
        malformed: Sequence[MalformedFeedEntry] = (),
        live: LiveRead | None = None,
    ) -> Applied:
        """Fold `entries` (feed order) and write the result in one `Projections.write`.

        A batch the appends projected goes to `Projections.advance` first: nothing folded and
        no `write` when it moves the checkpoint. Entries at or before the checkpoint are skipped;
        an event applied already (a restart), by seq. Never raises for a bad event. `malformed`:
        entries that are not events' entries, each dead-lettered alone before the checkpoint
        moves past it. `live`: the read's `LiveRead` (`FeedBatch.live`; every entry well-formed
        and live): then `entries` is not looked at unless the batch is folded. Raises: storage
        errors (the caller re-reads, then calls `forget`)."""
        ckpt = feed_id_key(await self.projections.checkpoint(shard))
        if live is not None and not malformed and feed_id_key(live.first_id) > ckpt:
            done, read = await self._advance(shard, live.last_id, live.lasts)
            if done:
                return Applied(0, live.last_id)
            return await self._fold_batch(shard, list(entries), live.last_id, (), read)
        # Feed ids only grow along a feed: past the checkpoint at the first entry, all are.
        fresh = (
            list(entries)
            if entries and feed_id_key(entries[0].feed_id) > ckpt
            else [e for e in entries if feed_id_key(e.feed_id) > ckpt]
        )
        rules = await self._dead_letter_malformed(shard, ckpt, malformed)
        last = malformed[-1].feed_id if rules else None
        if fresh and (last is None or feed_id_key(fresh[-1].feed_id) > feed_id_key(last)):
            last = fresh[-1].feed_id
        if last is None:
            return Applied(0, None)
        done, read = await self._advance(shard, last, live_lasts(fresh))
        if done:
            return Applied(0, last, rules)
        return await self._fold_batch(shard, fresh, last, rules, read)

    async def _fold_batch(
        self,
        shard: int,
        fresh: list[FeedEntry],
        last: str,
        rules: tuple[str, ...],
        read: Mapping[str, ProjectionHead] | None,
    ) -> Applied:
        """Fold `fresh` (the entries after the checkpoint) and write them with the checkpoint
        `last` (`apply`, after `_advance` said no: `read`, the heads it read)."""
        (fresh, read), names = await self._unprojected_named(fresh, read)
        fresh = await without_sealed(self.log, fresh, self.views, read)
        if not fresh:  # only malformed entries: move the checkpoint past them
            batch = ProjectionBatch(shard, last, (), self.clock().isoformat())
            await self.projections.write(batch, self.changes_maxlen)
            return Applied(0, last, rules)
        fresh = named(fresh, names)
        first = first_seqs(fresh)
        await self._refresh_held(first)
        await self._refresh_refed(first)
        await self._load_views(first, read)
        work: dict[str, GameWork] = {}
        try:
            await self._fold_into(work, fresh)
            ops = projection_ops(work)
            batch = ProjectionBatch(shard, last, ops, self.clock().isoformat())
            outcome = await self.projections.write(batch, self.changes_maxlen)
        except BaseException:
            for game_id in work:  # folded in place past what storage holds: rebuild them
                self.views.pop(game_id, None)
            raise
        for game_id, w in work.items():
            if outcome.stale or game_id in outcome.skipped:
                self.views.pop(game_id, None)  # someone else wrote it: rebuild from storage
            else:
                w.view.held = w.held
                self.views[game_id] = w.view  # folded further: its size estimate grows
        applied = (
            0
            if outcome.stale
            else sum(w.events for g, w in work.items() if g not in outcome.skipped)
        )
        return Applied(applied, last, rules)

    async def _advance(
        self, shard: int, last: str, lasts: Mapping[str, int] | None
    ) -> tuple[bool, Mapping[str, ProjectionHead] | None]:
        """For a batch whose games' last entries the appends projected (`lasts`: game -> its
        last seq, `live_lasts`): move the checkpoint to `last` if their projections reach
        them, heads check and write in one step (`Projections.advance`); True then (or when
        the batch was stale), else the heads it read, for the fold. (False, None) for any
        other batch (`lasts` None), which is folded."""
        if not lasts:
            return False, None
        advanced = await self.projections.advance(shard, last, lasts)
        if not (advanced.moved or advanced.stale):
            return False, advanced.heads  # some game not reached: folded, its heads read
        for game_id in lasts:  # a cached view is behind the appends' projections
            self.views.pop(game_id, None)
        return True, None

    async def _unprojected(
        self, fresh: Sequence[FeedEntry], read: Mapping[str, ProjectionHead] | None
    ) -> tuple[list[FeedEntry], dict[str, ProjectionHead]]:
        """`fresh` without the entries of games an append projected (`live_reached`; `read`:
        heads read already), whose cached views, behind it, are dropped; and the heads read
        (for `_load_views`). A cached view whose stored head has another seq or hold (an append
        projected part of the batch) is dropped too: `_load_views` loads it at the head, so the
        write's base seq is the stored one and the batch's entries up to it are skipped."""
        done, heads = await live_reached(self.projections, fresh, self.views, read)
        views = self.views
        for game_id, head in heads.items():
            view = views.get(game_id)
            if view is not None and (view.seq != head.seq or view.held != head.held):
                views.pop(game_id, None)
        if not done:  # a catch-up: no entry to drop
            return list(fresh), heads
        for game_id in done:
            views.pop(game_id, None)
        return [e for e in fresh if e.game_id not in done], heads

    async def _fold_into(self, work: dict[str, GameWork], fresh: Sequence[FeedEntry]) -> None:
        """Fold `fresh` (feed order) onto each game's view, one `GameWork` per game in `work`
        (filled as the games come, so the caller can drop them if anything fails)."""
        # per run of one game's entries (a catch-up reads a game's events in a row): its work
        # looked up, and its view's seq read through the property, once a run
        for game_id, run in groupby(fresh, _game_id):
            w = work.get(game_id)
            if w is None:
                if game_id not in self.views:  # evicted meanwhile
                    await self._load_views([game_id])
                view = self.views[game_id]
                w = work[game_id] = GameWork(view, view.seq, view.held, view.held)
            seq = w.seq
            for entry in run:
                if w.held is None and entry.seq == seq + 1:  # the usual case, no await
                    reason = evolve(w, entry.data)
                    if reason is None:
                        seq = w.view.folder.seq  # `w.seq`: the folder has started
                        continue
                    await self._refused_feed(w, entry, reason)
                else:
                    await self._fold_one(w, entry)
                seq = w.seq  # the view may have been refolded

    async def _unprojected_named(
        self, fresh: list[FeedEntry], read: Mapping[str, ProjectionHead] | None = None
    ) -> tuple[tuple[list[FeedEntry], dict[str, ProjectionHead]], dict[str, dict[str, str]]]:
        """`_unprojected(fresh)` and the names of the games of `fresh`'s possible start events
        (`start_games`: an entry of seq 1; `PlayerNames.names_many`), read together: in the
        heads' round trip, not one of their own (a catch-up meets a start event in most
        batches). None read when no entry may be a start event."""
        games = start_games(fresh) if self.names is not None else []
        if self.names is None or not games:
            return await self._unprojected(fresh, read), {}
        unprojected, kept = await asyncio.gather(
            self._unprojected(fresh, read), self.names.names_many(games)
        )
        return unprojected, dict(zip(games, kept, strict=True))

    async def _refresh_held(self, game_ids: Iterable[str]) -> None:
        """Drop the cached views of held games (of `game_ids`, each once) whose stored hold
        changed (`scoreledger release` cleared it), so `_load_views` refolds them from the log.
        One HMGET per held game in the batch; none when no game of the batch is held."""
        held = [g for g in game_ids if g in self.views and self.views[g].held]
        if not held:
            return
        for game_id, head in zip(held, await self.projections.heads(held), strict=True):
            view = self.views.get(game_id)  # another shard's apply may have evicted it
            if view is not None and (head.held != view.held or head.seq != view.seq):
                self.views.pop(game_id, None)

    async def _refresh_refed(self, first: Mapping[str, int]) -> None:
        """Drop the cached views of games whose first entry in the batch (`first`: game ->
        its first seq there) is not after the view (a restart re-reading, or a game fed again:
        restored from the archive, where its projection left Redis with it) and whose stored
        projection is not the view's seq, so `_load_views` refolds them from storage (an entry
        fed again by `forget`: `_refold`). One HMGET per such game; none usually."""
        suspects = [g for g, seq in first.items() if g in self.views and seq <= self.views[g].seq]
        if not suspects:
            return
        for game_id, head in zip(suspects, await self.projections.heads(suspects), strict=True):
            view = self.views.get(game_id)
            if view is not None and head.seq != view.seq:
                self.views.pop(game_id, None)

    async def _dead_letter_malformed(
        self, shard: int, ckpt: tuple[int, int], malformed: Sequence[MalformedFeedEntry]
    ) -> tuple[str, ...]:
        """Dead-letter (source `projector`) and log each malformed entry after the checkpoint;
        returns their rules (empty: none, or all at or before the checkpoint)."""
        rules: list[str] = []
        for entry in malformed:
            if feed_id_key(entry.feed_id) <= ckpt:
                continue  # dead-lettered by the run that moved the checkpoint past it
            reason = {"kind": "invalid", "rule": entry.rule, "field": entry.field}
            reason["message"] = entry.message
            context: dict[str, str | int] = {"feed_id": entry.feed_id, "shard": shard}
            if entry.game_id is not None:
                context["game"] = entry.game_id
            log.error("projector.feed_entry_malformed", **context, reason=reason)
            letter = DeadLetter(entry.raw, reason, "projector", context)
            await self.letters.put_once(letter, f"projector:{shard}:{entry.feed_id}", LETTER_KEEP_S)
            rules.append(entry.rule)
        return tuple(rules)

    async def _fold_one(self, w: GameWork, entry: FeedEntry) -> None:
        current = w.seq
        if w.held is not None:
            return
        if entry.seq <= current:  # applied before a restart, or fed again by `forget`
            if self.names is not None and not w.refolded:
                await self._refold(w, entry.game_id)
            return
        if entry.seq > current + 1:  # a gap (e.g. after a released hold): fill from the log
            for raw in await self.log.read_raw(entry.game_id, current + 1, entry.seq - 1):
                if not await self._step(w, entry, raw):
                    return
        await self._step_feed(w, entry)

    async def _refold(self, w: GameWork, game_id: str) -> None:
        """Fold `w`'s game again from the log up to its seq, with the names as they are now:
        a forget feeds the game's last event again, and the cached fold (and what this batch
        folded onto it) still holds the forgotten name (docs/forget.md). Once per batch."""
        lines = await self.log.read_raw(game_id, 1, w.seq)
        w.view, w.refolded = GameView.folded(lines, w.view.held), True

    async def _step(self, w: GameWork, entry: FeedEntry, data: bytes) -> bool:
        reason = evolve(w, data)
        if reason is None:
            return True
        await self._hold(w, entry, data, reason)
        return False

    async def _step_feed(self, w: GameWork, entry: FeedEntry) -> None:
        """Fold the feed entry's event. A feed copy that is not an event while the log's copy
        of that seq differs is dead-lettered alone and the log's copy is folded instead (the
        game stream is the record); otherwise a refused event holds its game."""
        reason = evolve(w, entry.data)
        if reason is not None:
            await self._refused_feed(w, entry, reason)

    async def _refused_feed(self, w: GameWork, entry: FeedEntry, reason: dict[str, Any]) -> None:
        """The feed entry's event was refused for `reason` (see `_step_feed`)."""
        if reason["kind"] == "invalid":
            stored = await self.log.read_raw(entry.game_id, entry.seq, entry.seq)
            if stored and stored[0] != entry.data:
                why = {"kind": "invalid", "rule": "feed.data_invalid", "field": "data"}
                why["message"] = (
                    f"not an event, unlike the log's seq {entry.seq}: {reason['message']}"
                )
                context: dict[str, str | int] = {"game": entry.game_id, "seq": entry.seq}
                context["feed_id"] = entry.feed_id
                log.error("projector.feed_entry_malformed", **context, reason=why)
                letter = DeadLetter(entry.data[:MAX_RAW_BYTES], why, "projector", context)
                once = f"projector:feed:{entry.game_id}:{entry.feed_id}"
                await self.letters.put_once(letter, once, LETTER_KEEP_S)
                await self._step(w, entry, stored[0])
                return
        await self._hold(w, entry, entry.data, reason)

    async def _hold(
        self, w: GameWork, entry: FeedEntry, data: bytes, reason: dict[str, Any]
    ) -> None:
        """Hold `w`'s game at its next seq and dead-letter the refused event."""
        seq = w.seq + 1
        w.held, w.reason = seq, reason
        log.error("projector.event_held", game_id=entry.game_id, seq=seq, reason=reason)
        context: dict[str, str | int] = {"game": entry.game_id, "seq": seq}
        context["feed_id"] = entry.feed_id
        letter = DeadLetter(data[:MAX_RAW_BYTES], reason, "projector", context)
        # once per (game, seq, feed entry): a projector fenced off after it lettered, and the
        # owner that takes the shard over and holds the game again, write one letter
        once = f"projector:held:{entry.game_id}:{seq}:{entry.feed_id}"
        await self.letters.put_once(letter, once, LETTER_KEEP_S)
