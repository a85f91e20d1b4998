"""A judge's name is personal data as a player's is. `tournament.judge_appointed` was stored
with it inline in the tournament's immutable stream (`contracts.names._is_named` stripped only
models with `player_id` and `name`), and `forget --tournament` knew registrants only
(`NotNamed`). Now a judge's name is kept outside the stream under the judge's key
(`~<judge_id>`), put back on read, and `forget --tournament` hides a judge as
`judge-<order of appointment>`; a stream written with a judge's name inline keeps reading, and
a forget stores its named events again without the names. ADR 0014, docs/forget.md. On the
memory adapters and on Redis."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest

from contracts.names import without_names
from contracts.tournament import JudgeAppointed
from services.bootstrap import Ports, UseCases, build, memory_ports, use_cases
from services.cli.forget import _side_lines
from services.platform.settings import ServiceSettings
from tests.archive.test_forget import redis_values
from tests.doors.test_leagues_http import league_app
from tests.doors.test_tournaments_http import AUTH

JUDGE = "Jolanta Kowalska"
KINDS = ["memory", pytest.param("redis", marks=pytest.mark.redis)]


def holds_judge(data: bytes) -> bool:
    return JUDGE.encode() in data or b"Kowalsk" in data


@asynccontextmanager
async def service(
    kind: str, request: pytest.FixtureRequest, inline: bool = False
) -> AsyncIterator[tuple[UseCases, UseCases, str | None]]:
    """The use cases of the memory adapters or of a clean Redis (`kind`) twice: as written
    (`inline`: with the tournament names inline, as stored before names left the stream) and
    as read and forgotten today; and the Redis URL (None: memory)."""
    settings = ServiceSettings()
    if kind == "memory":
        ports = memory_ports(4)
        url = None
    else:
        url = request.getfixturevalue("clean_redis_url")
        settings = ServiceSettings(redis_url=url, shards=4)
        built = build(settings)
        ports = built.ports
    writer_ports: Ports = dataclasses.replace(ports, tournament_names=None) if inline else ports
    try:
        yield use_cases(writer_ports, settings), use_cases(ports, settings), url
    finally:
        if kind != "memory":
            await built.client.aclose()


async def appointed(cases: UseCases) -> None:
    """Tournament `cup` with player `p1` and judge `jk` (named `JUDGE`), through the doors."""
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=league_app(cases)), base_url="http://sl"
    ) as http:
        new = {"tournament_id": "cup", "title": "Cup", "game": "penumbra", "rounds": 1}
        assert (await http.post("/tournaments", json=new, headers=AUTH)).status_code == 201
        body = {"player_id": "p1", "name": "P1"}
        assert (
            await http.post("/tournaments/cup/players", json=body, headers=AUTH)
        ).status_code == 201
        judge = {"judge_id": "jk", "name": JUDGE}
        answer = await http.post("/tournaments/cup/judges", json=judge, headers=AUTH)
        assert answer.status_code == 201, answer.text


async def stored(cases: UseCases) -> list[bytes]:
    """The tournament stream's events as stored (no names put back)."""
    inner: Any = cases.tournaments.log.inner  # type: ignore[attr-defined]
    return [e.model_dump_json().encode() for e in await inner.read("cup")]


async def judges(cases: UseCases) -> dict[str, str]:
    """The fold's judges as every reader reads them (names put back)."""
    return dict((await cases.tournaments.state("cup")).judges)


@pytest.mark.parametrize("kind", KINDS)
async def test_a_judges_name_is_kept_outside_the_tournament_stream(
    kind: str, request: pytest.FixtureRequest
) -> None:
    async with service(kind, request) as (cases, _, url):
        await appointed(cases)
        # failed before: the judge_appointed event held the name in the immutable stream
        assert [d for d in await stored(cases) if holds_judge(d)] == []
        assert await judges(cases) == {"jk": JUDGE}  # read back with the name
        forget = cases.forget
        assert forget is not None
        side, games = await forget.forget_tournament("cup", "jk")  # failed before: NotNamed
        assert (side.tournament, side.judge, side.changed, games) == (
            ("cup", "judge-1"),
            "judge-1",
            True,
            (),
        )
        assert await judges(cases) == {"jk": "judge-1"}
        assert [d for d in await stored(cases) if holds_judge(d)] == []
        again, _ = await forget.forget_tournament("cup", "jk")
        assert (again.judge, again.changed) == ("judge-1", False)  # idempotent
    if url is not None:
        assert [v for v in redis_values(url) if holds_judge(v)] == []


@pytest.mark.parametrize("kind", KINDS)
async def test_a_judge_appointed_with_the_name_inline_reads_and_is_forgotten(
    kind: str, request: pytest.FixtureRequest
) -> None:
    """A stream written before judges' names left it: read as stored; a forget keeps the
    names apart and stores the named events again in today's form."""
    async with service(kind, request, inline=True) as (writer, cases, url):
        await appointed(writer)
        before = await stored(cases)
        assert sum(holds_judge(d) for d in before) == 1  # the judge_appointed, inline
        assert await judges(cases) == {"jk": JUDGE}  # keeps reading
        forget = cases.forget
        assert forget is not None
        side, _ = await forget.forget_tournament("cup", "jk")
        assert side.judge == "judge-1"
        after = await stored(cases)
        assert len(after) == len(before)
        assert [d for d in after if holds_judge(d)] == []
        assert await judges(cases) == {"jk": "judge-1"}
        players = (await cases.tournaments.state("cup")).players
        assert players["p1"].name == "P1"  # kept apart, not forgotten
    if url is not None:
        assert [v for v in redis_values(url) if holds_judge(v)] == []


async def test_a_judge_and_a_player_of_one_id_are_kept_apart() -> None:
    """Keys `p1` (the player) and `~p1` (the judge): each keeps their own name; forgetting
    the id hides both, each under their own pseudonym."""
    cases = use_cases(memory_ports(4), ServiceSettings())
    await appointed(cases)
    desk: Any = cases.desk
    credential = await cases.tournaments.log.digest("cup")
    assert credential is not None
    await desk.appoint_judge("cup", credential, "p1", "Judge One")
    state = await cases.tournaments.state("cup")
    assert (state.players["p1"].name, state.judges) == ("P1", {"jk": JUDGE, "p1": "Judge One"})
    forget = cases.forget
    assert forget is not None
    side, _ = await forget.forget_tournament("cup", "p1")
    assert (side.tournament, side.judge) == (("cup", "player-1"), "judge-2")
    assert _side_lines("p1", side, "the tournament's games")[:2] == [
        "tournament cup: shown as player-1",
        "tournament cup: the judge p1 shown as judge-2",
    ]
    state = await cases.tournaments.state("cup")
    assert (state.players["p1"].name, state.judges) == (
        "player-1",
        {"jk": JUDGE, "p1": "judge-2"},
    )


def test_a_keyed_appointment_compares_without_the_judges_name() -> None:
    """A keyed appointment sent again after the judge was forgotten (read back as the
    pseudonym) is the same request (`idempotency.same_request`)."""
    posted = JudgeAppointed(judge_id="jk", name=JUDGE)
    read_back = JudgeAppointed(judge_id="jk", name="judge-1")
    assert (
        without_names(posted)
        == without_names(read_back)
        == posted.model_copy(update={"name": "jk"})
    )
    assert json.loads(without_names(posted).model_dump_json())["name"] == "jk"
