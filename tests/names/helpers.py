"""The forget tests' game: the Penumbra example with Oren renamed "Alma Nováková" (a name with
non-ASCII letters, so both its UTF-8 and its `\\u`-escaped JSON forms are looked for)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

EXAMPLE = Path(__file__).resolve().parents[2] / "contracts" / "examples" / "penumbra-3p.jsonl"
GAME = "pen-demo-3p"
NAME = "Alma Nováková"
PLAYER = "oren"
SEAT = 2
"""Oren's seat in the example's start event: the pseudonym is `player-2`."""

FORMS = (NAME.encode(), json.dumps(NAME)[1:-1].encode(), b"Alma", b"Nov\\u00e1kov", "ková".encode())
"""Every form of the name looked for: UTF-8, JSON-escaped (`\\u00e1`), and a part of it."""

EXPECTED = {"mira": (1, 68), "tess": (2, 64), "oren": (3, 46)}
"""player -> (rank, total) of contracts/examples/penumbra-3p.expected.json (the offline
`scoreledger score` of the example; a name does not change any score)."""


def lines(name: str = NAME) -> list[bytes]:
    """The example's JSONL lines with Oren's name replaced by `name` (as posted)."""
    out = [line for line in EXAMPLE.read_bytes().splitlines() if line.strip()]
    first = json.loads(out[0])
    for player in first["payload"]["players"]:
        if player["player_id"] == PLAYER:
            player["name"] = name
    out[0] = json.dumps(first, separators=(",", ":"), ensure_ascii=False).encode()
    return out


def holds_name(data: bytes) -> bool:
    """Whether `data` holds the name in any form of `FORMS`."""
    return any(form in data for form in FORMS)


def ranks_and_totals(standings: dict[str, object]) -> dict[str, tuple[int, int]]:
    """player -> (rank, total) of a standings answer."""
    players = standings["players"]
    assert isinstance(players, list)
    return {p["player_id"]: (p["rank"], p["total"]) for p in players}


Feed = Callable[[int], Awaitable[list[Any]]]
"""A shard's feed entries, read from its start."""


@asynccontextmanager
async def on_redis(url: str, shards: int) -> AsyncIterator[tuple[Any, Any, Any, Feed]]:
    """A whole service on `url` (`services.bootstrap.build`, `shards` feeds): its ports, its
    `Forget`, its project use case, and `feed(shard)` (the shard's feed entries from the
    start); the client is closed at the end."""
    from services.bootstrap import build
    from services.platform.settings import ServiceSettings

    service = build(ServiceSettings(redis_url=url, shards=shards))
    try:
        ports, cases = service.ports, service.cases
        assert cases.forget is not None
        assert ports.pipeline is not None
        feeds = ports.pipeline.feeds

        async def feed(shard: int) -> list[Any]:
            (batch,) = await feeds.read({shard: "0-0"}, 1000, 0)
            return list(batch.entries)

        yield ports, cases.forget, cases.project, feed
    finally:
        await service.client.aclose()
