"""The projector puts the kept names back into the start events of a batch with one read of
every such game's names (`PlayerNames.names_many`), not one read per game, and each game's
projection shows its own players' names (docs/decisions/0014-names-outside-the-log.md).
Both adapters answer `names_many` as `names` answers each game."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest

from contracts.events import parse_event_json
from services.adapters.memory.names import MemoryPlayerNames
from services.adapters.memory.store import MemoryBackend
from services.adapters.redis.connect import RedisClient
from services.adapters.redis.keys import Keys
from services.adapters.redis.names import RedisPlayerNames
from services.bootstrap import memory_ports
from services.ports.names import PlayerNames
from services.usecases.project import Project
from tests.names.helpers import PLAYER, lines

GAMES = 5


class CountingNames:
    """A `PlayerNames` that counts the reads of names (the rest goes to `inner`)."""

    def __init__(self, inner: PlayerNames) -> None:
        self.inner = inner
        self.single: list[str] = []
        self.batches: list[list[str]] = []

    async def names(self, game_id: str) -> dict[str, str]:
        self.single.append(game_id)
        return await self.inner.names(game_id)

    async def names_many(self, game_ids: Sequence[str]) -> list[dict[str, str]]:
        self.batches.append(list(game_ids))
        return await self.inner.names_many(game_ids)


def _game(i: int) -> list[bytes]:
    """The example game under its own id, Oren named `Oren <i>`."""
    out = []
    for line in lines(f"Oren {i}"):
        event = json.loads(line)
        event["game_id"] = f"pen-names-{i}"
        out.append(json.dumps(event, separators=(",", ":"), ensure_ascii=False).encode())
    return out


async def test_one_read_of_names_per_batch_and_each_game_its_own() -> None:
    ports = memory_ports(1)
    assert ports.names is not None
    backend = ports.log.b  # type: ignore[attr-defined]
    named = ports.named_log()
    counting = CountingNames(ports.names)
    project = Project(named, ports.projections, ports.letters, names=counting)  # type: ignore[arg-type]
    for i in range(GAMES):
        await named.append(f"pen-names-{i}", [parse_event_json(x) for x in _game(i)[:4]])
    stored_start = backend.feeds[0][0].data
    assert b"Oren 0" not in stored_start  # stored without the name: the read puts it back
    applied = await project.apply(0, list(backend.feeds[0]))
    assert applied.events == 4 * GAMES
    assert counting.single == []
    assert counting.batches == [[f"pen-names-{i}" for i in range(GAMES)]]
    for i in range(GAMES):
        standings = json.loads(backend.projections[f"pen-names-{i}"]["standings"])
        shown = {p["player_id"]: p["name"] for p in standings["players"]}
        assert shown[PLAYER] == f"Oren {i}"


async def _answers_as_names(names: PlayerNames) -> None:
    await names.keep("g-a", {"p1": "Ann", "p2": "Bo"})
    await names.keep("g-b", {"p1": "Cy"})
    games = ["g-b", "g-none", "g-a", "g-b"]
    assert await names.names_many(games) == [await names.names(g) for g in games]
    assert await names.names_many(games) == [
        {"p1": "Cy"},
        {},
        {"p1": "Ann", "p2": "Bo"},
        {"p1": "Cy"},
    ]
    assert await names.names_many([]) == []


async def test_memory_names_many_answers_as_names() -> None:
    await _answers_as_names(MemoryPlayerNames(MemoryBackend(shards=2)))


@pytest.mark.redis
async def test_redis_names_many_answers_as_names(redis_client: RedisClient) -> None:
    await _answers_as_names(RedisPlayerNames(redis_client, Keys(4)))
