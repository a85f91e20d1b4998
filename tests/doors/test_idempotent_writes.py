"""Tournament writes with an `Idempotency-Key`: a retry after `503 append.replicas_unconfirmed`
(the write stored on the primary, not acknowledged) answers as the write would have (same
status and body), including a seating's table games; the same key with another request is
refused 422 `idempotency.key_reused`. Before, the retry of a stored write answered 409
`tournament.already_created`, 422 `tournament.player_exists` or `tournament.round_open`, and a
seating's table games existed only after `POST /rounds/1/games`."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from fastapi.testclient import TestClient

from contracts.league import LeagueCreated
from contracts.tournament import TournamentCreated
from services.bootstrap import UseCases, memory_ports, use_cases
from services.leagues.doors.ingest import league_write_router
from services.platform.settings import ServiceSettings
from services.ports.errors import ReplicasUnconfirmed
from services.usecases.authorize import WriteProof
from tests.doors.test_leagues_http import league_app, single_game
from tests.doors.test_tournament_tables_http import PLAYERS, app_of
from tests.doors.test_tournaments_http import AUTH, TOKEN

NEW = {"tournament_id": "cup", "title": "Cup", "game": "penumbra", "rounds": 2}


class Flaky:
    """The tournament log's append, stored and then refused with `ReplicasUnconfirmed` for the
    next `armed` appends (what too few replicas do)."""

    def __init__(self, cases: UseCases) -> None:
        self.log = cases.tournaments.log
        self.append = self.log.append
        self.armed = 0
        self.log.append = self._append  # type: ignore[method-assign]

    async def _append(self, stream_id: str, events: Sequence[Any], credential: Any = None) -> Any:
        result = await self.append(stream_id, events, credential)
        if self.armed:
            self.armed -= 1
            raise ReplicasUnconfirmed(1, 0)
        return result


@pytest.fixture
def cases() -> UseCases:
    return use_cases(memory_ports(4), ServiceSettings())


@pytest.fixture
def flaky(cases: UseCases) -> Flaky:
    return Flaky(cases)


@pytest.fixture
def http(cases: UseCases) -> Iterator[TestClient]:
    with TestClient(app_of(cases)) as client:
        yield client


def keyed(key: str) -> dict[str, str]:
    return {**AUTH, "Idempotency-Key": key}


def post_twice(
    http: TestClient, flaky: Flaky, url: str, key: str, **kw: Any
) -> tuple[Any, Any, Any]:
    """The write under a 503, its retry, and the retry's retry (all with `key`)."""
    flaky.armed = 1
    first = http.post(url, headers=keyed(key), **kw)
    assert first.status_code == 503, first.text
    assert first.json()["rule"] == "append.replicas_unconfirmed"
    assert "Idempotency-Key" in first.json()["detail"]  # the advice holds for this route
    return first, http.post(url, headers=keyed(key), **kw), http.post(url, headers=keyed(key), **kw)


def test_a_creation_retried_after_a_503_answers_201(http: TestClient, flaky: Flaky) -> None:
    _, again, third = post_twice(http, flaky, "/tournaments", "k-create", json=NEW)
    assert (again.status_code, again.json()) == (201, {"tournament_id": "cup", "version": 1})
    assert (third.status_code, third.json()) == (201, again.json())
    assert http.get("/tournaments/cup").json()["seq"] == 1  # stored once


def test_a_registration_retried_after_a_503_answers_as_the_write(
    http: TestClient, flaky: Flaky
) -> None:
    assert http.post("/tournaments", json=NEW, headers=AUTH).status_code == 201
    body = {"player_id": "p1", "name": "Mira"}
    _, again, third = post_twice(http, flaky, "/tournaments/cup/players", "k-p1", json=body)
    assert (again.status_code, again.json()) == (201, {"tournament_id": "cup", "version": 2})
    assert (third.status_code, third.json()) == (201, again.json())
    # the key names that request: another body under it is refused, nothing stored
    other = http.post(
        "/tournaments/cup/players",
        json={"player_id": "p2", "name": "Ansel"},
        headers=keyed("k-p1"),
    )
    assert other.status_code == 422
    assert (other.json()["rule"], other.json()["field"]) == (
        "idempotency.key_reused",
        "idempotency-key",
    )
    assert http.get("/tournaments/cup").json()["seq"] == 2
    # without a key the retry is a new request, refused by the rules as before
    plain = http.post("/tournaments/cup/players", json=body, headers=AUTH)
    assert plain.json()["rule"] == "tournament.player_exists"


def test_a_seating_retried_after_a_503_answers_with_its_table_games(
    http: TestClient, flaky: Flaky, cases: UseCases
) -> None:
    assert http.post("/tournaments", json=NEW, headers=AUTH).status_code == 201
    for pid in PLAYERS:
        body = {"player_id": pid, "name": pid.upper()}
        assert http.post("/tournaments/cup/players", json=body, headers=AUTH).status_code == 201
    _, again, third = post_twice(http, flaky, "/tournaments/cup/rounds", "k-seat-1")
    assert again.status_code == 201, again.text
    assert third.json() == again.json()
    seated = again.json()
    assert seated["round"] == 1
    assert [len(t["players"]) for t in seated["tables"]] == [4, 3]
    for table in seated["tables"]:
        assert table["game_refused"] is None
        assert table["game_token"]
        # the table's game exists now (before, only after POST /rounds/1/games)
        assert asyncio.run(cases.reads.log.version(table["game_id"])) >= 1
    assert len(http.get("/tournaments/cup").json()["rounds"]) == 1
    # another write under the seating's key is refused
    refused = http.post(
        "/tournaments/cup/players", json={"player_id": "p9", "name": "Z"}, headers=keyed("k-seat-1")
    )
    assert refused.json()["rule"] == "idempotency.key_reused"


def test_a_judge_and_a_drop_retried_after_a_503(http: TestClient, flaky: Flaky) -> None:
    assert http.post("/tournaments", json=NEW, headers=AUTH).status_code == 201
    for pid in ("p1", "p2", "p3"):
        body = {"player_id": pid, "name": pid}
        assert http.post("/tournaments/cup/players", json=body, headers=AUTH).status_code == 201
    judge = {"judge_id": "j1", "name": "Jo"}
    _, again, third = post_twice(http, flaky, "/tournaments/cup/judges", "k-j1", json=judge)
    assert again.status_code == 201, again.text
    assert again.json()["version"] == 5
    assert third.json() == again.json()
    flaky.armed = 1
    url = "/tournaments/cup/players/p3"
    assert http.delete(url, headers=keyed("k-drop")).status_code == 503
    retried = http.delete(url, headers=keyed("k-drop"))
    assert (retried.status_code, retried.json()["version"]) == (200, 6)


def test_a_bad_key_is_refused_naming_the_header(http: TestClient) -> None:
    answer = http.post("/tournaments", json=NEW, headers=keyed("k" * 201))
    assert answer.status_code == 422
    assert "idempotency" in answer.text.lower()


def test_league_writes_retried_after_a_503_answer_as_stored(cases: UseCases) -> None:
    # Before: the creation's retry was 409 league.already_created, and an addition's retry
    # appended the addition a second time (a new version).
    from tests.doors.test_leagues_http import LEAGUE, league_app, single_game

    league = cases.leagues.log
    real = league.append
    armed = [0]

    async def append(stream_id: str, events: Sequence[Any], credential: Any = None) -> Any:
        result = await real(stream_id, events, credential)
        if armed[0]:
            armed[0] -= 1
            raise ReplicasUnconfirmed(1, 0)
        return result

    league.append = append  # type: ignore[method-assign]
    with TestClient(league_app(cases)) as http:
        single_game(http, "friday-1")
        for url, body, key, status, version in (
            ("/leagues", LEAGUE, "k-league", 201, 1),
            ("/leagues/club/games", {"game_id": "friday-1"}, "k-add", 200, 2),
        ):
            armed[0] = 1
            assert http.post(url, json=body, headers=keyed(key)).status_code == 503
            again = http.post(url, json=body, headers=keyed(key))
            assert (again.status_code, again.json()) == (
                status,
                {"league_id": "club", "version": version},
            )
        assert http.get("/leagues/club").json()["seq"] == 2
        reused = http.post(
            "/leagues/club/tournaments", json={"tournament_id": "x"}, headers=keyed("k-add")
        )
        assert reused.json()["rule"] == "idempotency.key_reused"


class RaceAtVersion:
    """A side log whose next `version` call lets a concurrent request (`racer`) store first:
    before the version is read (`after=False`) or once it is read (`after=True`, the stream
    still looked empty)."""

    def __init__(self, log: Any, after: bool) -> None:
        self.log, self.after = log, after
        self.version = log.version
        self.racer: Any = None
        log.version = self._version

    async def _version(self, stream_id: str) -> int:
        racer, self.racer = self.racer, None
        if racer is not None and not self.after:
            await racer()
        version: int = await self.version(stream_id)
        if racer is not None and self.after:
            await racer()
        return version


@pytest.mark.parametrize("after", [False, True], ids=["before-version", "after-version"])
def test_a_creation_raced_by_its_own_keyed_retry_answers_201_to_both(
    cases: UseCases, after: bool
) -> None:
    """Two deliveries of one keyed creation (a client's retry after a timeout) in flight
    together: the one that loses the race is answered as the stored write, not 409."""
    league = {"league_id": "club", "title": "Club", "game": "penumbra"}
    token = AUTH["Authorization"].removeprefix("Bearer ")
    app = app_of(cases)
    app.include_router(league_write_router(cases.leagues))
    with TestClient(app) as client:
        for log, url, body, create in (
            (cases.tournaments.log, "/tournaments", NEW, _tournament_creation(cases, NEW)),
            (cases.leagues.log, "/leagues", league, _league_creation(cases, league)),
        ):
            race = RaceAtVersion(log, after)

            async def racer(create: Any = create) -> None:
                grant = cases.desk.may_create(WriteProof(token, None))
                await create(grant, "k-race")

            race.racer = racer
            answer = client.post(url, json=body, headers=keyed("k-race"))
            assert race.racer is None  # the racer ran
            id_field = "tournament_id" if url == "/tournaments" else "league_id"
            assert (answer.status_code, answer.json()) == (
                201,
                {id_field: body[id_field], "version": 1},
            ), answer.text
            assert asyncio.run(race.version(body[id_field])) == 1  # stored once


def _tournament_creation(cases: UseCases, new: dict[str, Any]) -> Any:
    settings = TournamentCreated(**{k: v for k, v in new.items() if k != "tournament_id"})
    return lambda grant, key: cases.desk.create(new["tournament_id"], settings, grant, key)


def _league_creation(cases: UseCases, new: dict[str, Any]) -> Any:
    settings = LeagueCreated(**{k: v for k, v in new.items() if k != "league_id"})
    return lambda grant, key: cases.leagues.create(new["league_id"], settings, grant, key)


def test_a_league_addition_raced_by_its_own_keyed_retry_answers_the_stored_version(
    cases: UseCases,
) -> None:
    """The retry of a keyed addition that finds the batch stored only once it read the
    league to plan its own is answered as the stored write (version 2), not with the
    version its plan would have reached (3, never written)."""
    app = league_app(cases)
    with TestClient(app) as client:
        single_game(client, "friday-1")
        league = {"league_id": "club", "title": "Club", "game": "penumbra"}
        assert client.post("/leagues", json=league, headers=AUTH).status_code == 201
        log = cases.leagues.log
        read, calls = log.read, []

        async def racing_read(stream_id: str, *args: Any) -> Any:
            calls.append(stream_id)
            if len(calls) == 2:  # after the key was looked for, before the plan's read
                credential = await cases.leagues.authorize("club", TOKEN)
                await cases.leagues.add_game("club", credential, "friday-1", "k-add")
            return await read(stream_id, *args)

        log.read = racing_read  # type: ignore[method-assign]
        answer = client.post(
            "/leagues/club/games", json={"game_id": "friday-1"}, headers=keyed("k-add")
        )
        log.read = read  # type: ignore[method-assign]
        assert len(calls) >= 2  # the racer ran
        assert (answer.status_code, answer.json()) == (200, {"league_id": "club", "version": 2})
        assert asyncio.run(log.version("club")) == 2


@pytest.mark.parametrize("nth", [2, 3])
def test_a_registration_raced_by_its_own_keyed_retry_answers_201(
    cases: UseCases, http: TestClient, nth: int
) -> None:
    """The retry of a keyed registration that finds the player registered by the first
    request only once it checks the rules is answered as the stored write, not 422
    `tournament.player_exists`."""
    assert http.post("/tournaments", json=NEW, headers=AUTH).status_code == 201
    log = cases.tournaments.log
    read, calls = log.read, []

    async def racing_read(stream_id: str, *args: Any) -> Any:
        calls.append(stream_id)
        if len(calls) == nth:  # after the key was looked for, before the rules' read
            credential = await cases.desk.authorize("cup", TOKEN)
            await cases.desk.add_player("cup", credential, "p1", "P1", None, "k-p1")
        return await read(stream_id, *args)

    log.read = racing_read  # type: ignore[method-assign]
    body = {"player_id": "p1", "name": "P1"}
    answer = http.post("/tournaments/cup/players", json=body, headers=keyed("k-p1"))
    log.read = read  # type: ignore[method-assign]
    assert len(calls) > nth  # the racer ran
    assert (answer.status_code, answer.json()) == (201, {"tournament_id": "cup", "version": 2})
    assert asyncio.run(log.version("cup")) == 2
