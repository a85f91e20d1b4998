"""A forgotten winner is named in no sentence: the standings' `result` ("Winner: Mira") and
`tie_break` are rendered again from the log with the names as they are now, in Redis's
projection, the first live frame and the archived copy (docs/forget.md)."""

from __future__ import annotations

import json

from contracts.names import FORGOTTEN
from tests.archive.reads import live_first_frame, read_routes
from tests.names import test_forget
from tests.names.test_forget import App

app = test_forget.app
"""The memory service with the example game projected final (`test_forget.app`)."""

WINNER = "mira"
WINNER_NAME = b"Mira"
"""Mira wins the example (68 VP): her name is in the standings' `result`."""


def _named(data: bytes) -> bool:
    return WINNER_NAME in data


async def test_before_a_forget_the_winner_is_named_in_the_result(app: App) -> None:
    standings = await app.standings()
    assert standings["result"] == "Winner: Mira"  # the check below can fail
    assert _named(json.dumps(app.backend.projections["pen-demo-3p"]).encode())


async def test_a_forgotten_winner_is_in_no_sentence_of_any_tier(app: App) -> None:
    done = await app.forget(player=WINNER)
    assert (done.pseudonym, done.tiers, done.already) == ("player-1", ("hot",), False)
    standings = await app.standings()
    assert standings["result"] == "Winner: player-1"
    assert {p["player_id"]: p["name"] for p in standings["players"]} == {
        "mira": "player-1",
        "oren": "Alma Nováková",
        "tess": "Tess",
    }
    stored = app.backend.projections["pen-demo-3p"]
    assert not _named(json.dumps(stored, ensure_ascii=False).encode())
    frame = await live_first_frame(app.assembled.hub, "pen-demo-3p")
    assert frame is not None
    assert "Winner: player-1" in frame
    assert "Mira" not in frame
    routes = await read_routes(app.http, "pen-demo-3p")
    assert [p for p, (_, body) in routes.items() if _named(body)] == []
    assert [d for d in app.stored() if _named(d)] == []
    await app.seal()
    archived = app.archive.games["pen-demo-3p"]
    assert archived.names[WINNER] == FORGOTTEN
    assert archived.projection is not None
    assert b"Winner: player-1" in archived.projection.view_json
    assert [d for d in app.stored() if _named(d)] == []


async def test_an_archived_winner_forgotten_is_in_no_sentence_of_the_archived_copy(
    app: App,
) -> None:
    await app.seal()
    projection = app.archive.games["pen-demo-3p"].projection
    assert projection is not None
    assert b"Winner: Mira" in projection.view_json
    done = await app.forget(player=WINNER)
    assert (done.tiers, done.already) == (("archive",), False)
    projection = app.archive.games["pen-demo-3p"].projection
    assert projection is not None
    assert b"Winner: player-1" in projection.view_json
    assert [d for d in app.stored() if _named(d)] == []
    assert (await app.standings())["result"] == "Winner: player-1"
    routes = await read_routes(app.http, "pen-demo-3p")
    assert [p for p, (_, body) in routes.items() if _named(body)] == []
