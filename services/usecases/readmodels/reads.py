"""The read models over the ports: every read route calls one method here, none folds a log.

* `games`: every game with its projection's status; live first.
* `standings_body`: the live standings (`StandingsResponse` JSON): the view the projector
  rendered, passed through; `standings_at`: a replay of the first N events.
* `events_page`: the audit log, paged, voids marked; `ledger`: one player's every point.
* `series`, `timeline`, `dispute`: replays for the scoreboard (`replay.py`).
* `score_sheet`, `bgstats`, `events_jsonl`: exports (`exports.py`).
Errors: `NotFound` (404 at the HTTP door), `Pending` (no projection yet: 503).
Every O(n) read runs in a worker process (`offloop.Replays`, the work in `work.py`).
Source: issue brief (query service, scoreboard, exports); docs/decisions/0012-hot-reads-and-off-loop-replays.md.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from contracts.envelope import Envelope
from domain.memo import Memo
from domain.standings import Standings
from services.archive.usecases.tiered import TieredEventLog
from services.ports.eventlog import EventLog
from services.ports.projections import Projections
from services.runtime import pool
from services.runtime.fairqueue import FairQueue, Limits
from services.runtime.sizedcache import ByteLRU
from services.usecases.readmodels import work
from services.usecases.readmodels.errors import NotFound, Pending
from services.usecases.readmodels.jsonlexport import CHUNK, jsonl_chunks
from services.usecases.readmodels.offloop import LOCAL, LogSource, Replays
from services.usecases.readmodels.render import view_json, with_position
from services.usecases.readmodels.shapes import (
    EventsPage,
    GameSummary,
    LedgerResponse,
    StandingsResponse,
)
from services.usecases.readmodels.snapshots import SnapshotConfig, page_job, state_job

__all__ = ["NotFound", "Pending", "ReadModels"]


class ReadModels:
    """Reads of the query service, the scoreboard and the exports.

    Args:
        log: the event log (replays, audit log, ledger, exports).
        projections: the projector's output (live standings, games list, lag).
        cache_games: games whose rendered standings body is kept.
        replay_source: how the replay workers open the log themselves (`offloop.LogSource`).
        limits: the replay queue's bounds (`fairqueue.Limits`; default: its defaults, one slot
            per worker process).
        snapshots: how the workers keep snapshots of folded games (`snapshots.SnapshotConfig`).
        names_stamp: a game's kept names as a hashable stamp, part of each replay result's
            key (`offloop.Replays`; None: names are not kept apart).

    Every replay-class read takes `client` (the caller's address, as the door knows it): its
    turn and its limit in the replay queue.
    """

    def __init__(
        self,
        log: EventLog,
        projections: Projections,
        cache_games: int = 10_000,
        cache_bytes: int = 32 * 1024 * 1024,
        replay_source: LogSource | None = None,
        limits: Limits | None = None,
        snapshots: SnapshotConfig | None = None,
        names_stamp: Callable[[str], Awaitable[Hashable]] | None = None,
    ) -> None:
        self.log = log
        self.projections = projections
        self.cache_games = cache_games
        # game_id -> (stored standings JSON, its rendered body without checkpoint/updated_at),
        # bounded by games and bytes (docs/decisions/0011-faults-are-answered-not-crashed.md)
        self._bodies: ByteLRU[str, tuple[bytes, bytes]] = ByteLRU(
            cache_bytes, lambda item: len(item[0]) + len(item[1]) + 200, cache_games
        )
        self.export_chunk = CHUNK
        """Events per chunk of the JSONL export (each chunk one turn of the replay queue)."""
        queue = FairQueue(limits or Limits(slots=pool.PROCESSES))
        self.replays = Replays(
            log, max_bytes=cache_bytes, source=replay_source, queue=queue, stamp=names_stamp
        )
        config = snapshots or SnapshotConfig()
        # what a worker runs instead of a fold from the first event (picklable partials)
        self._at_state = functools.partial(state_job, config)
        self._page = functools.partial(page_job, config)

    async def version(self, game_id: str) -> int:
        """The game's version.

        Raises:
            NotFound: `game_not_found`, the game has no events.
        """
        version = await self.log.version(game_id)
        if version == 0:
            raise NotFound("game_not_found", f"no game {game_id!r}", "game_id")
        return version

    async def events(self, game_id: str, to_seq: int | None = None) -> list[Envelope]:
        """The game's log up to `to_seq` (raises `NotFound` for a game with no events)."""
        await self.version(game_id)
        return await self.log.read(game_id, 1, to_seq)

    async def tail(self, game_id: str, count: int) -> list[Envelope]:
        """The game's last `count` events (fewer for a shorter log; none for an unknown game)."""
        version = await self.log.version(game_id)
        if version == 0:
            return []
        return await self.log.read(game_id, max(1, version - count + 1))

    async def games(self) -> list[GameSummary]:
        """Every stored game with its projection's status; live games first, then by update."""
        return self._ordered(await self._summaries(await _all_ids(self.log)))

    async def games_page(self, page: int, limit: int) -> tuple[list[GameSummary], int]:
        """One page (1-based, `limit` games) of `games()`'s list over both tiers, and the total.

        The same order as before sealing: live and pending games (all in Redis), then the final
        ones most recently updated first (then by id), where Redis's final games are merged with
        the archive's (`Archive.list_by_update`, read only as far as the page reaches, one
        projection per listed game), so a page costs about the same with a year of archived
        games. A reopened game (in Redis and in the archive) is listed once, with Redis's
        figures. Without an archive: `games()` paged."""
        start = (page - 1) * limit
        if not isinstance(self.log, TieredEventLog):
            games = await self.games()
            return games[start : start + limit], len(games)
        hot_ids = await _all_ids(self.log.hot)
        hot = self._ordered(await self._summaries(hot_ids))
        archive = self.log.archive.archive
        shadowed = sum(e is not None for e in await archive.entries(hot_ids)) if hot_ids else 0
        total = len(hot) + await archive.count() - shadowed
        live = [g for g in hot if g.status != "final"]
        chosen: list[GameSummary | str] = list(live[start : start + limit])
        skip = max(0, start - len(live))
        finals = [g for g in hot if g.status == "final"]
        known, i = set(hot_ids), 0
        after: tuple[str, str] | None = None
        cold: list[tuple[str, str]] = []
        cold_done = False
        while len(chosen) < limit:
            if not cold and not cold_done:
                listed = await archive.list_by_update(after, 1000)
                cold = [p for p in listed if p[1] not in known]
                cold_done = not listed
                after = listed[-1] if listed else after
                if listed and not cold:
                    continue
            hot_next = finals[i] if i < len(finals) else None
            if hot_next is None and not cold:
                break
            if cold and (hot_next is None or _before(cold[0], hot_next)):
                item: GameSummary | str = cold.pop(0)[1]
            else:
                assert hot_next is not None
                item, i = hot_next, i + 1
            if skip:
                skip -= 1
            else:
                chosen.append(item)
        summaries = iter(await self._summaries([g for g in chosen if isinstance(g, str)]))
        return [g if not isinstance(g, str) else next(summaries) for g in chosen], total

    @staticmethod
    def _ordered(summaries: list[GameSummary]) -> list[GameSummary]:
        order = {"in_progress": 0, "pending": 1, "final": 2}
        summaries.sort(key=lambda g: g.game_id)  # equal keys below keep one order on every page
        summaries.sort(key=lambda g: g.updated_at or "", reverse=True)  # stable: then by status
        summaries.sort(key=lambda g: order[g.status])
        return summaries

    async def _summaries(self, ids: list[str]) -> list[GameSummary]:
        """Each game's summary (projection and version), in `ids`' order."""
        if not ids:
            return []
        projections = await self.projections.get_many(ids)
        versions = await self.log.versions(ids)
        summaries = []
        for game_id, proj, version in zip(ids, projections, versions, strict=True):
            summaries.append(
                GameSummary(
                    game_id=game_id,
                    game=proj.game if proj else None,
                    status=proj.status if proj else "pending",  # type: ignore[arg-type]
                    seq=proj.seq if proj else 0,
                    version=version,
                    updated_at=proj.updated_at if proj else None,
                )
            )
        return summaries

    async def standings_body(self, game_id: str) -> bytes:
        """The `GET /games/{id}/standings` JSON body (source `projection`): one read of the
        stored view, rendered once per change by the projector (`ProjectionOp.view_json`), its
        bytes passed through; the checkpoint and `updated_at` appended as JSON. Without a view
        of the stored seq (an older projector wrote it) the stored standings are rendered here,
        once per stored value (compared as bytes, nothing decoded), to the same bytes.

        Raises:
            NotFound: no such game. Pending: stored, not projected yet.
        """
        stored = await self.projections.standings(game_id)
        if stored is None:
            await self.version(game_id)
            raise Pending(f"game {game_id!r} is stored but not projected yet; retry")
        head = stored.view or self._rendered(game_id, stored.standings or b"")
        return with_position(head, stored.checkpoint, stored.updated_at)

    def _rendered(self, game_id: str, standings: bytes) -> bytes:
        """The view of the stored `standings` JSON (`render.view_json`: an older projector's
        value, stored without its view), rendered once per stored value."""
        cached = self._bodies.get(game_id)
        if cached is not None and cached[0] == standings:
            return cached[1]
        head = view_json(Standings.model_validate_json(standings), Memo())
        self._bodies.put(game_id, (standings, head))
        return head

    async def standings_at(
        self, game_id: str, at_seq: int, *, client: str = LOCAL
    ) -> StandingsResponse:
        """The standings after event `at_seq`, by replaying the log (source `replay`).

        Raises:
            NotFound: no such game, or `seq_not_found` past its version.
        """
        version = await self.version(game_id)
        if at_seq > version:
            raise NotFound(
                "seq_not_found", f"game {game_id!r} has {version} events; at_seq={at_seq}", "at_seq"
            )
        return await self.replays.run(
            "standings_at",
            game_id,
            version,
            work.standings_of,
            upto=at_seq,
            client=client,
            job=self._at_state,
        )

    async def events_page(
        self, game_id: str, from_seq: int, limit: int, *, client: str = LOCAL
    ) -> EventsPage:
        """The audit log from `from_seq`, `limit` events; voids found anywhere in the log (a
        worker reads the page's range, and its index of the game's voids: `snapshots`)."""
        version = await self.version(game_id)
        return await self.replays.run(
            ("events", from_seq, limit),
            game_id,
            version,
            work.events_page_of,
            (from_seq, limit),
            client=client,
            job=self._page,
        )

    async def ledger(self, game_id: str, player_id: str, *, client: str = LOCAL) -> LedgerResponse:
        """Every change of the player's resources with its event (the log folded, so voided
        events contribute nothing). Raises `NotFound` (`player_not_found` too)."""
        return await self.ledger_at(game_id, player_id, None, client=client)

    async def ledger_at(
        self, game_id: str, player_id: str, at_seq: int | None, *, client: str = LOCAL
    ) -> LedgerResponse:
        """The player's ledger after event `at_seq` (the whole log when None), so a replayed
        ledger agrees with the replayed standings. Raises `NotFound` (`seq_not_found` past the
        version, `player_not_found`)."""
        version = await self.version(game_id)
        if at_seq is not None and at_seq > version:
            raise NotFound(
                "seq_not_found", f"game {game_id!r} has {version} events; at_seq={at_seq}", "at_seq"
            )
        return await self.replays.run(
            ("ledger", player_id),
            game_id,
            version,
            work.ledger_of,
            (player_id,),
            at_seq,
            client=client,
            job=self._at_state,
        )

    async def series(self, game_id: str, *, client: str = LOCAL) -> bytes:
        """`replay.series` of the game's log, as JSON (rendered in the worker: it is O(n))."""
        version = await self.version(game_id)
        return await self.replays.run("series", game_id, version, work.series_json, client=client)

    async def timeline(self, game_id: str, *, client: str = LOCAL) -> bytes:
        """`replay.timeline` of the game's log, as JSON (rendered in the worker: it is O(n))."""
        version = await self.version(game_id)
        return await self.replays.run(
            "timeline", game_id, version, work.timeline_json, client=client
        )

    async def dispute(
        self, game_id: str, event_id: str, now: datetime, *, client: str = LOCAL
    ) -> dict[str, Any]:
        """`replay.compare_state`: the standings with and without one event (the state at the
        version from the workers' snapshots; the void refolds from the fold's mark before the
        event)."""
        version = await self.version(game_id)
        try:  # the hypothetical void's time stamp shows nowhere in the answer: cache it
            return await self.replays.run(
                ("dispute", event_id),
                game_id,
                version,
                work.dispute_of,
                (event_id, now),
                client=client,
                job=self._at_state,
            )
        except LookupError as error:
            raise NotFound("event_not_found", str(error), "event_id") from None

    async def score_sheet(
        self, game_id: str, lang: str, tz: ZoneInfo, bom: bool, *, client: str = LOCAL
    ) -> str:
        """The score sheet CSV (`exports.score_sheet_csv`): labels in `lang`, the date in `tz`,
        a UTF-8 BOM first when `bom`."""
        return await self.replays.run(
            ("score_sheet", lang, str(tz), bom),
            game_id,
            await self.version(game_id),
            work.score_sheet,
            (lang, tz, bom),
            client=client,
        )

    async def bgstats(
        self,
        game_id: str,
        tz: ZoneInfo,
        location: str | None,
        in_progress: bool,
        *,
        client: str = LOCAL,
    ) -> dict[str, Any]:
        """The BG Stats play record and its link (`exports.bgstats_play`); `final` says whether
        the game ended.

        Raises:
            NotFound: no such game. NotAFinishedPlay: in progress and not `in_progress`.
        """
        key = ("bgstats", str(tz), location, in_progress)
        args = (tz, location, in_progress)
        version = await self.version(game_id)
        return await self.replays.run(key, game_id, version, work.bgstats, args, client=client)

    async def events_jsonl(self, game_id: str, *, client: str = LOCAL) -> AsyncIterator[bytes]:
        """The game's log as JSONL, one stored envelope per line, byte for byte as appended
        (old schema versions are not upcast: this is the evidence for a dispute), in chunks of
        `export_chunk` events, each read in `client`'s turn of the replay queue
        (`jsonlexport`).

        Raises:
            NotFound: no such game. ReplayRefused: the first chunk refused by the queue.
        """
        version = await self.version(game_id)
        queue = self.replays.queue
        return await jsonl_chunks(self.log, queue, game_id, version, client, self.export_chunk)

    async def events_jsonl_text(self, game_id: str) -> str:
        """`events_jsonl` joined into one text (the CLI's `export`)."""
        return b"".join([c async for c in await self.events_jsonl(game_id)]).decode()

    async def lag(self, cap: int) -> int:
        """Projector lag in feed entries (see `Projections.lag`)."""
        return await self.projections.lag(cap)


async def _all_ids(log: EventLog) -> list[str]:
    """Every game id `log` lists, page after page."""
    ids: list[str] = []
    after: str | None = None
    while True:
        page = await log.list_games(after)
        ids += page.games
        if page.next_after is None:
            return ids
        after = page.next_after


def _before(cold: tuple[str, str], hot: GameSummary) -> bool:
    """Whether the archived game (`updated_at`, id) comes before `hot` in the list: more
    recently updated, or as recently and a smaller id."""
    updated = hot.updated_at or ""
    return cold[0] > updated or (cold[0] == updated and cold[1] < hot.game_id)
