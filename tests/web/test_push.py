"""Live push over SSE against the real stack: the projector's change notices reach every open
`/games/{id}/live` stream, with the change-stream entry id as the SSE id, and a reconnect
with `Last-Event-ID` resumes without missing a change."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack

import pytest

from services.adapters.redis.keys import Keys, shard_of
from tests.web import sse
from tests.web.builders import example
from tests.web.conftest import SHARDS, Stack

pytestmark = pytest.mark.redis


async def _changes(stack: Stack, game_id: str) -> list[tuple[str, int]]:
    """(entry id, seq) of the game's notices in its shard's change stream, oldest first."""
    entries = await stack.redis.xrange(Keys(SHARDS).changes(shard_of(game_id, SHARDS)))
    return [(eid.decode(), int(f[b"seq"])) for eid, f in entries if f[b"game"].decode() == game_id]


async def _until_seq(reader: AsyncIterator[sse.Event], seq: int) -> sse.Event:
    """The first event whose standings are at `seq` (a snapshot may lag by a change that the
    hub has not fanned out yet; that change then follows as its own event)."""
    async for event in reader:
        if event.json()["standings"]["seq"] == seq:
            return event
    raise AssertionError("stream ended")


async def _until_change(reader: AsyncIterator[sse.Event], seq: int) -> sse.Event:
    """The first event for the change of `seq` (a first frame labelled with the hub's position
    may be followed by changes it already reflected, each under its own id: on a cluster the
    hub polls, so its position can lag the projection the first frame shows)."""
    async for event in reader:
        change = event.json().get("change")
        if change is not None and change["seq"] >= seq:
            return event
    raise AssertionError("stream ended")


async def test_fifty_subscribers_get_each_change_with_its_entry_id(stack: Stack) -> None:
    events = await stack.projected_example(5)
    game_id = events[0].game_id
    hub = stack.hub
    assert hub is not None
    async with AsyncExitStack() as streams:
        readers = []
        for _ in range(50):
            response = await streams.enter_async_context(
                stack.client.stream("GET", f"/games/{game_id}/live")
            )
            assert response.headers["content-type"].startswith("text/event-stream")
            readers.append(sse.events(response))
        firsts = [await anext(r) for r in readers]
        assert {f.json()["standings"]["seq"] for f in firsts} == {5}
        assert hub.subscriber_count == 50

        await stack.append(events[5:6])
        nexts = await asyncio.wait_for(
            asyncio.gather(*(_until_change(r, 6) for r in readers)), timeout=5
        )
        ((entry_id, _seq),) = [c for c in await _changes(stack, game_id) if c[1] == 6]
        for event in nexts:
            assert event.event == "standings"
            assert event.id == entry_id
            assert event.json()["change"]["seq"] == 6
            assert event.json()["standings"]["seq"] == 6


async def test_reconnect_with_last_event_id_resumes(stack: Stack) -> None:
    events = await stack.projected_example(4)
    game_id = events[0].game_id
    async with stack.client.stream("GET", f"/games/{game_id}/live") as response:
        first = await anext(sse.events(response))
    seen = first.id
    await stack.append(events[4:6])  # two changes while the client is away
    await stack.wait_projected(game_id, 6)

    async with stack.client.stream(
        "GET", f"/games/{game_id}/live", headers={"Last-Event-ID": seen}
    ) as response:
        reader = sse.events(response)
        shown = await asyncio.wait_for(_until_seq(reader, 6), timeout=5)
        resumed = shown
        last = (await _changes(stack, game_id))[-1][0]
        while resumed.id != last:  # the changes the first frame already showed follow it
            resumed = await asyncio.wait_for(anext(reader), timeout=5)
            assert resumed.json()["change"]["seq"] <= 6
    assert resumed.id == last

    # Up to date: nothing is replayed; the next change is the next event received.
    async with stack.client.stream(
        "GET", f"/games/{game_id}/live", headers={"Last-Event-ID": resumed.id}
    ) as response:
        reader = sse.events(response)
        pending = asyncio.ensure_future(anext(reader))
        await asyncio.sleep(0.3)
        assert not pending.done()
        await stack.append(events[6:7])
        nxt = await asyncio.wait_for(pending, timeout=5)
    assert nxt.json()["change"]["seq"] == 7


async def test_games_list_stream_sends_the_list_then_changes(stack: Stack) -> None:
    events = await stack.projected_example(2)
    game_id = events[0].game_id
    async with stack.client.stream("GET", "/games/live") as response:
        reader = sse.events(response)
        first = await anext(reader)
        assert first.event == "games"
        assert [g["game_id"] for g in first.json()["games"]] == [game_id]
        await stack.append(events[2:3])
        change = await asyncio.wait_for(anext(reader), timeout=5)
        while change.json()["summary"]["seq"] < 3:  # a change the first frame already showed
            change = await asyncio.wait_for(anext(reader), timeout=5)
    assert change.event == "game"
    assert change.json()["summary"] == {
        **change.json()["summary"],
        "game_id": game_id,
        "seq": 3,
        "game": "penumbra",
    }


async def test_games_list_stream_first_frame_is_one_page(stack: Stack) -> None:
    # Hostile input (docs/decisions/0019-hostile-input-at-every-door.md): the first frame carried every game (20,000 games: 2.8 MB).
    events = list(example())
    await stack.append(events[:2])
    other = [e.model_copy(update={"game_id": "other-game"}) for e in events[:2]]
    await stack.append(other)
    await stack.wait_projected("other-game", 2)
    await stack.wait_projected(events[0].game_id, 2)
    async with stack.client.stream("GET", "/games/live", params={"limit": 1}) as response:
        first = await anext(sse.events(response))
    assert first.event == "games"
    body = first.json()
    assert (len(body["games"]), body["total"], body["next_page"]) == (1, 2, 2)
    refused = await stack.client.get("/games/live", params={"limit": 501})
    assert (refused.status_code, refused.json()["rule"]) == (422, "request.invalid")
