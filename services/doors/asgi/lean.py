"""Lean routes: the hot reads (live standings, live SSE) as raw ASGI endpoints in the app's
router, ahead of their FastAPI declarations. Shared by the query and push doors (so neither
imports the other).

FastAPI's request handling (dependency solving, parameter validation, a `Request` object, the
response model, its SSE producer/keep-alive tasks) cost about two thirds of a standings GET
(docs/decisions/0012-hot-reads-and-off-loop-replays.md: 608 µs CPU as deployed, 236 µs as raw ASGI). A `LeanRoute` takes the requests its
ASGI endpoint handles in full (GET, and for the standings only without a query string) and
lets every other request fall through to the FastAPI route declared right after it for the
same path, which also stays the OpenAPI description (FastAPI documents `APIRoute`s only). So
`?at_seq=`, a bad parameter, HEAD or POST get exactly the answers they got before; the lean
endpoint raises the read models' errors (`NotFound`, `Pending`) into the app's problem
handlers (`services.doors.asgi.http_errors`), so its 404/503 are the same RFC 9457 problems.
Source: docs/decisions/0012-hot-reads-and-off-loop-replays.md ("the hot read routes as lean ASGI/Starlette routes, still described in the
OpenAPI").
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from starlette.applications import Starlette
from starlette.routing import Match, Route
from starlette.types import Receive, Scope, Send

LeanEndpoint = Callable[[Scope, Receive, Send], Awaitable[None]]
"""A raw ASGI endpoint; `scope["path_params"]` holds the route's path parameters (str)."""

JSON_HEADERS = [(b"content-type", b"application/json")]


class LeanRoute(Route):
    """A Starlette route serving `method` (GET) `path` with the raw ASGI `endpoint`.

    Args:
        path: the path template, the same as the FastAPI route it stands before.
        endpoint: the ASGI callable (not wrapped in a `Request`).
        plain_only: take only requests without a query string (others fall through).
        method: the one method taken: "GET", or "POST" for the ingest's write, which only
            the front door serves (it is not put in the router: it stands before no route).
    Matches nothing else (other methods fall through too). Sets `scope["route"]` to itself so
    the metrics middleware labels the request by `path` as for any FastAPI route. The app's
    front door (`services.doors.query.front`) serves the same requests with `lean_endpoint` before
    they reach the router; the route serves those the front door leaves to FastAPI.
    """

    def __init__(
        self, path: str, endpoint: LeanEndpoint, plain_only: bool = False, method: str = "GET"
    ) -> None:
        super().__init__(path, _AsAsgi(endpoint), include_in_schema=False)
        self.lean_endpoint = endpoint
        self.plain_only = plain_only
        self.method = method
        self.methods = {method}

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        """FULL for a `method` request of the path (without a query string when
        `plain_only`), else NONE."""
        if scope["type"] != "http" or scope["method"] != self.method:
            return Match.NONE, {}
        if self.plain_only and scope.get("query_string"):
            return Match.NONE, {}
        match, child = super().matches(scope)
        if match is not Match.FULL:
            return Match.NONE, {}
        child["route"] = self
        return match, child


class _AsAsgi:
    """Wraps a function so Starlette treats it as an ASGI app, not as `f(request)`."""

    __slots__ = ("endpoint",)

    def __init__(self, endpoint: LeanEndpoint) -> None:
        self.endpoint = endpoint

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.endpoint(scope, receive, send)


async def send_bytes(
    send: Send, body: bytes, headers: list[tuple[bytes, bytes]], status: int = 200
) -> None:
    """A complete response of `body` with `headers` and its content-length."""
    start: dict[str, Any] = {
        "type": "http.response.start",
        "status": status,
        "headers": [(b"content-length", str(len(body)).encode()), *headers],
    }
    await send(start)
    await send({"type": "http.response.body", "body": body})


def install(app: Starlette, routes: list[LeanRoute]) -> None:
    """Put `routes` first in `app`'s router: a route inside an included `APIRouter` would be
    rebuilt as a plain Starlette `Route` by FastAPI's include (losing `matches`)."""
    app.router.routes[:0] = routes


def header(scope: Scope, name: bytes) -> str | None:
    """The request header `name` (lower case), latin-1 decoded as Starlette does; the first one
    when repeated (as `Request.headers.get`); None when absent."""
    for key, value in scope.get("headers", ()):
        if key == name:
            return str(value.decode("latin-1"))
    return None
