"""Live push over SSE against the real stack while the change hub idles between streams
(docs/profiles/serve-round-trips.md): streams opened and closed one after another while a game is appended
to, with idle gaps between them (nobody subscribed: the hub reads nothing), each sees its ids
strictly increasing and its standings never going back; the last one (the 9th, or the first
after the appends end) reaches the game's last seq with no change after it (none missed after
its position). Source: issue brief (live push); docs/profiles/hot-path-profiles.md."""

from __future__ import annotations

import asyncio
import random

import pytest

from services.doors.push.hub import entry_key
from tests.web import sse
from tests.web.conftest import Stack

pytestmark = pytest.mark.redis


async def test_streams_opened_while_appending_across_idle_gaps(stack: Stack) -> None:
    events = await stack.projected_example(2)
    game_id = events[0].game_id
    last = min(len(events), 40)
    rng = random.Random(30)

    async def produce() -> None:
        for i in range(2, last):
            await stack.append(events[i : i + 1])
            await asyncio.sleep(rng.uniform(0.005, 0.04))

    producer = asyncio.create_task(produce())
    opened = 0
    try:
        while True:
            final = producer.done() or opened >= 8
            opened += 1
            async with stack.client.stream("GET", f"/games/{game_id}/live") as response:
                reader = sse.events(response)
                first = await asyncio.wait_for(anext(reader), 5)
                ids, seqs = [first.id], [first.json()["standings"]["seq"]]
                frames = rng.randint(0, 3) if not final else last
                while seqs[-1] < last and len(seqs) <= frames:
                    event = await asyncio.wait_for(anext(reader), 10)
                    ids.append(event.id)
                    seqs.append(event.json()["standings"]["seq"])
                keys = [entry_key(i) for i in ids]
                assert keys == sorted(set(keys)), ids
                assert seqs == sorted(seqs), seqs
            if final:
                assert seqs[-1] == last
                break
            await asyncio.sleep(rng.choice([0, 0.05, 0.15]))  # an idle gap, or none
    finally:
        await producer
    assert opened >= 2
