"""Two copies of one keyed registration in flight at once (a client that sent it again after a
timeout while the first was still running), and another organiser write landing between the
first copy's read and its append. `NamedSideLog.append` keeps the names first
(`SideNames.keep`: a field already kept is left alone), appends, and on a refused append
takes back the fields *it* kept (`SideNames.drop`). The second copy kept nothing (the first
copy's field was there) and stored the event; the first copy's append then met a version
conflict and dropped the field the stored event reads its name from. The registration is
stored and answered 201 to both, but the player's name is gone for good: every read shows
the player id. docs/decisions/0014-names-outside-the-log.md ("every answer reads the event as
posted"); contracts/names.py ("a refused append's names never decide what a stored event
reads"); docs/request-bounds.md (a keyed retry answers as stored). Now the second copy keeps
its names again once its event is stored, and a refused copy drops only the names of events the
stream does not hold (`NamedSideLog.append`)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import httpx

from services.bootstrap import memory_ports, use_cases
from services.platform.settings import ServiceSettings
from tests.doors.test_leagues_http import league_app
from tests.doors.test_tournaments_http import AUTH

KEYED = {**AUTH, "Idempotency-Key": "register-mira"}
MIRA = {"player_id": "mira", "name": "Mira Novak"}


async def test_a_keyed_registration_racing_its_own_retry_keeps_the_players_name() -> None:
    cases = use_cases(memory_ports(4), ServiceSettings())
    app = league_app(cases)
    named: Any = cases.tournaments.log  # NamedSideLog
    inner, names = named.inner, named.names
    real_append, real_drop = inner.append, names.drop
    at_gate, go = asyncio.Event(), asyncio.Event()
    second: asyncio.Task[httpx.Response] | None = None
    copies = 0

    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://sl", timeout=30
    ) as http:
        new = {"tournament_id": "cup", "title": "Cup", "game": "penumbra", "rounds": 1}
        assert (await http.post("/tournaments", json=new, headers=AUTH)).status_code == 201

        async def append(stream_id: str, events: Sequence[Any], credential: Any = None) -> Any:
            nonlocal copies, second
            if events and getattr(events[0].payload, "player_id", None) == "mira":
                copies += 1
                if copies == 1:  # the first copy: names kept, about to append
                    other = {"player_id": "tess", "name": "Tess"}
                    landed = await http.post("/tournaments/cup/players", json=other, headers=AUTH)
                    assert landed.status_code == 201  # another organiser write lands
                    second = asyncio.create_task(
                        http.post("/tournaments/cup/players", json=MIRA, headers=KEYED)
                    )
                    await at_gate.wait()  # the second copy read, kept (nothing: kept already)
                elif copies == 2:
                    at_gate.set()
                    await go.wait()  # appends once the first copy has taken its names back
            return await real_append(stream_id, events, credential)

        async def drop(stream_id: str, fields: Sequence[str]) -> None:
            await real_drop(stream_id, fields)
            if fields and not go.is_set():  # the first copy's conflict: its names taken back
                go.set()
                assert second is not None
                answer = await second
                assert answer.status_code == 201, answer.text  # the second copy: stored

        inner.append, names.drop = append, drop
        first = await http.post("/tournaments/cup/players", json=MIRA, headers=KEYED)
        inner.append, names.drop = real_append, real_drop
        assert first.status_code == 201, first.text  # answered as the stored request
        assert copies == 2

        players = (await http.get("/tournaments/cup")).json()["players"]
        shown = {p["player_id"]: p["name"] for p in players}
        # fails on main: {"tess": "Tess", "mira": "mira"}: the stored event's kept name dropped
        assert shown == {"tess": "Tess", "mira": "Mira Novak"}
