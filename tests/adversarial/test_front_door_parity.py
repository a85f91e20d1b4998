"""The front door (`services.doors.query.front`) against FastAPI's stack.

A storage fault that no exception handler names by class (a plain `ResponseError` such as
MASTERDOWN, answered 503 by the app's 500 handler, `STORAGE_FAULT_REPLIES`) gets the same
answer through either door, but is counted differently: `MetricsMiddleware` sits inside
`ServerErrorMiddleware`, sees the exception go by with no response started and counts 500;
the front door counts the 503 it sent. The same request, two status labels.
"""

from __future__ import annotations

import pytest
from redis.exceptions import ResponseError
from structlog.testing import capture_logs

from services.adapters.redis.errors import translated
from services.doors.push import routes as push_routes
from tests.query.test_front_door import Door, door, same  # noqa: F401  (the fixture)

pytestmark = pytest.mark.redis

MASTERDOWN = "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'."


async def test_a_storage_fault_reply_is_counted_alike_through_either_door(
    door: Door,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def masterdown(game_id: str) -> None:
        raise translated(ResponseError(MASTERDOWN))  # as the client raises it

    monkeypatch.setattr(door.reads.projections, "standings", masterdown)
    front, plain = await door.both("/games/g1/standings")
    same(front, plain)
    assert (front.status_code, front.json()["rule"]) == (503, "service.storage_unavailable")
    text = (await door.http.get("/metrics")).text
    counted = sorted(
        line
        for line in text.splitlines()
        if line.startswith("scoreledger_query_requests_total{")
        and 'route="/games/{game_id}/standings"' in line
    )
    print("\n".join(counted))
    assert counted == [
        'scoreledger_query_requests_total{route="/games/{game_id}/standings",status="503"} 2.0'
    ]


async def test_a_live_stream_that_fails_after_its_start_is_logged_alike(
    door: Door,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`ServerErrorMiddleware` calls the app's 500 handler even when the response has started
    (it logs `http.failed`; nothing is sent); the front door re-raises at once."""

    async def boom(*args: object) -> None:
        raise RuntimeError("a bug in the stream")

    async def known(game_id: str) -> int:
        return 1  # "g1" exists: an unknown game is refused (404) before the stream starts

    monkeypatch.setattr(push_routes, "_live_frames", boom)
    monkeypatch.setattr(door.reads, "version", known)
    front_door = door.app.front
    logged: dict[str, list[str]] = {}
    for name, front in (("front", front_door), ("plain", None)):
        door.app.front = front
        try:
            with capture_logs() as events:
                response = await door.http.get("/games/g1/live")
        finally:
            door.app.front = front_door
        assert response.status_code == 200  # the stream had started
        logged[name] = [str(e["event"]) for e in events]
    print(logged)
    assert ("http.failed" in logged["front"]) == ("http.failed" in logged["plain"])


@pytest.mark.parametrize(
    "path",
    [
        "/games/a%20b/standings",  # decoded: "a b"
        "/games/%E2%82%AC/standings",  # decoded: one non-ASCII character
        "/games/a%2Fb/standings",  # decoded: "a/b" (two segments: not the route's)
        "/games/x%0A/standings",  # a newline inside the id
        "/games/x/standings%0A",  # Starlette's `$` matches before a trailing newline
        "/games/" + "x" * 4000 + "/standings",  # overlong
        "/games/%7Bs1%7D/standings",  # a hash tag in the id
    ],
)
async def test_odd_paths_get_the_same_answer_through_either_door(
    door: Door,  # noqa: F811
    path: str,
) -> None:
    front = await door.http.get(path)
    parked, door.app.front = door.app.front, None
    try:
        plain = await door.http.get(path)
    finally:
        door.app.front = parked
    print(path[:40], front.status_code, front.text[:120])
    same(front, plain)
