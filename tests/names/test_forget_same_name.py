"""Two players of a game with the same name: forgetting one leaves the other's name where the
projection shows it. The projection rendered again after a forget is stored as rendered; the
quoted-name replacement (for a projection the render could not replace) never runs over it,
where before it turned the other player's name into the pseudonym too (docs/forget.md)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from contracts.events import parse_event_json
from domain.fold import fold
from domain.standings import standings
from services.adapters.memory.names import MemoryPlayerNames
from services.adapters.memory.store import MemoryBackend
from services.adapters.redis.connect import RedisClient
from services.adapters.redis.keys import Keys
from services.adapters.redis.names import RedisPlayerNames
from services.bootstrap import memory_ports
from services.ports.names import Rendered, Scrub
from services.usecases.forget import Forget, replacements
from services.usecases.project import Project
from services.webhooks.ports import Delivery, Endpoint, Secret
from services.webhooks.usecases.messages import (
    event_messages,
    standings_message,
    standings_summary,
)
from tests.names import test_forget
from tests.names.helpers import GAME, PLAYER, lines
from tests.names.test_forget import TOKEN, App
from tests.pipeline.helpers import wait_until

SAME = "Tess"
"""Oren renamed to Tess's name: seats 2 (oren) and 3 (tess) are both "Tess"."""


async def _post(app: App, game: str) -> None:
    """The example as game `game`, Oren named `SAME`, posted in one batch."""
    body = (
        b"[" + b",".join(line.replace(GAME.encode(), game.encode()) for line in lines(SAME)) + b"]"
    )
    headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
    posted = await app.http.post(f"/games/{game}/events", content=body, headers=headers)
    assert posted.status_code == 201, posted.text


def _names(standings_json: str) -> dict[str, str]:
    return {p["player_id"]: p["name"] for p in json.loads(standings_json)["players"]}


async def test_forgetting_one_of_two_players_of_the_same_name_keeps_the_others() -> None:
    ports = memory_ports(1)
    assert ports.names is not None
    backend = ports.log.b  # type: ignore[attr-defined]
    named = ports.named_log()
    project = Project(named, ports.projections, ports.letters, names=ports.names)
    await named.append(GAME, [parse_event_json(line) for line in lines(SAME)])
    await project.apply(0, list(backend.feeds[0]))
    stored = backend.projections[GAME]
    assert _names(stored["standings"]) == {"mira": "Mira", "oren": SAME, "tess": SAME}
    done = await Forget(ports.log, ports.names).forget(GAME, PLAYER)
    assert done.tiers == ("hot",)
    stored = backend.projections[GAME]
    assert _names(stored["standings"]) == {"mira": "Mira", "oren": "player-2", "tess": SAME}
    view = json.loads(stored["view"])
    assert {p["player_id"]: p["name"] for p in view["players"]}["tess"] == SAME


STANDINGS = (
    '{"players":[{"player_id":"oren","name":"player-2"},{"player_id":"tess","name":"Tess"}]}'
)
VIEW = b'{"result":"Winner: Tess","players":[]}'


@pytest.mark.redis
async def test_redis_stores_the_render_as_rendered(redis_client: RedisClient) -> None:
    keys = Keys(1)
    names = RedisPlayerNames(redis_client, keys)
    old = '{"players":[{"player_id":"oren","name":"Tess"},{"player_id":"tess","name":"Tess"}]}'
    await redis_client.hset(keys.projection(GAME), mapping={"seq": "3", "standings": old})
    scrub = Scrub(replacements(SAME, "player-2"), Rendered(3, STANDINGS, VIEW))
    await names.forget(GAME, PLAYER, scrub)
    stored = await redis_client.hmget(keys.projection(GAME), ["standings", "view"])
    assert stored == [STANDINGS.encode(), VIEW]


async def test_memory_stores_the_render_as_rendered() -> None:
    backend = MemoryBackend(shards=1)
    names = MemoryPlayerNames(backend)
    old = '{"players":[{"player_id":"oren","name":"Tess"},{"player_id":"tess","name":"Tess"}]}'
    backend.projections[GAME] = {"seq": "3", "standings": old}
    scrub = Scrub(replacements(SAME, "player-2"), Rendered(3, STANDINGS, VIEW))
    await names.forget(GAME, PLAYER, scrub)
    stored = backend.projections[GAME]
    assert (stored["standings"], stored["view"]) == (STANDINGS, VIEW.decode())


app = test_forget.app
"""The memory service with an archive (`test_forget.app`)."""


async def test_an_archived_game_keeps_the_other_players_same_name(app: App) -> None:
    game = "same-name-1"
    await _post(app, game)

    async def final() -> bool:
        got = await app.http.get(f"/games/{game}/standings")
        return got.status_code == 200 and got.json()["seq"] == len(lines(SAME))

    await wait_until(final, 60, "the game projected")
    seal = app.service.cases.seal
    assert seal is not None
    assert await seal.game(game, datetime(2100, 1, 1, tzinfo=UTC)) == "sealed"
    done = await app.forget(game=game)
    assert done.tiers == ("archive",)
    projection = app.archive.games[game].projection
    assert projection is not None
    shown = _names(projection.standings_json)
    assert shown == {"mira": "Mira", "oren": "player-2", "tess": SAME}


async def test_kept_webhook_bodies_keep_the_other_players_same_name(app: App) -> None:
    game = "same-name-2"
    await _post(app, game)
    store = app.service.ports.webhooks
    endpoint = Endpoint("ep-1", "https://hooks.example/in", None, (), (Secret("whsec_x"),), 0)
    await store.put_endpoint(endpoint)
    events = await app.service.ports.named_log().read(game)
    summary = standings_summary(standings(fold(events)))
    bodies = [b for _, _, b in event_messages(events, summary)]
    bodies.append(standings_message(game, summary, datetime(2026, 12, 6, tzinfo=UTC)))
    for i, text in enumerate(bodies):
        await store.enqueue(Delivery(f"msg_{i}", endpoint.id, "x", game, text, 0), 100, 100)
    done = await app.forget(game=game)
    assert "webhooks" in done.tiers
    for entry in await store.log("ep-1", 100):
        for player in _players(json.loads(entry.delivery.body)):
            assert (
                player["name"]
                == {"mira": "Mira", "oren": "player-2", "tess": SAME}[player["player_id"]]
            ), entry.delivery.body


def _players(message: dict[str, Any]) -> list[dict[str, Any]]:
    data = message["data"]
    if "players" in data:
        return list(data["players"])
    return list(data["standings"]["players"]) if data.get("standings") else []
