"""The body size limit: 413 problem details before the body is read or parsed.

Driven through the ASGI interface directly so the test sees how much of the body the server
pulled: a chunked body is stopped at the chunk that passes the limit, not read to the end.
Source: docs/decisions/0019-hostile-input-at-every-door.md ("There is no body size limit (a 100 MB body was read and parsed)").
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi import FastAPI
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message

from services.platform.limits import BodySizeLimit

LIMIT = 4096
CHUNK = b"x" * 1024
parsed: list[int] = []


async def echo_length(request: Request) -> Response:
    body = await request.body()
    parsed.append(len(body))
    return JSONResponse({"length": len(body)})


STARLETTE = Starlette(routes=[Route("/events", echo_length, methods=["POST"])])
API = FastAPI()


@API.post("/events")
async def take(events: list[dict[str, Any]]) -> dict[str, int]:
    parsed.append(len(events))
    return {"count": len(events)}


class Client:
    """One ASGI request: records how many body chunks the app pulled and what it sent."""

    def __init__(self, chunks: list[bytes], headers: list[tuple[bytes, bytes]]) -> None:
        self.chunks, self.headers = chunks, headers
        self.pulled = 0
        self.sent: list[Message] = []

    async def receive(self) -> Message:
        if self.pulled >= len(self.chunks):
            return {"type": "http.disconnect"}
        self.pulled += 1
        more = self.pulled < len(self.chunks)
        return {"type": "http.request", "body": self.chunks[self.pulled - 1], "more_body": more}

    async def send(self, message: Message) -> None:
        self.sent.append(message)

    async def post(self, app: ASGIApp) -> tuple[int, dict[str, str], bytes]:
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "POST",
            "scheme": "http",
            "path": "/events",
            "raw_path": b"/events",
            "query_string": b"",
            "root_path": "",
            "headers": [(b"content-type", b"application/json"), *self.headers],
            "client": ("127.0.0.1", 1),
            "server": ("127.0.0.1", 80),
        }
        await app(scope, self.receive, self.send)
        start = next(m for m in self.sent if m["type"] == "http.response.start")
        body = b"".join(m.get("body", b"") for m in self.sent if m["type"] == "http.response.body")
        headers = {k.decode(): v.decode() for k, v in start["headers"]}
        return start["status"], headers, body


@pytest.fixture(autouse=True)
def _clear() -> None:
    parsed.clear()


def _limited(app: ASGIApp) -> ASGIApp:
    return BodySizeLimit(app, max_body_bytes=LIMIT)


async def test_a_declared_length_above_the_limit_is_refused_before_any_read() -> None:
    client = Client([CHUNK] * 100, [(b"content-length", b"102400")])
    status, headers, body = await client.post(_limited(STARLETTE))
    assert status == 413
    assert headers["content-type"] == "application/problem+json"
    assert json.loads(body)["rule"] == "body.too_large"
    assert client.pulled == 0
    assert parsed == []


@pytest.mark.parametrize("app", [STARLETTE, API], ids=["starlette", "fastapi"])
async def test_a_chunked_body_is_stopped_at_the_chunk_that_passes_the_limit(app: ASGIApp) -> None:
    client = Client([CHUNK] * 100, [(b"transfer-encoding", b"chunked")])
    status, headers, body = await client.post(_limited(app))
    problem = json.loads(body)
    assert (status, problem["status"], problem["field"]) == (413, 413, "body")
    assert headers["content-type"] == "application/problem+json"
    assert client.pulled == LIMIT // len(CHUNK) + 1  # 4 chunks fit; the 5th passes the limit
    assert parsed == []  # the app never got a body to parse
    assert sum(m["type"] == "http.response.start" for m in client.sent) == 1


async def test_a_body_longer_than_its_declared_length_is_counted_too() -> None:
    client = Client([CHUNK] * 100, [(b"content-length", b"10")])
    status, _, _ = await client.post(_limited(STARLETTE))
    assert status == 413
    assert client.pulled == 5


@pytest.mark.parametrize("size", [0, 1, LIMIT])
async def test_a_body_within_the_limit_reaches_the_app_whole(size: int) -> None:
    client = Client([b"y" * size], [(b"content-length", str(size).encode())])
    status, _, body = await client.post(_limited(STARLETTE))
    assert (status, json.loads(body)) == (200, {"length": size})


async def test_fastapi_still_parses_a_body_within_the_limit() -> None:
    data = json.dumps([{"a": 1}, {"b": 2}]).encode()
    client = Client([data[:5], data[5:]], [(b"transfer-encoding", b"chunked")])
    status, _, body = await client.post(_limited(API))
    assert (status, json.loads(body)) == (200, {"count": 2})


@pytest.mark.parametrize("value", [b"-1", b"12abc", b""])
async def test_a_malformed_content_length_is_a_400_problem(value: bytes) -> None:
    client = Client([CHUNK], [(b"content-length", value)])
    status, _, body = await client.post(_limited(STARLETTE))
    assert (status, json.loads(body)["rule"]) == (400, "body.content_length")
    assert client.pulled == 0


async def test_lifespan_and_other_scopes_pass_through() -> None:
    seen: list[str] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen.append(scope["type"])

    await BodySizeLimit(app, max_body_bytes=1)({"type": "lifespan"}, None, None)  # type: ignore[arg-type]
    assert seen == ["lifespan"]


def test_a_negative_limit_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match=">= 0"):
        BodySizeLimit(STARLETTE, max_body_bytes=-1)
