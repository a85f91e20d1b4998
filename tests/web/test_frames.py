"""The live frames a running service sends match their published schemas: every `data` of
`GET /games/{game_id}/live` (the whole first frame, then compact ones) and of `GET /games/live`
(the list, then `game` changes) validates against the item schema `contracts/openapi.json`
gives that stream (JSON Schema 2020-12 over the document's components) and parses with its
model in `contracts.frames`. The frames were typed as a plain `string` before, in two
undocumented shapes."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from contracts import frames
from services.doors.query.openapi import COMMITTED
from tests.web import sse
from tests.web.conftest import Stack

pytestmark = pytest.mark.redis

DOCUMENT = json.loads(COMMITTED.read_text(encoding="utf-8"))
MODELS = {
    "StandingsFrame": frames.StandingsFrame,
    "CompactStandingsFrame": frames.CompactStandingsFrame,
    "GameFrame": frames.GameFrame,
}


def _check(path: str, event: sse.Event) -> str:
    """Validate `event` against `path`'s published item schema; the schema name it matched."""
    stream = DOCUMENT["paths"][path]["get"]["responses"]["200"]["content"]["text/event-stream"]
    item = stream["x-itemSchema"]
    items = item.get("oneOf", [item])
    (own,) = [i for i in items if i["properties"]["event"]["const"] == event.event]
    schema = own["properties"]["data"]["contentSchema"]
    refs = [s["$ref"] for s in schema.get("oneOf", [schema])]
    matched = []
    for ref in refs:
        check = Draft202012Validator({"$ref": ref, "components": DOCUMENT["components"]})
        if not list(check.iter_errors(event.json())):
            matched.append(ref.rsplit("/", 1)[1])
    assert len(matched) == 1, (event.event, event.data[:300], matched)
    whole = {"event": event.event, "data": event.data}
    if event.id is not None:
        whole["id"] = event.id
    base = {"$ref": "#/components/schemas/ServerSentEvent", "components": DOCUMENT["components"]}
    assert list(Draft202012Validator(base).iter_errors(whole)) == []
    if matched[0] in MODELS:
        MODELS[matched[0]].model_validate(event.json())
    return matched[0]


async def _take(reader: AsyncIterator[sse.Event], count: int) -> list[sse.Event]:
    return [await asyncio.wait_for(anext(reader), timeout=5) for _ in range(count)]


async def test_the_standings_frames_a_running_service_sends_match_their_schemas(
    stack: Stack,
) -> None:
    events = await stack.projected_example(3)
    game_id = events[0].game_id
    async with stack.client.stream("GET", f"/games/{game_id}/live") as response:
        reader = sse.events(response)
        (first,) = await _take(reader, 1)
        assert _check("/games/{game_id}/live", first) == "StandingsFrame"
        await stack.append(events[3:5])
        shapes = set()
        while True:
            frame = await asyncio.wait_for(anext(reader), timeout=5)
            shapes.add(_check("/games/{game_id}/live", frame))
            if frame.json()["change"]["seq"] >= 5:
                break
    assert shapes == {"CompactStandingsFrame"}


async def test_the_games_list_frames_match_their_schemas(stack: Stack) -> None:
    events = await stack.projected_example(2)
    async with stack.client.stream("GET", "/games/live") as response:
        reader = sse.events(response)
        (first,) = await _take(reader, 1)
        assert _check("/games/live", first) == "GamesResponse"
        await stack.append(events[2:3])
        change: dict[str, Any] = {}
        while change.get("summary", {}).get("seq", 0) < 3:
            frame = await asyncio.wait_for(anext(reader), timeout=5)
            assert _check("/games/live", frame) == "GameFrame"
            change = frame.json()


def test_a_frame_with_a_member_the_schema_does_not_name_is_refused() -> None:
    """The check above can fail: a compact frame with an unknown member, or a whole frame's
    standings missing a field, matches no published shape."""
    check = Draft202012Validator(
        {"$ref": "#/components/schemas/CompactStandingsFrame", "components": DOCUMENT["components"]}
    )
    change = {"shard": 1, "entry_id": "1-0", "game_id": "g", "seq": 1}
    good = {"change": change, "compact": True, "standings": {"game_id": "g", "seq": 1}}
    good["standings"] |= {"status": "in_progress", "players": []}
    assert list(check.iter_errors(good)) == []
    assert list(check.iter_errors({**good, "colour": "red"}))
    whole = Draft202012Validator(
        {"$ref": "#/components/schemas/StandingsFrame", "components": DOCUMENT["components"]}
    )
    assert list(whole.iter_errors({"change": None, "standings": {"game_id": "g"}}))
