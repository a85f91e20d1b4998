"""Forgetting a tournament player: `forget GAME PLAYER` on one of a tournament's table games
hides the player in the tournament (its answers and CSV), in their other table games and in
the league that added the tournament, while no stored byte ever held the name (tournament and
league streams keep names apart); every point and rating stays as it was. In memory, and on
Redis through `scoreledger forget` with every key and value read back."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from services.bootstrap import Ports, UseCases, build, memory_ports, use_cases
from services.cli.forget import forget_player, forget_tournament_player
from services.platform.settings import CommonSettings, ServiceSettings
from services.simulator.tables import simulate_game
from tests.archive.test_forget import redis_values
from tests.doors.test_leagues_http import league_app
from tests.doors.test_tournament_tables_http import game_events
from tests.doors.test_tournaments_http import AUTH
from tests.names.helpers import NAME, holds_name

PLAYERS = [f"p{i}" for i in range(1, 8)]  # 7: a table of 4 and one of 3 each round
FORGOTTEN = "p3"
SHOWN = "player-3"
"""p3 registers third: their tournament pseudonym (and, named third there, the league's)."""


@dataclass
class Played:
    http: httpx.AsyncClient
    cases: UseCases
    games: list[str]
    """p3's table games, round 1 then round 2."""
    league: bool = True
    """Whether league `club` added the tournament."""

    async def answers(self) -> dict[str, bytes]:
        """Every tournament and league read route's body (status 200 checked)."""
        urls = [
            "/tournaments/cup",
            "/tournaments/cup/standings",
            "/tournaments/cup/standings?at_seq=9",
            "/tournaments/cup/standings.csv",
        ]
        if self.league:
            urls += ["/leagues/club", "/leagues/club/standings", "/leagues/club/ratings"]
        out = {}
        for url in urls:
            got = await self.http.get(url)
            assert got.status_code == 200, (url, got.text)
            out[url] = got.content
        for game in self.games:
            out[game] = b"".join(await self.cases.reads.log.read_raw(game))
        return out

    async def scores(self) -> tuple[Any, Any]:
        """Tournament points and league points and ratings by player."""
        cup = (await self.http.get("/tournaments/cup/standings")).json()["players"]
        club = []
        if self.league:
            club = (await self.http.get("/leagues/club/standings")).json()["players"]
        return (
            {p["player_id"]: p["points"] for p in cup},
            {p["player_id"]: (p["points"], p["rating"]) for p in club},
        )


async def play_season(cases: UseCases, league: bool = True) -> AsyncIterator[Played]:
    """Tournament `cup` (p3 named `NAME`), two rounds played through the tables' games,
    auto-approved; league `club` adds it (`league`)."""
    app = league_app(cases)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://sl", timeout=30
    ) as http:
        new = {"tournament_id": "cup", "title": "Cup", "game": "penumbra", "rounds": 2}
        created = await http.post(
            "/tournaments", json={**new, "auto_approve_after_s": 0}, headers=AUTH
        )
        assert created.status_code == 201, created.text
        for pid in PLAYERS:
            body = {"player_id": pid, "name": NAME if pid == FORGOTTEN else pid.upper()}
            r = await http.post("/tournaments/cup/players", json=body, headers=AUTH)
            assert r.status_code == 201, r.text
        games = []
        for round_ in (1, 2):
            seated = await http.post("/tournaments/cup/rounds", headers=AUTH)
            assert seated.status_code == 201, seated.text
            for table in seated.json()["tables"]:
                events = game_events(table, 10 * round_ + table["table"])
                auth = {"Authorization": f"Bearer {table['game_token']}"}
                posted = await http.post(
                    f"/games/{table['game_id']}/events", json=events, headers=auth
                )
                assert posted.status_code == 201, posted.text
                if FORGOTTEN in table["players"]:
                    games.append(table["game_id"])
        if league:
            new_league = {"league_id": "club", "title": "Club", "game": "penumbra"}
            created = await http.post("/leagues", json=new_league, headers=AUTH)
            assert created.status_code == 201, created.text
            added = await http.post(
                "/leagues/club/tournaments", json={"tournament_id": "cup"}, headers=AUTH
            )
            assert added.status_code == 200, added.text
        yield Played(http, cases, games, league)


@pytest.fixture
async def memory() -> AsyncIterator[Played]:
    async for played in play_season(use_cases(memory_ports(4), ServiceSettings())):
        yield played


def _shown(answers: dict[str, bytes]) -> None:
    leaks = [where for where, body in answers.items() if holds_name(body)]
    assert leaks == []


async def test_names_never_reach_the_side_logs_and_forget_hides_them_in_every_answer(
    memory: Played,
) -> None:
    ports_t: Any = memory.cases.tournaments.log
    ports_l: Any = memory.cases.leagues.log
    stored = [*ports_t.inner.logs["cup"], *ports_l.inner.logs["club"]]
    assert len(memory.games) == 2
    assert not any(holds_name(data) for data in stored)  # the ids stand in the streams
    before = await memory.answers()
    assert holds_name(before["/tournaments/cup/standings"])  # read back with the name
    assert holds_name(before["/leagues/club/standings"])
    assert all(holds_name(before[g]) for g in memory.games)
    scores = await memory.scores()

    forget = memory.cases.forget
    assert forget is not None
    done = await forget.forget(memory.games[0], FORGOTTEN)

    assert done.side is not None
    assert done.side.tournament == ("cup", SHOWN)
    assert done.side.games == (memory.games[1],)
    assert done.side.leagues == (("club", SHOWN),)
    after = await memory.answers()
    _shown(after)
    cup = json.loads(after["/tournaments/cup/standings"])["players"]
    assert {p["player_id"]: p["name"] for p in cup}[FORGOTTEN] == SHOWN
    club = json.loads(after["/leagues/club/standings"])["players"]
    assert {p["player_id"]: p["name"] for p in club}[FORGOTTEN] == SHOWN
    assert await memory.scores() == scores
    kept = [
        *(await ports_t.names.names("cup")).values(),
        *(await ports_l.names.names("club")).values(),
    ]
    assert SHOWN in kept
    assert not any(holds_name(n.encode()) for n in kept)
    again = await forget.forget(memory.games[1], FORGOTTEN)  # idempotent, from the other game
    assert again.already
    assert again.side is not None
    assert again.side.tournament == ("cup", SHOWN)
    assert await memory.answers() == after


async def test_a_league_not_holding_the_tournament_is_left_as_it_is(memory: Played) -> None:
    """A league naming p3 through a source outside the tournament (a single game seating a
    `p3`) keeps the name: forget follows the game, its tournament and what added them, not a
    player id anywhere."""
    events = [e.model_dump(mode="json") for e in simulate_game("penumbra", 9, 3, players=3)]
    first = events[0]["payload"]["players"][0]
    text = json.dumps(events).replace(f'"{first["player_id"]}"', f'"{FORGOTTEN}"')
    solo = json.loads(text)
    for e in solo:
        e["game_id"] = "solo-1"
    solo[0]["payload"]["players"][0]["name"] = NAME
    http = memory.http
    token = {"Authorization": "Bearer " + "s" * 40}
    assert (await http.post("/games/solo-1/events", json=solo, headers=token)).status_code == 201
    other = {"league_id": "other", "title": "Other", "game": "penumbra"}
    assert (await http.post("/leagues", json=other, headers=AUTH)).status_code == 201
    added = await http.post("/leagues/other/games", json={"game_id": "solo-1"}, headers=AUTH)
    assert added.status_code == 200, added.text
    assert holds_name((await http.get("/leagues/other/standings")).content)
    forget = memory.cases.forget
    assert forget is not None
    done = await forget.forget(memory.games[0], FORGOTTEN)
    assert done.side is not None
    assert done.side.leagues == (("club", SHOWN),)
    assert holds_name((await http.get("/leagues/other/standings")).content)


@pytest.mark.redis
async def test_forget_on_redis_leaves_the_name_in_no_key_or_value(clean_redis_url: str) -> None:
    service = build(ServiceSettings(redis_url=clean_redis_url, shards=4))
    try:
        async for played in play_season(service.cases):
            assert any(holds_name(v) for v in redis_values(clean_redis_url))  # the kept names
            scores = await played.scores()
            report = await forget_player(
                CommonSettings(redis_url=clean_redis_url, shards=4), played.games[0], FORGOTTEN
            )
            assert report.code == 0
            assert report.lines[1:4] == (
                f"tournament cup: shown as {SHOWN}",
                f"the tournament's other games of {FORGOTTEN}: {played.games[1]}",
                f"league club: shown as {SHOWN}",
            )
            leaks = [v for v in redis_values(clean_redis_url) if holds_name(v)]
            assert leaks == []
            _shown(await played.answers())
            assert await played.scores() == scores
            # From the tournament: the same, every game of the player named.
            again = await forget_tournament_player(
                CommonSettings(redis_url=clean_redis_url, shards=4), "cup", FORGOTTEN
            )
            assert again.code == 0
            assert again.lines[:3] == (
                f"tournament cup: shown as {SHOWN}",
                f"the tournament's games of {FORGOTTEN}: {', '.join(played.games)}",
                f"league club: shown as {SHOWN}",
            )
            unknown = await forget_tournament_player(
                CommonSettings(redis_url=clean_redis_url, shards=4), "cup", "zed"
            )
            assert (unknown.code, unknown.lines) == (1, ("tournament 'cup' has no player 'zed'",))
    finally:
        await service.client.aclose()


def _without_side_names(ports: Ports) -> Ports:
    """The same adapters with tournament and league names inline, as stored before."""
    return dataclasses.replace(ports, tournament_names=None, league_names=None)


async def test_a_tournament_written_with_names_inline_is_stored_again_without_them() -> None:
    ports = memory_ports(4)
    settings = ServiceSettings()
    async for played in play_season(use_cases(_without_side_names(ports), settings), False):
        stored: Any = ports.tournaments
        before = list(stored.logs["cup"])
        assert sum(holds_name(d) for d in before) == 1  # p3's player_registered
        scores = await played.scores()
        forget = use_cases(ports, settings).forget
        assert forget is not None
        done = await forget.forget(played.games[0], FORGOTTEN)
        assert done.side is not None
        assert done.side.tournament == ("cup", SHOWN)
        after = stored.logs["cup"]
        assert not any(holds_name(d) for d in after)
        assert len(after) == len(before)
        changed = [i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b]
        assert changed == [1, 2, 3, 4, 5, 6, 7]  # the seven registrations, all ids now
        # Read through the names kept apart: the others by name, p3 by the pseudonym.
        now = use_cases(ports, settings)
        state = await now.tournaments.state("cup")
        assert {p: r.name for p, r in state.players.items()} == {
            **{p: p.upper() for p in PLAYERS},
            FORGOTTEN: SHOWN,
        }
        assert await played.scores() == scores


@pytest.mark.redis
async def test_on_redis_a_tournament_written_with_names_inline_is_stored_again(
    clean_redis_url: str,
) -> None:
    service = build(ServiceSettings(redis_url=clean_redis_url, shards=4))
    legacy = use_cases(_without_side_names(service.ports), service.settings)
    try:
        async for played in play_season(legacy, False):
            report = await forget_player(
                CommonSettings(redis_url=clean_redis_url, shards=4), played.games[0], FORGOTTEN
            )
            assert report.lines[1] == f"tournament cup: shown as {SHOWN}"
            leaks = [v for v in redis_values(clean_redis_url) if holds_name(v)]
            assert leaks == []
            transport = httpx.ASGITransport(app=league_app(service.cases))
            async with httpx.AsyncClient(transport=transport, base_url="http://sl") as http:
                answers = await Played(http, service.cases, played.games, False).answers()
            _shown(answers)
            cup = json.loads(answers["/tournaments/cup/standings"])["players"]
            names = {p["player_id"]: p["name"] for p in cup}
            assert (names["p1"], names[FORGOTTEN]) == ("P1", SHOWN)
    finally:
        await service.client.aclose()


async def test_forget_from_the_tournament_reaches_every_game_of_the_player(
    memory: Played,
) -> None:
    from services.usecases.side_names import NotNamed

    forget = memory.cases.forget
    assert forget is not None
    scores = await memory.scores()
    side, games = await forget.forget_tournament("cup", FORGOTTEN)
    assert side.tournament == ("cup", SHOWN)
    assert side.games == tuple(memory.games)
    assert [(g.game_id, g.already) for g in games] == [(g, False) for g in memory.games]
    assert side.leagues == (("club", SHOWN),)
    _shown(await memory.answers())
    assert await memory.scores() == scores
    with pytest.raises(NotNamed, match="no tournament 'nope'"):
        await forget.forget_tournament("nope", FORGOTTEN)
    with pytest.raises(NotNamed, match="tournament 'cup' has no player 'zed'"):
        await forget.forget_tournament("cup", "zed")


async def test_a_registrant_who_played_no_game_is_forgotten_from_the_tournament(
    memory: Played,
) -> None:
    http = memory.http
    new = {"tournament_id": "open", "title": "Open", "game": "penumbra", "rounds": 1}
    assert (await http.post("/tournaments", json=new, headers=AUTH)).status_code == 201
    body = {"player_id": FORGOTTEN, "name": NAME}
    assert (
        await http.post("/tournaments/open/players", json=body, headers=AUTH)
    ).status_code == 201
    assert holds_name((await http.get("/tournaments/open")).content)
    forget = memory.cases.forget
    assert forget is not None
    side, games = await forget.forget_tournament("open", FORGOTTEN)
    assert (side.tournament, side.games, games, side.leagues) == (("open", "player-1"), (), (), ())
    answer = await http.get("/tournaments/open")
    assert not holds_name(answer.content)
    assert b'"player-1"' in answer.content


@pytest.mark.redis
def test_the_command_takes_a_tournament_with_its_flag(clean_redis_url: str) -> None:
    import subprocess
    import sys

    from tests.cli.conftest import ROOT

    command = [sys.executable, "-m", "services.cli.main", "forget", "nope", FORGOTTEN]
    command += ["--tournament", "--redis-url", clean_redis_url]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout, done.stderr.strip()) == (1, "", "no tournament 'nope'")


async def test_the_forgotten_winner_is_in_no_tournament_or_league_sentence(
    memory: Played,
) -> None:
    # p4 ("P4", registered fourth) wins the season (hand-checked: 14 points). The `winner` of
    # the tournament, the tables' `history` and the league answers are rendered from ids at
    # read time, so no text keeps the name after a forget (docs/forget.md).
    before = await memory.answers()
    cup = json.loads(before["/tournaments/cup"])
    assert cup["winner"] == {"player_id": "p4", "name": "P4", "points": 14.0}
    assert b"P4" in before["/leagues/club/standings"]
    forget = memory.cases.forget
    assert forget is not None
    side, games = await forget.forget_tournament("cup", "p4")
    assert side.tournament == ("cup", "player-4")
    assert games  # p4's table games, forgotten there too
    after = {url: body for url, body in (await memory.answers()).items() if url[0] == "/"}
    for game in games:  # p4's games, as every read answers them
        after[game.game_id] = b"".join(await memory.cases.reads.log.read_raw(game.game_id))
    assert [where for where, body in after.items() if b'"P4"' in body] == []
    assert [url for url, body in after.items() if url[0] == "/" and b"P4" in body] == []
    cup = json.loads(after["/tournaments/cup"])
    assert cup["winner"] == {"player_id": "p4", "name": "player-4", "points": 14.0}
    histories = [h for r in cup["rounds"] for t in r["tables"] for h in t["history"]]
    assert histories
    assert not any("P4" in json.dumps(h) for h in histories)
