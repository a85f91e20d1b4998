"""`scoreledger forget --tournament` while the desk is opening a round's table games: the desk
read the tournament (the names put back) before the forget and creates the games after it.
The forget hid the player in the tournament and skipped the tables whose game did not exist
yet; the game then created held the player's name, in the names HASH and every answer, though
the forget reported the player hidden in the tournament and its table games. Now the forget
marks the player forgotten in a table game not created yet (`Forget._table_game`), and reads
the tournament's tables again after hiding the player (`SideForget._tournament`: a round
seated after its first read). docs/forget.md (forget makes the name unreadable in every tier),
ADR 0014. On the memory adapters and on Redis."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest

from services.bootstrap import Ports, UseCases, build, memory_ports, use_cases
from services.platform.settings import ServiceSettings
from tests.archive.test_forget import redis_values
from tests.doors.test_leagues_http import league_app
from tests.doors.test_tournaments_http import AUTH
from tests.names.helpers import holds_name
from tests.names.test_forget_tournament import FORGOTTEN, NAME, PLAYERS


@asynccontextmanager
async def service(
    kind: str, request: pytest.FixtureRequest
) -> AsyncIterator[tuple[UseCases, Ports]]:
    """The use cases and ports of the memory adapters, or of a clean Redis (`kind`); on
    Redis, no key or value holds the name at the end."""
    if kind == "memory":
        ports = memory_ports(4)
        yield use_cases(ports, ServiceSettings()), ports
        return
    url = request.getfixturevalue("clean_redis_url")
    built = build(ServiceSettings(redis_url=url, shards=4))
    try:
        yield built.cases, built.ports
    finally:
        await built.client.aclose()
    assert [v for v in redis_values(url) if holds_name(v)] == []


KINDS = ["memory", pytest.param("redis", marks=pytest.mark.redis)]


async def registered(http: httpx.AsyncClient) -> None:
    """Tournament `cup` (one round) with `PLAYERS` registered, `FORGOTTEN` named `NAME`."""
    new = {"tournament_id": "cup", "title": "Cup", "game": "penumbra", "rounds": 1}
    assert (await http.post("/tournaments", json=new, headers=AUTH)).status_code == 201
    for pid in PLAYERS:
        body = {"player_id": pid, "name": NAME if pid == FORGOTTEN else pid.upper()}
        r = await http.post("/tournaments/cup/players", json=body, headers=AUTH)
        assert r.status_code == 201, r.text


async def no_name_in_the_game(
    http: httpx.AsyncClient, cases: UseCases, ports: Ports, tables: Any
) -> None:
    """The forgotten player's table game holds no name: its start event as every answer
    reads it, its kept names (`""`: forgotten), its stored projection, and the tournament's
    answer."""
    assert all(t["game_refused"] is None for t in tables)
    [game] = [t["game_id"] for t in tables if FORGOTTEN in t["players"]]
    assert not holds_name((await http.get("/tournaments/cup")).content)  # hidden there
    [start] = await ports.named_log().read_raw(game, 1, 1)
    kept = await ports.names.names(game)  # type: ignore[union-attr]
    # failed before: the table game was created with the name read before the forget
    assert (holds_name(start), kept[FORGOTTEN]) == (False, "")
    assert not holds_name(b"".join(await cases.reads.log.read_raw(game)))  # the query door's
    stored = await ports.projections.standings(game)  # the append's live projection, if any
    assert stored is None or not holds_name((stored.view or b"") + (stored.standings or b""))


@pytest.mark.parametrize("kind", KINDS)
async def test_a_table_game_opened_across_a_forget_does_not_name_the_player(
    kind: str, request: pytest.FixtureRequest
) -> None:
    async with service(kind, request) as (cases, ports):
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
            await registered(http)
            games.record = record
            seated = await http.post("/tournaments/cup/rounds", headers=AUTH)
            games.record = real_record
            assert seated.status_code == 201, seated.text
            assert fired
            await no_name_in_the_game(http, cases, ports, seated.json()["tables"])


@pytest.mark.parametrize("kind", KINDS)
async def test_a_round_seated_and_opened_during_a_forget_does_not_name_the_player(
    kind: str, request: pytest.FixtureRequest
) -> None:
    """The forget read the tournament before the round was seated; the round is seated and
    its games created (names put back: the player not hidden yet) before the forget hides
    the player. The forget finds the tables read again after its hide."""
    async with service(kind, request) as (cases, ports):
        forget = cases.forget
        assert forget is not None
        side: Any = forget.side
        names = side.tournaments.names
        real_forget = names.forget
        seat: list[Callable[[], Awaitable[httpx.Response]]] = []
        seated: list[httpx.Response] = []

        async def hide(*args: Any, **kwargs: Any) -> Any:
            if seat and not seated:  # between the forget's read and its hide
                seated.append(await seat[0]())
            return await real_forget(*args, **kwargs)

        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=league_app(cases)), base_url="http://sl", timeout=30
        ) as http:
            await registered(http)
            seat.append(lambda: http.post("/tournaments/cup/rounds", headers=AUTH))
            names.forget = hide
            side_done, done = await forget.forget_tournament("cup", FORGOTTEN)
            names.forget = real_forget
            assert [s.status_code for s in seated] == [201], seated
            tables = seated[0].json()["tables"]
            [game] = [t["game_id"] for t in tables if FORGOTTEN in t["players"]]
            assert side_done.games == (game,)
            assert [g.game_id for g in done] == [game]
            await no_name_in_the_game(http, cases, ports, tables)


@pytest.mark.parametrize("kind", KINDS)
async def test_a_table_game_created_just_before_the_forget_marks_it_is_forgotten(
    kind: str, request: pytest.FixtureRequest
) -> None:
    """The opening read the tournament before the forget; its game is created (names kept)
    after the forget found no game and before it marked the player forgotten there: the
    mark changes nothing (`keep` never overwrites), the forget's second look finds the game."""
    async with service(kind, request) as (cases, ports):
        forget = cases.forget
        assert forget is not None
        games: Any = cases.tables.games
        real_record = games.record
        game_names: Any = forget.names
        real_keep = game_names.keep
        pending: list[tuple[Any, Any]] = []
        fired = False

        async def keep(*args: Any, **kwargs: Any) -> Any:
            while pending:  # the creation lands between the forget's first look and its mark
                a, k = pending.pop()
                await real_record(*a, **k)
            return await real_keep(*args, **kwargs)

        async def record(*args: Any, **kwargs: Any) -> Any:
            nonlocal fired
            if not fired:
                fired = True
                pending.append((args, kwargs))
                game_names.keep = keep
                await forget.forget_tournament("cup", FORGOTTEN)
                assert not pending  # the mark ran, after the creation
            return await real_record(*args, **kwargs)

        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=league_app(cases)), base_url="http://sl", timeout=30
        ) as http:
            await registered(http)
            games.record = record
            seated = await http.post("/tournaments/cup/rounds", headers=AUTH)
            games.record = real_record
            game_names.keep = real_keep
            assert seated.status_code == 201, seated.text
            assert fired
            await no_name_in_the_game(http, cases, ports, seated.json()["tables"])
