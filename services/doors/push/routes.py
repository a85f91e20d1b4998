"""SSE endpoints (FastAPI's own `fastapi.sse`): live standings of one game and live games list.

`GET /games/{game_id}/live`: event `standings`, data `{"change": null, "standings": <the body
of GET /games/{id}/standings>}` on connect, and on a resume that missed a change; every later
frame is compact, `{"change", "compact": true, "standings":
<services.usecases.readmodels.render.compact(body)>}` (no labels, non-zero categories only). SSE `id:` = the
entry id of the game's shard change stream. A client reconnecting with `Last-Event-ID` gets
the current full standings once if the game changed after that id (nothing otherwise), then
every new change. Without `Last-Event-ID` it gets the current standings first.

`GET /games/live` (`limit` games in the first frame, at most 500): event `game`, data `{"change": {...}, "summary": {game_id, game, status, seq,
updated_at}}`, id = the entry id; a (re)connecting client is sent the whole list first (event
`games`, the body of `GET /games`), which stands in for any change it missed: the ids of 16
shard streams do not order against each other, so one `Last-Event-ID` cannot resume them all.
Every stream counts against its client's `SCORELEDGER_LIVE_PER_CLIENT`
(`services.doors.push.holds`): `/games/{id}/live` past it is refused 429 `live.client_limit`;
`/games/live` (its answer starts before its first frame) then ends at once with a comment and
`retry`.
Source: docs/decisions/0018-observability-at-the-edges.md (SSE, Last-Event-ID).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Header, Query, Request
from fastapi.sse import EventSourceResponse, ServerSentEvent
from starlette.types import Receive, Scope, Send

from domain.memo import Memo
from domain.standings import Standings
from services.doors.asgi.http_errors import ends_cleanly, log, storage_fault
from services.doors.asgi.lean import LeanRoute, header
from services.doors.asgi.replaylimits import UNKNOWN_CLIENT, client_of
from services.doors.push.holds import ClientHolds, LiveRefused
from services.doors.push.hub import ChangeHub, Delivery, Rendered, Signal, entry_key
from services.doors.push.stream import KEEPALIVE_COMMENT, Write, format_sse_event, serve_events
from services.platform.problems import RETRY_AFTER_S
from services.ports.errors import StoreUnavailable
from services.ports.notices import Notice
from services.usecases.readmodels.reads import NotFound, ReadModels
from services.usecases.readmodels.render import compact, view_json
from services.usecases.readmodels.shapes import MAX_GAMES_PAGE, GamesResponse

RETRY_MS = 1000
"""Tells the browser to reconnect 1 s after a dropped connection."""
READY_WAIT_S = 5.0
"""Longest a new stream waits for the change hub to reach Redis (then it ends cleanly)."""


async def _hub_ready(hub: ChangeHub) -> None:
    """Wait for the hub's stream positions; the store down since start-up: `StoreUnavailable`
    after `READY_WAIT_S`, lost since: `StorageDown` at once (`ends_cleanly` ends the stream,
    the browser retries)."""
    try:
        async with asyncio.timeout(READY_WAIT_S):
            await hub.ready()
    except TimeoutError:
        raise StoreUnavailable("the change hub has not reached its store", hub.reason) from None
    hub.check()  # it reached Redis once but has lost it since: end now, not at the next read


def render_projection(game_id: str, fields: dict[str, str]) -> Rendered:
    """The `GET /games/{id}/standings` body (checkpoint null) of a projection HASH: the view
    the projector rendered of the stored seq, its text passed through (decoded once, for the
    compact frames); else, an older projector's HASH, rendered from the standings here. The
    body None (`null`) without standings."""
    view = fields.get("view")
    if not view or fields.get("view_seq") != fields.get("seq"):
        if not fields.get("standings"):
            return Rendered(None, "null")
        view = view_json(Standings.model_validate_json(fields["standings"]), Memo()).decode()
    updated = json.dumps(fields.get("updated_at"))
    text = f'{view[:-1]},"checkpoint":null,"updated_at":{updated}}}'
    return Rendered(json.loads(text), text)


def _change(change: Notice) -> dict[str, Any]:
    return {
        "shard": change.shard,
        "entry_id": change.entry_id,
        "game_id": change.game_id,
        "seq": change.seq,
    }


def lean_push_routes(hub: ChangeHub, reads: ReadModels, streams: ClientHolds) -> list[LeanRoute]:
    """`GET /games/{game_id}/live` as raw ASGI (`services.doors.push.stream`): each change's frame is
    rendered once (`Delivery.frame`) and the same bytes written to every subscriber.

    A game with no events is refused before the stream starts, as every other route of a game
    refuses it: `NotFound` becomes the app's 404 problem (`game_not_found`) through the front
    door. A storage fault during that check starts the stream anyway, which then ends with the
    storage comment and `retry`: an `EventSource` reconnects after that, never after a 503.
    A client holding `streams.per_client` streams is refused (`LiveRefused`: 429)."""

    async def game_live(scope: Scope, receive: Receive, send: Send) -> None:
        game_id = scope["path_params"]["game_id"]
        client = scope["client"][0] if scope.get("client") else UNKNOWN_CLIENT
        streams.check(client)
        try:
            await reads.version(game_id)  # NotFound: 404 before any frame, not pings forever
        except NotFound:
            raise
        except Exception as exc:
            if storage_fault(exc) is None:
                raise
        last_event_id = header(scope, b"last-event-id")
        with streams.hold(client):  # no await since the check: it holds
            await serve_events(
                receive, send, lambda write: _game_frames(hub, game_id, last_event_id, write)
            )

    return [LeanRoute("/games/{game_id}/live", game_live)]


async def _game_frames(
    hub: ChangeHub, game_id: str, last_event_id: str | None, write: Write
) -> None:
    """The frames of one stream; a storage fault ends it with a comment naming the fault and
    `retry` (as `ends_cleanly` does for the FastAPI streams), other errors propagate."""
    try:
        await _live_frames(hub, game_id, last_event_id, write)
    except Exception as exc:
        reason = storage_fault(exc)
        if reason is None:
            raise
        log.warning("sse.storage_unavailable", reason=reason)
        comment = f"storage unavailable: {reason}"
        await write(format_sse_event(comment=comment, retry=RETRY_AFTER_S * 1000))


async def _live_frames(
    hub: ChangeHub, game_id: str, last_event_id: str | None, write: Write
) -> None:
    await _hub_ready(hub)
    async with hub.subscribe(game_id) as sub:
        sent = hub.position(game_id)  # `current` below reflects every change up to it
        if not await _resumable(hub, game_id, last_event_id, sent):
            rendered = await hub.current(game_id)
            if rendered is not None:
                data = f'{{"change":null,"standings":{rendered.json}}}'
                await write(
                    format_sse_event(data_str=data, event="standings", id=sent, retry=RETRY_MS)
                )
        else:
            await write(format_sse_event(comment="resumed", retry=RETRY_MS))
        while True:
            item = await sub.get()
            if item is Signal.PING:
                await write(KEEPALIVE_COMMENT)
                continue
            assert isinstance(item, Delivery)
            if entry_key(item.change.entry_id) <= entry_key(sent):
                continue  # already reflected in what this client was sent
            sent = item.change.entry_id
            await write(item.frame("standings", _standings_frame))


def _standings_frame(delivery: Delivery) -> bytes:
    """A later frame of `/games/{id}/live`: the change and the compact standings."""
    change = json.dumps(_change(delivery.change))
    body = json.dumps(compact(delivery.body), separators=(",", ":")) if delivery.body else "null"
    data = f'{{"change":{change},"compact":true,"standings":{body}}}'
    return format_sse_event(data_str=data, event="standings", id=delivery.change.entry_id)


def push_router(hub: ChangeHub, reads: ReadModels, streams: ClientHolds) -> APIRouter:
    """The SSE routes, bound to the process's change hub, the read models and the per-client
    count of live streams."""
    router = APIRouter(tags=["live"])

    @router.get("/games/live", response_class=EventSourceResponse)
    @ends_cleanly  # a storage fault ends the stream cleanly (docs/decisions/0011-faults-are-answered-not-crashed.md)
    async def games_live(
        request: Request,
        limit: Annotated[
            int, Query(ge=1, le=MAX_GAMES_PAGE, description="games in the first frame")
        ] = 100,
    ) -> AsyncIterator[ServerSentEvent]:
        """Live games list: the first page of the list first (event `games`, the body of
        `GET /games?limit=`; `next_page` says whether there are more), then one `game` event
        per change. Past this client's `SCORELEDGER_LIVE_PER_CLIENT` streams it ends at once
        with a comment (`refused: live.client_limit`) and `retry`."""
        client = client_of(request)
        try:
            streams.check(client)
        except LiveRefused as refused:
            wait_ms = refused.retry_after_s * 1000
            yield ServerSentEvent(comment=f"refused: {refused.rule}", retry=wait_ms)
            return
        with streams.hold(client):  # no await since the check: it holds
            await _hub_ready(hub)
            async with hub.subscribe(None) as sub:
                async with hub.limited():
                    # after subscribing: a change from now on is queued
                    chosen, total = await reads.games_page(1, limit)
                first = GamesResponse.of_page(chosen, 1, limit, total)
                yield ServerSentEvent(
                    event="games", data=first.model_dump(mode="json"), retry=RETRY_MS
                )
                while True:
                    item = await sub.get()
                    if isinstance(item, Delivery):  # FastAPI sends its own keep-alives
                        raw = item.frame("game", _summary_json).decode()
                        yield ServerSentEvent(event="game", id=item.change.entry_id, raw_data=raw)

    @router.get("/games/{game_id}/live", response_class=EventSourceResponse)
    @ends_cleanly
    async def game_live(
        game_id: str,
        last_event_id: Annotated[
            str | None, Header(description="resume after this change id")
        ] = None,
    ) -> AsyncIterator[ServerSentEvent]:
        """Live standings of one game (the frames and resume rule: docs/integrating/live.md);
        404 `read.game_not_found` for a game with no events."""
        # The OpenAPI declaration of `lean_push_routes`' stream, which takes every GET of
        # this path ahead of it (tests/web/test_lean_sse.py checks that it does).
        raise AssertionError("served by lean_push_routes")
        yield  # an async generator, so FastAPI documents the event stream

    return router


def _summary_json(delivery: Delivery) -> bytes:
    """The data of a `/games/live` `game` event, made once per delivery for every client."""
    return json.dumps(_summary(delivery)).encode()


def _summary(delivery: Delivery) -> dict[str, Any]:
    body = delivery.body or {}
    return {
        "change": _change(delivery.change),
        "summary": {
            "game_id": delivery.change.game_id,
            "game": body.get("game"),
            "status": body.get("status", "pending"),
            "seq": body.get("seq", delivery.change.seq),
            "updated_at": body.get("updated_at"),
        },
    }


async def _resumable(hub: ChangeHub, game_id: str, last_event_id: str | None, tail: str) -> bool:
    """True when the client's `Last-Event-ID` is a valid id of this stream and the game has not
    changed since it (so sending nothing loses nothing)."""
    if not last_event_id:
        return False
    try:
        if entry_key(last_event_id) > entry_key(tail):
            return False  # an id this stream never had (e.g. Redis was reset): start over
        return await hub.changed_since(game_id, last_event_id) is None
    except ValueError:
        return False
