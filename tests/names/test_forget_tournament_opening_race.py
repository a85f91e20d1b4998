"""`scoreledger forget --tournament` while the desk is opening a round's table games: the desk
read the tournament (the names put back) before the forget and creates the games after it.
The forget hid the player in the tournament and skipped the tables whose game did not exist
yet ("a table whose game was never created", `Forget.forget_tournament`); the game then
created holds the player's name, in the names HASH and every answer, though the forget
reported the player hidden in the tournament and its table games. docs/forget.md (forget makes
the name unreadable in every tier), ADR 0014."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from services.bootstrap import memory_ports, use_cases
from services.platform.settings import ServiceSettings
from tests.doors.test_leagues_http import league_app
from tests.doors.test_tournaments_http import AUTH
from tests.names.helpers import holds_name
from tests.names.test_forget_tournament import FORGOTTEN, NAME, PLAYERS


@pytest.mark.xfail(
    strict=True,
    reason="known: a round opened from a state read before a tournament forget creates its table games with the name",
)
async def test_a_table_game_opened_across_a_forget_does_not_name_the_player() -> None:
    ports = memory_ports(4)
    cases = use_cases(ports, ServiceSettings())
    forget = cases.forget
    assert forget is not None
    games: Any = cases.tables.games
    real_record = games.record
    fired = False

    async def record(*args: Any, **kwargs: Any) -> Any:
        nonlocal fired
        if not fired:  # the desk read the tournament; the forget lands before the creation
            fired = True
            await forget.forget_tournament("cup", FORGOTTEN)
        return await real_record(*args, **kwargs)

    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=league_app(cases)), base_url="http://sl", timeout=30
    ) as http:
        new = {"tournament_id": "cup", "title": "Cup", "game": "penumbra", "rounds": 1}
        assert (await http.post("/tournaments", json=new, headers=AUTH)).status_code == 201
        for pid in PLAYERS:
            body = {"player_id": pid, "name": NAME if pid == FORGOTTEN else pid.upper()}
            r = await http.post("/tournaments/cup/players", json=body, headers=AUTH)
            assert r.status_code == 201, r.text
        games.record = record
        seated = await http.post("/tournaments/cup/rounds", headers=AUTH)
        games.record = real_record
        assert seated.status_code == 201, seated.text
        assert fired
        tables = seated.json()["tables"]
        assert all(t["game_refused"] is None for t in tables)
        [game] = [t["game_id"] for t in tables if FORGOTTEN in t["players"]]
        assert not holds_name((await http.get("/tournaments/cup")).content)  # hidden there
    [start] = await ports.named_log().read_raw(game, 1, 1)  # as every answer reads it
    kept = await ports.names.names(game)  # type: ignore[union-attr]
    # fails on main: the table game was created with the name read before the forget
    assert (holds_name(start), kept[FORGOTTEN]) == (False, "")
