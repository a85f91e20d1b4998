"""A `text/event-stream` response as raw ASGI: the headers, then frames (bytes) as they come.

`serve_events(receive, send, produce)` sends the response head FastAPI's `EventSourceResponse`
sent (`text/event-stream; charset=utf-8`, `Cache-Control: no-cache`, `X-Accel-Buffering: no`),
then runs `produce(write)`, whose each `write(frame)` is one ASGI body message. A second task
waits for the client's `http.disconnect` and cancels `produce` (uvicorn drops writes to a gone
client silently, so nothing else would end the stream). Per frame this costs one `send`: no
per-frame model, encoder, memory stream or keep-alive timer (docs/decisions/0012-hot-reads-and-off-loop-replays.md: that machinery was
about 4 task switches per frame per subscriber).
Source: docs/decisions/0012-hot-reads-and-off-loop-replays.md (SSE delivery to 1,000 subscribers); WHATWG HTML §9.2 (event stream format).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

from fastapi.sse import KEEPALIVE_COMMENT, format_sse_event
from starlette.types import Receive, Send

__all__ = ["KEEPALIVE_COMMENT", "SSE_HEADERS", "Write", "format_sse_event", "serve_events"]

SSE_HEADERS = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-cache"),
    (b"x-accel-buffering", b"no"),
]

Write = Callable[[bytes], Awaitable[None]]
"""Sends one frame (an encoded event, comment or keep-alive) to the client."""


async def serve_events(
    receive: Receive, send: Send, produce: Callable[[Write], Awaitable[None]]
) -> None:
    """Stream the frames `produce` writes until it returns or the client disconnects.

    Raises: what `produce` raises (the response has started: the server closes the
    connection).
    """
    await send({"type": "http.response.start", "status": 200, "headers": SSE_HEADERS})

    async def write(frame: bytes) -> None:
        await send({"type": "http.response.body", "body": frame, "more_body": True})

    producer = asyncio.ensure_future(produce(write))
    watcher = asyncio.ensure_future(_disconnect(receive))
    try:
        await asyncio.wait((producer, watcher), return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (producer, watcher):
            task.cancel()
        for task in (producer, watcher):
            with contextlib.suppress(asyncio.CancelledError):
                await task  # re-raises the producer's own failure
    if watcher.cancelled():  # the producer ended, the client is still there
        await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _disconnect(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
