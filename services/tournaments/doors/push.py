"""SSE of one tournament: `GET /tournaments/{tournament_id}/live` (served with the query role).

A tournament stream has no shard change feed (tournaments are few and folded on read), so a
`TournamentWatch` polls each watched tournament's version (`TournamentLog.version`, one XLEN)
and names stamp (`Tournaments.names_stamp`, one HLEN: a forgotten player changes it)
every `poll_s` with one task per tournament, however many screens follow it; on a change it
folds the stream once and hands the same frame to every subscriber (a subscriber that has not
taken the previous frame gets only the newest: each frame is the whole state).

Frames: event `tournament`, SSE `id:` = the tournament's seq (its number of events), data
`{"seq": N, "tournament": <the body of GET /tournaments/{id}>, "standings": <the standings,
lines without their sources>}` (`contracts.tournament_frames.TournamentFrame`). The first
frame comes on connect; a client reconnecting with
`Last-Event-ID: N` gets nothing until the tournament changes when it is still at N (a
`: resumed` comment says so), else the current state at once. A keep-alive comment every
`KEEPALIVE_S`. 404 `tournament.not_found` for a tournament with no events (before the stream
starts). A storage fault while the stream runs ends it with a comment and `retry` (the
browser reconnects), as the game SSE does.

Bounds (`services.doors.push.holds`): the process follows at most `max_tournaments` at once
(503 `tournament.watch_full`), one client at most `per_client` of them
(`SCORELEDGER_WATCH_PER_CLIENT`, 429 `tournament.watch_client_limit`) and at most
`SCORELEDGER_LIVE_PER_CLIENT` streams (429 `live.client_limit`): one client cannot take every
slot. A bound reached between the check and the stream's start ends the stream at once with a
comment and `retry`. Source: issue brief (SSE for the tournament);
WHATWG HTML §9.2 (`Last-Event-ID`).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Annotated, Any

from fastapi import APIRouter, Header, Path, Request
from fastapi.responses import StreamingResponse
from fastapi.sse import format_sse_event

from domain.tournament.standings import standings
from domain.tournament.state import TournamentState
from services.doors.asgi.http_errors import log, storage_fault
from services.doors.asgi.replaylimits import client_of
from services.doors.push.holds import ClientHolds, LiveRefused
from services.platform.problems import RETRY_AFTER_S, ProblemResponse, problem, problem_responses
from services.tournaments.usecases.stream import Tournaments, UnknownTournament
from services.tournaments.usecases.view import summary

RETRY_MS = 1000
"""Tells the browser to reconnect 1 s after a dropped connection."""
KEEPALIVE_S = 15.0
"""A comment this often keeps proxies from closing a quiet stream."""
LOCAL = "local"
"""The client of a subscriber that is no remote client (a test, the CLI)."""


@dataclass(frozen=True, slots=True)
class Frame:
    """One rendered state of a tournament: its seq, the SSE bytes (event, id, data), and the
    names stamp it was rendered at (`Tournaments.names_stamp`: a forgotten player changes
    what a frame shows without a new event)."""

    seq: int
    data: bytes
    stamp: int = 0

    def newer_than(self, seq: int, stamp: int) -> bool:
        """Whether a subscriber last sent (`seq`, `stamp`) should get this frame: a later
        seq, or the same seq with the names changed."""
        return self.seq > seq or (self.seq == seq and self.stamp != stamp)


@dataclass
class _Watched:
    queues: set[asyncio.Queue[Frame]] = field(default_factory=set)
    task: asyncio.Task[None] | None = None
    latest: Frame | None = None


def lean_standings(body: dict[str, Any]) -> dict[str, Any]:
    """The standings body with each figure as its value only (the sources stay behind
    `GET /tournaments/{id}/standings`): a frame of 60 players stays a few kB."""
    players = [
        {
            **line,
            "points": line["points"]["value"],
            "tie_breaks": {k: v["value"] for k, v in line["tie_breaks"].items()},
        }
        for line in body["players"]
    ]
    return {**body, "players": players}


def _standings_of(state: TournamentState) -> dict[str, Any]:
    """The lean standings; empty before the first registration (the domain's standings
    need a player: with none they raise IndexError)."""
    if not state.players:
        empty = {"tournament_id": state.tournament_id, "seq": state.seq, "rounds_seated": 0}
        return {**empty, "players": [], "held": []}
    return lean_standings(standings(state).to_dict())


@dataclass(eq=False, slots=True)
class TournamentWatch:
    """Shared pollers of tournament versions; `subscribe(id)` yields a queue of new frames.

    `poll_s`: seconds between version reads of a watched tournament. `max_tournaments`: at
    most this many tournaments watched at once by this process (`subscribe` raises
    `WatchFull` beyond it, answered 503). `per_client`: at most this many of them followed by
    one client at once (`subscribe` raises `LiveRefused`, answered 429)."""

    SETTING = "SCORELEDGER_WATCH_PER_CLIENT"

    cases: Tournaments
    poll_s: float = 0.5
    max_tournaments: int = 200
    per_client: int = 20
    _watched: dict[str, _Watched] = field(init=False, default_factory=dict)
    # client -> tournament -> its streams
    _followed: dict[str, dict[str, int]] = field(init=False, default_factory=dict)

    async def render(self, tournament_id: str) -> Frame:
        """The current state's frame (folded now; the last one reused when still current).

        Raises: UnknownTournament."""
        watched = self._watched.get(tournament_id)
        latest = watched.latest if watched is not None else None
        stamp = await self.cases.names_stamp(tournament_id)
        if (
            latest is not None
            and latest.stamp == stamp
            and latest.seq == await self.cases.log.version(tournament_id)
        ):
            return latest
        state = await self.cases.state(tournament_id)
        body = {
            "seq": state.seq,
            "tournament": summary(state),
            "standings": _standings_of(state),
        }
        data = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
        frame = Frame(
            state.seq,
            format_sse_event(data_str=data, event="tournament", id=str(state.seq)),
            stamp,
        )
        if watched is not None and (
            watched.latest is None or frame.newer_than(watched.latest.seq, watched.latest.stamp)
        ):
            watched.latest = frame
        return frame

    def full_for(self, tournament_id: str) -> bool:
        """True when following `tournament_id` would pass `max_tournaments`."""
        return tournament_id not in self._watched and len(self._watched) >= self.max_tournaments

    def check(self, tournament_id: str, client: str) -> None:
        """Raises `LiveRefused("tournament.watch_client_limit")` when `client` follows
        `per_client` other tournaments, `WatchFull` when following `tournament_id` would pass
        `max_tournaments`."""
        followed = self._followed.get(client, {})
        if tournament_id not in followed and len(followed) >= self.per_client:
            raise LiveRefused(
                "tournament.watch_client_limit",
                self.SETTING,
                self.per_client,
                f"this client follows {self.per_client} tournaments already; close one first",
            )
        if self.full_for(tournament_id):
            raise WatchFull(self.max_tournaments)

    @asynccontextmanager
    async def subscribe(
        self, tournament_id: str, client: str = LOCAL
    ) -> AsyncIterator[asyncio.Queue[Frame]]:
        """A queue receiving each new frame of `tournament_id` while the block runs, followed
        by `client`. Raises `LiveRefused` or `WatchFull` (`check`)."""
        self.check(tournament_id, client)
        watched = self._watched.get(tournament_id)
        if watched is None:
            watched = self._watched[tournament_id] = _Watched()
            watched.task = asyncio.create_task(self._poll(tournament_id, watched))
        queue: asyncio.Queue[Frame] = asyncio.Queue(maxsize=1)
        watched.queues.add(queue)
        followed = self._followed.setdefault(client, {})
        followed[tournament_id] = followed.get(tournament_id, 0) + 1
        try:
            yield queue
        finally:
            followed[tournament_id] -= 1
            if not followed[tournament_id]:
                del followed[tournament_id]
                if not followed and self._followed.get(client) is followed:
                    del self._followed[client]
            watched.queues.discard(queue)
            if not watched.queues and self._watched.get(tournament_id) is watched:
                del self._watched[tournament_id]
                if watched.task is not None:
                    watched.task.cancel()

    async def _poll(self, tournament_id: str, watched: _Watched) -> None:
        # Rendered at the first poll whatever the version: a change landing between a
        # subscriber's first frame and this task's first read is then never missed (each
        # subscriber drops a frame no newer than what it was sent).
        seen, seen_stamp = 0, 0
        while True:
            await asyncio.sleep(self.poll_s)
            version, stamp = await self._version(tournament_id, seen, seen_stamp)
            if (version, stamp) == (seen, seen_stamp):
                continue
            try:
                frame = await self.render(tournament_id)
            except Exception as exc:
                if storage_fault(exc) is None:
                    raise
                continue  # try again at the next poll
            seen, seen_stamp = frame.seq, frame.stamp
            for queue in list(watched.queues):
                if queue.full():
                    queue.get_nowait()  # an unread older state: the newer one replaces it
                queue.put_nowait(frame)

    async def _version(
        self, tournament_id: str, fallback: int, fallback_stamp: int
    ) -> tuple[int, int]:
        """The tournament's version and names stamp (the fallbacks on a storage fault)."""
        try:
            version = await self.cases.log.version(tournament_id)
            return version, await self.cases.names_stamp(tournament_id)
        except Exception as exc:
            reason = storage_fault(exc)
            if reason is None:
                raise
            log.warning("sse.tournament_poll_failed", reason=reason)
            return fallback, fallback_stamp


class WatchFull(Exception):
    """This process already watches `max_tournaments` tournaments."""


async def _frames(
    watch: TournamentWatch,
    streams: ClientHolds,
    tournament_id: str,
    client: str,
    last_event_id: str | None,
) -> AsyncIterator[bytes]:
    try:
        with streams.hold(client):
            async for chunk in _followed(watch, tournament_id, client, last_event_id):
                yield chunk
    except (LiveRefused, WatchFull) as refused:  # taken since the route's check
        rule = refused.rule if isinstance(refused, LiveRefused) else "tournament.watch_full"
        yield format_sse_event(comment=f"refused: {rule}", retry=RETRY_AFTER_S * 1000)


async def _followed(
    watch: TournamentWatch, tournament_id: str, client: str, last_event_id: str | None
) -> AsyncIterator[bytes]:
    try:
        async with watch.subscribe(tournament_id, client) as queue:
            first = await watch.render(tournament_id)
            if last_event_id is not None and last_event_id.strip() == str(first.seq):
                yield format_sse_event(comment="resumed", retry=RETRY_MS)
            else:
                yield format_sse_event(retry=RETRY_MS) + first.data
            sent, sent_stamp = first.seq, first.stamp
            while True:
                try:
                    async with asyncio.timeout(KEEPALIVE_S):
                        frame = await queue.get()
                except TimeoutError:
                    yield b": ping\n\n"
                    continue
                if frame.newer_than(sent, sent_stamp):
                    sent, sent_stamp = frame.seq, frame.stamp
                    yield frame.data
    except Exception as exc:
        reason = storage_fault(exc)
        if reason is None:
            raise
        log.warning("sse.storage_unavailable", reason=reason)
        yield format_sse_event(comment=f"storage unavailable: {reason}", retry=RETRY_AFTER_S * 1000)


_SSE_DOC: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "the tournament's frames (event `tournament`, id = its seq)",
        "content": {
            "text/event-stream": {
                "schema": {"type": "string", "description": "server-sent events"},
                "x-itemSchema": {
                    "type": "object",
                    "properties": {
                        "data": {"type": "string"},
                        "event": {"type": "string"},
                        "id": {"type": "string"},
                        "retry": {"type": "integer", "minimum": 0},
                    },
                },
            }
        },
    },
    **problem_responses(404, 429, 503),
}


def tournament_push_router(watch: TournamentWatch, streams: ClientHolds) -> APIRouter:
    """`GET /tournaments/{tournament_id}/live`, bound to the process's tournament watch and
    its per-client count of live streams (shared with the game streams)."""
    router = APIRouter(tags=["live"])

    @router.get(
        "/tournaments/{tournament_id}/live",
        response_model=None,
        responses=_SSE_DOC,
    )
    async def tournament_live(
        request: Request,
        tournament_id: Annotated[str, Path(max_length=64, description="the tournament id")],
        last_event_id: Annotated[
            str | None, Header(max_length=32, description="resume after this seq")
        ] = None,
    ) -> StreamingResponse | ProblemResponse:
        """Live state of one tournament: seating, results, approvals and standings, one
        frame per change (the frame and resume rule: docs/integrating/live.md);
        404 `tournament.not_found` for a tournament with no events; 429
        `live.client_limit` / `tournament.watch_client_limit` past this client's share, 503
        `tournament.watch_full` past the process's."""
        if await watch.cases.log.version(tournament_id) == 0:
            message = "no such tournament"
            return ProblemResponse(problem(404, "tournament.not_found", "tournament_id", message))
        client = client_of(request)
        streams.check(client)  # LiveRefused: the app's 429 problem
        try:
            watch.check(tournament_id, client)
        except WatchFull:
            message = f"this process already follows {watch.max_tournaments} tournaments"
            busy = problem(503, "tournament.watch_full", None, message)
            return ProblemResponse(busy, headers={"Retry-After": str(RETRY_AFTER_S)})
        return StreamingResponse(
            _frames(watch, streams, tournament_id, client, last_event_id),
            media_type="text/event-stream; charset=utf-8",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )

    return router


__all__ = [
    "Frame",
    "TournamentWatch",
    "UnknownTournament",
    "WatchFull",
    "lean_standings",
    "tournament_push_router",
]
