"""The front door: the hot GETs (live standings, live SSE) answered before FastAPI's stack.

A `LeanRoute` inside the app still passes FastAPI's and Starlette's middleware on the way in
and out (`ServerErrorMiddleware`, FastAPI's telemetry and body-limit layers, our
`BodySizeLimit` and `MetricsMiddleware`, `ExceptionMiddleware`, the router, `AsyncExitStack`):
about 40 µs CPU of a 120 µs standings GET, two thirds of what separated it from a raw ASGI
route doing the same Redis call (docs/decisions/0012-hot-reads-and-off-loop-replays.md, py-spy under wrk: docs/profiles/standings-get.txt).
`FrontedFastAPI` is the FastAPI app whose `__call__` first asks its `FrontDoor`: a GET of a
lean route's path (for `plain_only` routes without a query string) that declares no body (no
`content-length` / `transfer-encoding`, so the body limits have nothing to say) is served by
the route's ASGI endpoint directly; every other request (and every lifespan or websocket
scope) goes to FastAPI unchanged. A lean POST route (the ingest's write, `POST
/games/{game_id}/events` without a query string) takes its body: `BodySizeLimit.counted` wraps its
endpoint here as `BodySizeLimit` wraps the app (the same 413 problem for a body that passes the
limit while read); a POST whose declared `Content-Length` is malformed or too large is left to FastAPI's
stack, which refuses it before routing (and counts it `unmatched`, as it always did). What the
stack did for the lean requests is done here:

* metrics: counted and timed under the route template, as `MetricsMiddleware` does;
* errors: the app's own exception handlers (`services.doors.asgi.http_errors`), looked up by the
  exception's class as `ExceptionMiddleware` does, so a 404, a 503 + `Retry-After` of a
  pending projection or a storage fault are the same RFC 9457 problems; any other exception
  gets the app's 500 handler's answer and is re-raised (the server logs it), as
  `ServerErrorMiddleware` does; an exception after the response started is re-raised;
* `scope["route"]` is the `LeanRoute` and `scope["path_params"]` its parameter, as the router
  sets them, so the endpoint is the same one FastAPI would reach.

FastAPI's native telemetry (OpenTelemetry tracing, off unless a tracer provider is
configured; this service configures none) does not see the front door's requests. OpenAPI is
unchanged: the FastAPI routes still declare these paths. Source: docs/decisions/0012-hot-reads-and-off-loop-replays.md ("the hot read routes
as lean ASGI/Starlette routes, still described in the OpenAPI").
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable, Sequence
from typing import Any

from fastapi import FastAPI
from starlette.requests import Request
from starlette.types import Message, Receive, Scope, Send

from services.doors.asgi.lean import LeanEndpoint, LeanRoute
from services.doors.query.metrics import QueryMetrics
from services.platform.limits import DEFAULT_MAX_BODY_BYTES, BodySizeLimit, declared_refusal

_BODY_HEADERS = frozenset((b"content-length", b"transfer-encoding"))

Handler = Callable[[Request, Exception], Any]


class _Door:
    """One lean route's path as prefix + one parameter + suffix (`/games/` `{game_id}`
    `/standings`), matched without a regex."""

    __slots__ = ("endpoint", "method", "param", "plain_only", "prefix", "route", "suffix")

    def __init__(self, route: LeanRoute, max_body_bytes: int) -> None:
        prefix, _, rest = route.path.partition("{")
        param, _, suffix = rest.partition("}")
        if not prefix or not param.isidentifier() or "{" in suffix:
            raise ValueError(f"a front door needs one plain path parameter: {route.path!r}")
        self.route, self.plain_only, self.method = route, route.plain_only, route.method
        # a GET takes no body (one declaring a body is FastAPI's); a POST's is limited here
        self.endpoint: LeanEndpoint = route.lean_endpoint
        if self.method != "GET":  # `match` judged the declared length: the count is left
            self.endpoint = BodySizeLimit(route.lean_endpoint, max_body_bytes).counted
        self.prefix, self.param, self.suffix = prefix, param, suffix

    def value(self, path: str) -> str | None:
        """The parameter's value in `path` (Starlette's `str` convertor: one non-empty
        segment), or None when `path` is not this route's."""
        if not (path.startswith(self.prefix) and path.endswith(self.suffix)):
            return None
        value = path[len(self.prefix) : len(path) - len(self.suffix)]
        return value if value and "/" not in value else None


class FrontDoor:
    """Serves the GETs of `routes` ahead of `app`'s stack (see the module docstring).

    Args:
        app: the FastAPI app (its exception handlers answer the errors).
        routes: the lean routes, each with a path of one parameter (`ValueError` otherwise).
        metrics: where the requests are counted (the app's `MetricsMiddleware` registry).
        max_body_bytes: the app's `BodySizeLimit` bound, applied to the POST routes' bodies.
    """

    def __init__(
        self,
        app: FastAPI,
        routes: Sequence[LeanRoute],
        metrics: QueryMetrics,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    ) -> None:
        self.app = app
        self.doors = [_Door(route, max_body_bytes) for route in routes]
        self._endpoints = {id(door.route): door.endpoint for door in self.doors}
        self.metrics = metrics
        self.max_body_bytes = max_body_bytes

    def match(self, scope: Scope) -> tuple[LeanRoute, dict[str, str]] | None:
        """The lean route taking `scope` and its path parameters, or None (FastAPI's)."""
        if scope["type"] != "http" or scope.get("root_path"):
            return None
        path, method = scope["path"], scope["method"]
        for door in self.doors:
            if door.method != method:
                continue
            value = door.value(path)
            if value is None or (door.plain_only and scope.get("query_string")):
                continue
            if method == "GET":
                for name, _ in scope.get("headers", ()):
                    if name in _BODY_HEADERS:
                        return None  # BodySizeLimit and FastAPI's limit judge a declared body
            elif declared_refusal(scope, self.max_body_bytes) is not None:
                return None  # refused before routing, as it always was
            return door.route, {door.param: value}
        return None

    async def serve(
        self, route: LeanRoute, params: dict[str, str], scope: Scope, receive: Receive, send: Send
    ) -> None:
        """Run the route's endpoint with metrics and the app's error answers."""
        scope["route"], scope["path_params"] = route, params
        start = time.perf_counter()
        status = 500
        started = False

        async def noted(message: Message) -> None:
            nonlocal status, started
            if message["type"] == "http.response.start":
                status, started = message["status"], True
            await send(message)

        try:
            await self._endpoints[id(route)](scope, receive, noted)
        except Exception as exc:
            if started:  # as ServerErrorMiddleware: the 500 handler logs, nothing is sent
                response = self._server_error()(Request(scope, receive), exc)
                if inspect.isawaitable(response):
                    await response
                raise
            handler = self._handler(exc)
            if handler is None:
                await self._answer(self._server_error(), scope, receive, noted, exc)
                raise
            await self._answer(handler, scope, receive, noted, exc)
        finally:
            self.metrics.observe(route.path, status, time.perf_counter() - start)

    def _handler(self, exc: Exception) -> Handler | None:
        """The app's handler of `exc`'s class or nearest base, the 500 one excepted (what
        `ExceptionMiddleware` would call)."""
        handlers = self.app.exception_handlers
        for cls in type(exc).__mro__:
            if cls is Exception:
                return None
            handler = handlers.get(cls)
            if handler is not None:
                return handler
        return None

    def _server_error(self) -> Handler:
        """The app's handler for `Exception` (or 500): what `ServerErrorMiddleware` calls."""
        handlers = self.app.exception_handlers
        handler = handlers.get(Exception) or handlers.get(500)
        if handler is None:
            raise RuntimeError("the app has no 500 handler (install_problem_handlers)")
        return handler

    @staticmethod
    async def _answer(
        handler: Handler, scope: Scope, receive: Receive, send: Send, exc: Exception
    ) -> None:
        response = handler(Request(scope, receive), exc)
        if inspect.isawaitable(response):
            response = await response
        await response(scope, receive, send)


class FrontedFastAPI(FastAPI):
    """A FastAPI app with a `FrontDoor` (set `front` once the app is assembled; None: plain
    FastAPI)."""

    front: FrontDoor | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The front door's route for `scope`, else FastAPI."""
        front = self.front
        if front is not None:
            found = front.match(scope)
            if found is not None:
                await front.serve(found[0], found[1], scope, receive, send)
                return
        await super().__call__(scope, receive, send)
