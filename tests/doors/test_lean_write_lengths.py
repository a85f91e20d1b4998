"""The lean write answers a body whose declared length lies (smaller or larger than what is
sent, two different lengths, a signed or a non-number, none with a chunked body, a gzip body)
exactly as the FastAPI route does: the same status and bytes (413 / 400 / 422 problems), raw
ASGI messages so the client cannot fix the length. Source: docs/profiles/hot-path-profiles.md."""

from __future__ import annotations

from typing import Any

import pytest

from services.bootstrap import Roles, assemble, build
from services.doors.query.front import FrontedFastAPI
from services.platform.settings import ServiceSettings
from tests.redis_fixture import flush_all

pytestmark = pytest.mark.redis

LIMIT = 4096
TOKEN = "a-chosen-write-token-of-32-characters-or-more"

# (declared headers, body chunks)
CASES: list[tuple[list[tuple[bytes, bytes]], list[bytes]]] = [
    ([(b"content-length", b"10")], [b" " * 3000, b" " * 3000]),  # smaller than sent, too large
    ([(b"content-length", b"100")], [b"[]"]),  # larger than sent
    ([(b"content-length", b"2"), (b"content-length", b"3")], [b"[]"]),  # two lengths: 400
    ([(b"content-length", b"2"), (b"content-length", b"2")], [b"[]"]),  # the same twice
    ([(b"content-length", b"+2")], [b"[]"]),  # signed: 400
    ([(b"content-length", b"\xd9\xa2")], [b"[]"]),  # a non-ASCII digit: 400
    ([(b"content-length", str(LIMIT + 1).encode())], [b"[]"]),  # declared too large: 413
    ([(b"transfer-encoding", b"chunked")], [b" " * 4000, b" " * 4000]),  # chunked, too large
    ([(b"transfer-encoding", b"chunked")], [b"[", b"]"]),  # chunked, small
    ([(b"content-encoding", b"gzip"), (b"content-length", b"20")], [b"\x1f\x8b" + b"\0" * 18]),
    ([(b"content-length", str(LIMIT).encode())], [b" " * LIMIT]),  # at the limit
    ([(b"content-length", b"0")], [b" " * (LIMIT + 1)]),  # zero declared, more sent
]


async def answer(app: Any, headers: list[tuple[bytes, bytes]], chunks: list[bytes]) -> Any:
    """One raw ASGI POST to the write route: (status, body bytes)."""
    auth = [(b"authorization", f"Bearer {TOKEN}".encode())]
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
        "scheme": "http", "path": "/games/tr-lengths/events", "raw_path": b"/games/tr-lengths/events",
        "root_path": "", "query_string": b"", "headers": auth + headers,
        "client": ("127.0.0.1", 1), "server": ("ingest", 80),
    }  # fmt: skip
    messages = [
        {"type": "http.request", "body": c, "more_body": i < len(chunks) - 1}
        for i, c in enumerate(chunks)
    ]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    try:
        await app(scope, receive, send)
    except Exception as exc:  # an app error: compared by its class
        return ("raised", type(exc).__name__)
    status = [m["status"] for m in sent if m["type"] == "http.response.start"]
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return (status, body)


async def run(url: str, front: bool) -> list[Any]:
    flush_all(url)
    settings = ServiceSettings(redis_url=url, shards=16, max_body_bytes=LIMIT)
    app = assemble(build(settings), Roles(inbox=False, projector=False)).app
    assert isinstance(app, FrontedFastAPI)
    assert app.front is not None
    if not front:
        app.front = None
    async with app.router.lifespan_context(app):
        return [await answer(app, headers, chunks) for headers, chunks in CASES]


async def test_lying_lengths_get_the_fastapi_routes_answers(clean_redis_url: str) -> None:
    lean = await run(clean_redis_url, True)
    plain = await run(clean_redis_url, False)
    assert [a[0] for a in lean] == [
        [413],
        [422],
        [400],
        [422],
        [400],
        [400],
        [413],
        [413],
        [422],
        [422],
        [422],
        [413],
    ]
    assert lean == plain
