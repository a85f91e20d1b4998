"""The frames a running service sends on `GET /tournaments/{tournament_id}/live` match their
published schema: each `data` validates against the item schema `contracts/openapi.json` gives
the stream (`TournamentFrame`, JSON Schema 2020-12 over the document's components) and parses
with `contracts.tournament_frames.TournamentFrame`, from the first frame of an upcoming
tournament through a seated round with its clock, a report, a dispute and a ruling, to the
finished tournament with its winner. The frames were typed as a plain `string` before."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from jsonschema import Draft202012Validator

from contracts.tournament_frames import TournamentFrame
from tests.web import sse
from tests.web.conftest import Stack
from tests.web.test_frames import DOCUMENT, _check
from tests.web.tourney import AUTH, create, report, results, seat

pytestmark = pytest.mark.redis
PATH = "/tournaments/{tournament_id}/live"


async def _next(reader: AsyncIterator[sse.Event]) -> sse.Event:
    async with asyncio.timeout(20):
        return await anext(reader)


async def _write(stack: Stack, path: str, body: dict[str, object]) -> None:
    response = await stack.client.post(path, json=body, headers=AUTH)
    assert response.status_code in (200, 201), response.text


async def test_the_tournament_frames_a_running_service_sends_match_their_schema(
    stack: Stack,
) -> None:
    await create(stack.client, "cup", 4, rounds=1)  # seq 5
    async with stack.client.stream("GET", "/tournaments/cup/live") as response:
        reader = sse.events(response)
        first = await _next(reader)
        assert (first.event, first.id) == ("tournament", "5")
        assert _check(PATH, first) == "TournamentFrame"
        assert first.json()["tournament"]["status"] == "upcoming"

        (table,) = await seat(stack.client, "cup")  # seq 6
        await _write(stack, "/tournaments/cup/rounds/1/timer", {"minutes": 40})  # seq 7
        await report(stack.client, "cup", 1, 1, table)  # seq 8
        dispute = {"action": "dispute", "round": 1, "by": table[1], "reason": "wrong place"}
        await _write(stack, "/tournaments/cup/tables/1/result", dispute)  # seq 9
        ruling = {"action": "approve", "round": 1, "by": "judge", "results": results(table)}
        await _write(stack, "/tournaments/cup/tables/1/result", ruling)  # seq 10, 11 (closed)
        frame = await _next(reader)
        while frame.json()["tournament"]["status"] != "finished":
            assert _check(PATH, frame) == "TournamentFrame"
            frame = await _next(reader)
        assert _check(PATH, frame) == "TournamentFrame"
    last = TournamentFrame.model_validate(frame.json())
    assert last.tournament.winner is not None
    assert last.tournament.winner.player_id == table[0]
    (round_,) = last.tournament.rounds
    assert round_.timer is not None
    assert round_.timer.minutes == 40
    kinds = [act.kind for act in round_.tables[0].history]
    assert kinds == ["reported", "disputed", "ruled"]
    assert [line.player_id for line in last.standings.players][:1] == [table[0]]


def test_a_tournament_frame_with_a_member_the_schema_does_not_name_is_refused() -> None:
    """The check above can fail: a frame with an unknown member, or a table with a status the
    service does not send, matches no published shape."""
    check = Draft202012Validator(
        {"$ref": "#/components/schemas/TournamentFrame", "components": DOCUMENT["components"]}
    )
    view = {
        "tournament_id": "cup",
        "seq": 1,
        "status": "upcoming",
        "winner": None,
        "settings": {"title": "Cup"},
        "check_in": False,
        "players": [],
        "rounds": [],
    }
    lean = {"tournament_id": "cup", "seq": 1, "rounds_seated": 0, "players": [], "held": []}
    good = {"seq": 1, "tournament": view, "standings": lean}
    assert list(check.iter_errors(good)) == []
    assert list(check.iter_errors({**good, "colour": "red"}))
    assert list(check.iter_errors({**good, "tournament": {**view, "status": "paused"}}))


def test_every_live_stream_names_the_live_page_for_its_frames_and_resume_rule() -> None:
    """A stream's description points at the published page (docs/integrating/live.md), not
    at a module docstring an integrator cannot read; the game stream said "see the module
    docstring for the resume rule", and the tournament stream named its module."""
    streams = {
        path: operations["get"]
        for path, operations in DOCUMENT["paths"].items()
        if "text/event-stream"
        in operations.get("get", {}).get("responses", {}).get("200", {}).get("content", {})
    }
    assert set(streams) == {"/games/{game_id}/live", "/games/live", PATH}
    for path in ("/games/{game_id}/live", PATH):
        text = streams[path]["description"]
        assert "docs/integrating/live.md" in text, path
        assert "module" not in text
        assert "services." not in text
