"""The tournament's SSE (`/tournaments/{id}/live`) against the real stack: the first frame is
the whole state with the seq as its id, seating and results each push a frame, a reconnect
with `Last-Event-ID` at the current seq waits for the next change, an unknown tournament is a
404 problem; and the pages and the QR code of a tournament answer (404 for an unknown one)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import segno

from tests.web import sse
from tests.web.conftest import Stack
from tests.web.test_tv_fit import modules
from tests.web.tourney import approve, create, report, seat

pytestmark = pytest.mark.redis


async def _next(reader: AsyncIterator[sse.Event]) -> sse.Event:
    async with asyncio.timeout(20):
        return await anext(reader)


async def test_frames_follow_seating_results_and_approvals(stack: Stack) -> None:
    await create(stack.client, "cup", 7)  # created + 7 registrations: seq 8
    async with stack.client.stream("GET", "/tournaments/cup/live") as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        reader = sse.events(response)
        first = await _next(reader)
        assert (first.event, first.id) == ("tournament", "8")
        body = first.json()
        assert body["seq"] == 8
        assert [p["player_id"] for p in body["tournament"]["players"]] == [
            f"p{i:02d}" for i in range(1, 8)
        ]
        assert body["tournament"]["rounds"] == []
        assert len(body["standings"]["players"]) == 7

        tables = await seat(stack.client, "cup")  # seq 9
        seated = await _next(reader)
        assert seated.id == "9"
        got = seated.json()["tournament"]["rounds"][0]["tables"]
        assert [t["players"] for t in got] == tables
        assert sorted(len(t) for t in tables) == [3, 4]  # 7 players: a 4 and a 3

        await report(stack.client, "cup", 1, 1, tables[0])  # seq 10
        reported = await _next(reader)
        assert reported.id == "10"
        assert reported.json()["tournament"]["rounds"][0]["tables"][0]["status"] == "reported"
        assert reported.json()["standings"]["held"] == [
            {"round": 1, "table": 1, "status": "reported"}
        ]

        await approve(stack.client, "cup", 1, 1)  # seq 11
        approved = (await _next(reader)).json()
        assert approved["tournament"]["rounds"][0]["tables"][0]["status"] == "approved"
        lines = {line["player_id"]: line for line in approved["standings"]["players"]}
        # table 1 has 4 players: placement points 7/5/3/1 by seat order (tests/web/tourney.py)
        assert [lines[p]["points"] for p in tables[0]] == [7, 5, 3, 1]
        assert approved["standings"]["held"] == []


async def test_a_resume_at_the_current_seq_waits_for_the_next_change(stack: Stack) -> None:
    await create(stack.client, "cup", 6)  # seq 7
    headers = {"Last-Event-ID": "7"}
    async with stack.client.stream("GET", "/tournaments/cup/live", headers=headers) as response:
        reader = sse.events(response)
        pending = asyncio.ensure_future(_next(reader))
        await asyncio.sleep(1.5)  # three polls: nothing changed, so nothing may be sent
        assert not pending.done()
        await seat(stack.client, "cup")
        frame = await pending
        assert frame.id == "8"
        assert len(frame.json()["tournament"]["rounds"]) == 1
    stale = {"Last-Event-ID": "3"}  # behind: the current state at once
    async with stack.client.stream("GET", "/tournaments/cup/live", headers=stale) as response:
        assert (await _next(sse.events(response))).id == "8"


async def test_unknown_tournament_is_a_404_problem(stack: Stack) -> None:
    response = await stack.client.get("/tournaments/nope/live")
    assert response.status_code == 404
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["rule"] == "tournament.not_found"
    qr = await stack.client.get("/tournaments/nope/qr.svg")
    assert (qr.status_code, qr.json()["rule"]) == (404, "tournament.not_found")
    for path in ("/tv/tournaments/nope", "/tournaments/nope/me", "/tournaments/nope/desk"):
        page = await stack.client.get(path)
        assert page.status_code == 404, path
        assert page.headers["content-type"].startswith("text/html")
        assert '<h1 data-i18n="tournament_not_found">Tournament not found</h1>' in page.text
        assert 'href="/tournaments"' in page.text
        assert "Game not found" not in page.text


async def test_pages_and_the_qr_code_of_the_phone_view(stack: Stack) -> None:
    await create(stack.client, "con-26", 6)
    for path in (
        "/tv/tournaments/con-26",
        "/tournaments/con-26/me",
        "/tournaments/con-26/desk",
        "/overlay/tournaments/con-26",
    ):
        page = await stack.client.get(path)
        assert page.status_code == 200, path
        assert page.headers["content-type"].startswith("text/html")
    qr = await stack.client.get("/tournaments/con-26/qr.svg")
    assert qr.status_code == 200
    assert qr.headers["content-type"] == "image/svg+xml"
    url = f"{stack.url}/tournaments/con-26/me"
    assert qr.headers["x-qr-url"] == url
    assert f"<title>{url}</title>" in qr.text
    code = segno.make(url, error="m", micro=False, boost_error=False)
    assert modules(qr.text) == [[bool(v) for v in row] for row in code.matrix_iter(border=4)]
