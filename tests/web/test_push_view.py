"""The SSE hub's body of a projection HASH (docs/decisions/0012-hot-reads-and-off-loop-replays.md): the view the projector stored for the
stored seq is passed through as text (nothing validated or re-rendered); a HASH without one
(an older projector, or a view of an earlier seq) is rendered from its standings, to the same
JSON."""

from __future__ import annotations

import json
from typing import Any

import pytest

from domain.fold import fold
from domain.standings import standings
from services.doors.push import routes
from services.doors.push.hub import Rendered
from services.doors.push.routes import render_projection
from services.usecases.readmodels.render import view_json
from tests.query.conftest import load

UPDATED = "2026-12-01T10:00:00+00:00"


def projection_hash(name: str, upto: int | None = None, view: bool = True) -> dict[str, str]:
    state = fold(load(name)[:upto])
    result = standings(state)
    fields = {
        "seq": str(result.seq),
        "status": result.status,
        "game": result.game,
        "standings": result.model_dump_json(),
        "updated_at": UPDATED,
    }
    if view:
        fields["view"] = view_json(result, state.cache).decode()
        fields["view_seq"] = str(result.seq)
    return fields


def test_the_stored_view_is_passed_through(monkeypatch: pytest.MonkeyPatch) -> None:
    fields = projection_hash("trickerion-demo.jsonl")
    rendered = render_projection("tr-demo-1", fields)

    def unused(*args: Any) -> Any:
        raise AssertionError("the view is rendered again")

    monkeypatch.setattr(routes, "view_json", unused)
    passed = render_projection("tr-demo-1", fields)
    assert passed == rendered
    assert isinstance(passed, Rendered)
    assert passed.json.startswith(fields["view"][:-1])
    assert passed.json.endswith(f',"checkpoint":null,"updated_at":"{UPDATED}"}}')
    assert json.loads(passed.json) == passed.body


def test_without_a_view_of_the_stored_seq_the_standings_are_rendered_alike() -> None:
    with_view = render_projection("pe-demo-1", projection_hash("penumbra-demo.jsonl"))
    without = render_projection("pe-demo-1", projection_hash("penumbra-demo.jsonl", view=False))
    assert without.body == with_view.body
    assert json.loads(without.json) == json.loads(with_view.json)
    stale = projection_hash("penumbra-demo.jsonl")
    stale["view"] = projection_hash("penumbra-demo.jsonl", upto=5)["view"]
    stale["view_seq"] = "5"  # a newer projector's view, then an older one moved the game on
    assert render_projection("pe-demo-1", stale).body == with_view.body
    assert with_view.body["seq"] == 8
    assert with_view.body["checkpoint"] is None


def test_a_hash_without_standings_is_null() -> None:
    assert render_projection("g", {"seq": "0"}) == Rendered(None, "null")
