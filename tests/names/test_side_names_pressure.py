"""Side names under pressure (a review's findings, each failed before its fix): a refused
append decides no name and leaves none behind; a league reads each addition's own names
(the latest naming wins, as before names left the log); forget finds a league written partly
before; a league addition racing a forget keeps no name; `already` counts the work done
beside the game; a rewritten tournament stream still dedups and checks versions on Redis."""

from __future__ import annotations

import dataclasses
import uuid
from typing import Any

import httpx
import pytest

from contracts.tournament import PlayerRegistered
from services.adapters.memory.names import MemorySideNames
from services.bootstrap import Ports, UseCases, memory_ports, use_cases
from services.platform.settings import ServiceSettings
from services.ports.errors import VersionConflict
from services.simulator.tables import simulate_game
from services.tournaments.adapters.memory import MemoryTournamentLog
from services.usecases.names import Forget
from services.usecases.side_names import NamedSideLog, NotNamed
from tests.domain.tournament.stream import Stream
from tests.doors.test_leagues_http import league_app
from tests.doors.test_tournaments_http import AUTH
from tests.names.helpers import NAME, holds_name
from tests.names.test_forget_tournament import FORGOTTEN, SHOWN, play_season


def _legacy(ports: Ports) -> Ports:
    return dataclasses.replace(ports, tournament_names=None, league_names=None)


async def _single_game(
    http: httpx.AsyncClient, game_id: str, rename: dict[str, str] | None = None
) -> list[str]:
    events = [e.model_dump(mode="json") for e in simulate_game("penumbra", 9, 3, players=3)]
    for e in events:
        e["game_id"] = game_id
    for p in events[0]["payload"]["players"]:
        p["name"] = (rename or {}).get(p["player_id"], p["name"])
    token = {"Authorization": "Bearer " + "t" * 40}
    got = await http.post(f"/games/{game_id}/events", json=events, headers=token)
    assert got.status_code == 201, got.text
    return [p["player_id"] for p in events[0]["payload"]["players"]]


# 1. A name kept by an append that then fails (VersionConflict: a concurrent writer won) is
#    never overwritten (HSETNX), so the event stored later reads with the refused request's
#    name, not its own; and a name kept for a player no event names cannot be forgotten.
async def test_a_failed_append_does_not_decide_the_name_a_stored_event_reads() -> None:
    inner = MemoryTournamentLog()
    log = NamedSideLog(inner, MemorySideNames(inner))
    stream = Stream("cup").create()
    await log.append("cup", stream.events, "digest")
    stale = stream.add(PlayerRegistered(player_id="p1", name="Mallory Typo"))
    stale = stale.model_copy(update={"seq": 5})  # a writer on a stale version: refused
    with pytest.raises(VersionConflict):
        await log.append("cup", [stale], "digest")
    stream.events.pop()
    ok = stream.add(PlayerRegistered(player_id="p1", name="Alma"))
    await log.append("cup", [ok], "digest")
    read = await log.read("cup")
    assert isinstance(read[1].payload, PlayerRegistered)
    assert read[1].payload.name == "Alma"  # the event as posted (NamedSideLog docstring)


async def test_a_name_kept_for_no_event_cannot_be_forgotten() -> None:
    inner = MemoryTournamentLog()
    names = MemorySideNames(inner)
    log = NamedSideLog(inner, names)
    stream = Stream("cup").create()
    await log.append("cup", stream.events, "digest")
    late = stream.add(PlayerRegistered(player_id="p9", name=NAME)).model_copy(update={"seq": 7})
    with pytest.raises(VersionConflict):
        await log.append("cup", [late], "digest")
    from services.usecases.side_names import SideForget

    league_inner: Any = MemoryTournamentLog()
    forget = SideForget(log, NamedSideLog(league_inner, MemorySideNames(league_inner)))
    with pytest.raises(NotNamed):
        await forget.forget_tournament("cup", "p9")
    # the name stays kept beside the stream, with no way for `forget` to reach it
    assert not any(holds_name(v.encode()) for v in (await names.names("cup")).values())


# 2. A league's names: "the latest addition naming a player wins" (domain/league/fold.py);
#    kept names are first-wins (HSETNX), so a later addition reads with the earlier name.
async def test_a_league_shows_the_latest_name_as_before() -> None:
    async def names_after_two_games(cases: UseCases) -> dict[str, str]:
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=league_app(cases)), base_url="http://sl"
        ) as http:
            await _single_game(http, "g-1")
            await _single_game(http, "g-2", {"jana": "Jana Nováková"})  # renamed since
            new_league = {"league_id": "club", "title": "Club", "game": "penumbra"}
            assert (await http.post("/leagues", json=new_league, headers=AUTH)).status_code == 201
            for g in ("g-1", "g-2"):
                added = await http.post("/leagues/club/games", json={"game_id": g}, headers=AUTH)
                assert added.status_code == 200, added.text
            table = (await http.get("/leagues/club/standings")).json()["players"]
            return {p["player_id"]: p["name"] for p in table}

    before = await names_after_two_games(use_cases(_legacy(memory_ports(4)), ServiceSettings()))
    now = await names_after_two_games(use_cases(memory_ports(4), ServiceSettings()))
    assert before["jana"] == "Jana Nováková"
    assert now == before


# 3. A league written with names inline that later keeps names (a new addition after the
#    upgrade) is in the index, but the forgotten player is not among its kept names: forget
#    skips it, and the league still shows the name.
async def test_a_partly_legacy_league_is_found_by_forget() -> None:
    ports = memory_ports(4)
    settings = ServiceSettings()
    async for played in play_season(use_cases(_legacy(ports), settings)):  # league adds cup
        now = use_cases(ports, settings)  # the upgrade: names kept apart from here on
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=league_app(now)), base_url="http://sl"
        ) as http:
            await _single_game(http, "friday-1")
            added = await http.post(
                "/leagues/club/games", json={"game_id": "friday-1"}, headers=AUTH
            )
            assert added.status_code == 200, added.text
            assert holds_name((await http.get("/leagues/club/standings")).content)
            assert now.forget is not None
            done = await now.forget.forget(played.games[0], FORGOTTEN)
            assert done.side is not None
            assert done.side.tournament == ("cup", SHOWN)
            standings = (await http.get("/leagues/club/standings")).content
            assert done.side.leagues == (("club", SHOWN),)
            assert not holds_name(standings)


# 4. A league addition that read the tournament before a forget and appends after it keeps
#    the real name in the league (forget looked at the league before the addition existed).
async def test_a_league_addition_racing_a_forget_keeps_no_name() -> None:
    cases = use_cases(memory_ports(4), ServiceSettings())
    async for played in play_season(cases, league=False):
        forget = cases.forget
        assert forget is not None
        http = played.http
        new_league = {"league_id": "club", "title": "Club", "game": "penumbra"}
        assert (await http.post("/leagues", json=new_league, headers=AUTH)).status_code == 201
        tournaments: Any = cases.leagues.tournaments
        original = tournaments.state

        async def state_then_forget(tournament_id: str, *args: Any, **kw: Any) -> Any:
            # called within this iteration: the loop's one value is meant
            state = await original(tournament_id, *args, **kw)  # noqa: B023
            await forget.forget(played.games[0], FORGOTTEN)  # noqa: B023  (the operator)
            return state

        tournaments.state = state_then_forget
        try:
            added = await http.post(
                "/leagues/club/tournaments", json={"tournament_id": "cup"}, headers=AUTH
            )
        finally:
            tournaments.state = original
        assert added.status_code == 200, added.text
        assert not holds_name((await http.get("/tournaments/cup/standings")).content)
        assert not holds_name((await http.get("/leagues/club/standings")).content)


# 5. A game forgotten with the release before this change (no side names): running forget
#    again now hides the player in the tournament and stores its events again, but reports
#    "was forgotten already" and leaves out the copies warning.
async def test_forget_reports_work_done_beside_a_game_forgotten_before() -> None:
    ports = memory_ports(4)
    cases = use_cases(_legacy(ports), ServiceSettings())
    async for played in play_season(cases, league=False):
        old = Forget(ports.log, ports.names)  # the previous release's forget: the game alone
        await old.forget(played.games[0], FORGOTTEN)
        assert holds_name((await played.http.get("/tournaments/cup/standings")).content)
        new = use_cases(ports, ServiceSettings()).forget
        assert new is not None
        done = await new.forget(played.games[0], FORGOTTEN)
        assert done.side is not None
        assert done.side.tournament == ("cup", SHOWN)
        stored: Any = ports.tournaments
        assert not any(holds_name(d) for d in stored.logs["cup"])  # rewritten just now
        assert done.already is False  # something was hidden now


# 6. On Redis, a tournament written with names inline and stored again by forget keeps its
#    event-id dedup, its expected version and its entry ids.
@pytest.mark.redis
async def test_on_redis_a_rewritten_tournament_still_dedups_and_appends(
    clean_redis_url: str,
) -> None:
    from services.adapters.redis.connect import connect
    from services.adapters.redis.keys import Keys
    from services.adapters.redis.names import RedisSideNames
    from services.tournaments.adapters.redis import RedisTournamentLog
    from services.usecases.side_names import SideForget

    client = connect(clean_redis_url)
    try:
        keys = Keys(4)
        raw = RedisTournamentLog(client, keys)
        stream = Stream("cup").create()
        stream.add(PlayerRegistered(player_id="p1", name=NAME))
        stream.add(PlayerRegistered(player_id="p2", name="Bo"))
        await raw.append("cup", stream.events, "digest")  # inline, as before
        key = keys.tournament_stream("cup")
        before = await client.xrange(key)
        log = NamedSideLog(raw, RedisSideNames(client, keys))
        from services.leagues.adapters.redis import LEAGUE, RedisLeagueLog

        leagues = NamedSideLog(RedisLeagueLog(client, keys), RedisSideNames(client, keys, LEAGUE))
        side = await SideForget(log, leagues).forget_tournament("cup", "p1")
        assert side.tournament == ("cup", "player-1")
        after = await client.xrange(key)
        assert [i for i, _ in after] == [i for i, _ in before]
        assert not any(holds_name(f[b"data"]) for _, f in after)
        again = await log.append("cup", stream.events, "digest")  # a retried batch
        assert [p.duplicate for p in again.events] == [True, True, True]
        stream.add(PlayerRegistered(player_id="p3", name="Cy"))
        assert (await log.append("cup", stream.events[-1:], "digest")).version == 4
        stale = stream.events[-1].model_copy(update={"event_id": uuid.uuid4()})
        with pytest.raises(VersionConflict):  # seq 4 again, a new id: the expected version
            await log.append("cup", [stale], "digest")
        read = (await log.read("cup"))[1:]
        names = {e.payload.player_id: e.payload.name for e in read}  # type: ignore[union-attr]
        assert names == {"p1": "player-1", "p2": "Bo", "p3": "Cy"}
        assert await client.exists(key + ":rewrite") == 0
    finally:
        await client.aclose()
