"""A request body size limit as a pure ASGI middleware, refused with a 413 problem.

A declared `Content-Length` above the limit is refused before one byte of the body is read; a
body without one (chunked) or larger than declared is counted chunk by chunk as the app reads
it and refused as soon as the count passes the limit (the 413 is sent then and the app is told
the client left), so no more than `max_body_bytes` plus one network chunk is ever held. Source: docs/decisions/0019-hostile-input-at-every-door.md ("There is no body size limit (a 100 MB
body was read and parsed)"); ASGI HTTP spec (`http.request` messages, `more_body`).
"""

from __future__ import annotations

from dataclasses import dataclass

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from services.platform.problems import ProblemResponse, problem

DEFAULT_MAX_BODY_BYTES = 1_048_576
"""1 MiB: a batch of 1000 events (the ingest batch limit) of about 1 kB each."""


def too_large(max_body_bytes: int) -> ProblemResponse:
    """The 413 answer: rule `body.too_large`, field `body`."""
    return ProblemResponse(
        problem(
            413, "body.too_large", "body", f"the request body is limited to {max_body_bytes} bytes"
        )
    )


def _bad_length() -> ProblemResponse:
    return ProblemResponse(
        problem(
            400, "body.content_length", "content-length", "Content-Length must be one whole number"
        )
    )


def declared_refusal(scope: Scope, max_body_bytes: int) -> ProblemResponse | None:
    """The answer to a request whose `Content-Length` is malformed (400) or above the limit
    (413); None when it declares none or an acceptable one."""
    lengths = [v for k, v in scope.get("headers", ()) if k.lower() == b"content-length"]
    if not lengths:
        return None
    if len(set(lengths)) != 1 or not lengths[0].isdigit():
        return _bad_length()
    if int(lengths[0]) > max_body_bytes:
        return too_large(max_body_bytes)
    return None


@dataclass(eq=False, slots=True)
class BodySizeLimit:
    """ASGI middleware: HTTP request bodies above `max_body_bytes` get a 413 problem.

    Args:
        app: the wrapped ASGI app.
        max_body_bytes: the largest accepted body in bytes (>= 0).
    Non-HTTP scopes (lifespan, websocket) pass through untouched.
    """

    app: ASGIApp
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES

    def __post_init__(self) -> None:
        if self.max_body_bytes < 0:
            raise ValueError(f"max_body_bytes must be >= 0, got {self.max_body_bytes}")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse early on the declared length; otherwise count while the app reads."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refused = declared_refusal(scope, self.max_body_bytes)
        if refused is not None:
            await refused(scope, receive, send)
            return
        await self.counted(scope, receive, send)

    async def counted(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The app with its body counted as read (413 past the limit): an HTTP request whose
        declared `Content-Length` was judged already (`declared_refusal` said None)."""
        body = _CountedBody(self.max_body_bytes, scope, receive, send)
        try:
            await self.app(scope, body.receive, body.send)
        except Exception:
            if not body.answered:  # the app's own failure, not the disconnect it was given
                raise


class _CountedBody:
    """One request's body counted as the app reads it; past `max_body_bytes` the 413 goes out
    (unless the app already started its answer) and the app sees a disconnect."""

    def __init__(self, max_body_bytes: int, scope: Scope, receive: Receive, send: Send) -> None:
        self.max_body_bytes = max_body_bytes
        self.scope, self._receive, self._send = scope, receive, send
        self.received = 0
        self.started = self.answered = False

    async def receive(self) -> Message:
        """The app's `receive`: a disconnect once the limit is passed."""
        # Past the limit the 413 goes out at once and the app sees a disconnect: frameworks
        # that turn a failing body read into their own 400 (FastAPI does) cannot hide it.
        if self.answered:
            return {"type": "http.disconnect"}
        message = await self._receive()
        if message["type"] == "http.request":
            self.received += len(message.get("body", b""))
            if self.received > self.max_body_bytes:
                if not self.started:
                    await too_large(self.max_body_bytes)(self.scope, self._receive, self._send)
                self.answered = True
                return {"type": "http.disconnect"}
        return message

    async def send(self, message: Message) -> None:
        """The app's `send`: dropped once the 413 is out."""
        if self.answered:
            return  # the 413 is already out; whatever the app answers to it is dropped
        self.started = self.started or message["type"] == "http.response.start"
        await self._send(message)
