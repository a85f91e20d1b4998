"""The one standings renderer (`services.usecases.readmodels.render`) against its schema, the
pydantic models of `shapes.py`: the view the projector stores after every event, folded
incrementally (the per-player line JSON kept while the line stands), is byte for byte the
`StandingsResponse` dump of the hand-built view (`tests.query.oracle`), validates against the
model, and its compact live frame validates against `CompactLine`: through play, voids, and
corrections in a category no ruleset labels (a new label changes every player's breakdown), on
the demo games and on hypothesis-chosen simulated games. A field the domain and the view's model
gain under one name is rendered without touching the renderer; a view field nothing renders
is refused at import."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from contracts.frames import CompactLine
from domain.fold import Folder, GameState
from domain.standings import PlayerStanding, standings
from services.usecases.readmodels import render
from services.usecases.readmodels.render import compact, view, view_json, with_position
from services.usecases.readmodels.shapes import PlayerLine, StandingsResponse
from tests.domain.referee import KINDS, PICKS, SEEDS, middle_of_play, referee_through
from tests.query.conftest import load
from tests.query.oracle import standings_view

PROPERTY = settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
EXCLUDED = {"checkpoint", "updated_at"}


def fastapi_view(state: GameState[Any]) -> bytes:
    """The hand-built view's dump (what FastAPI would send of the model), without position."""
    return standings_view(standings(state), "projection").model_dump_json(exclude=EXCLUDED).encode()


def check_every_answer(state: GameState[Any]) -> None:
    """The renderer's answers for `state` against the schema and the hand-built view."""
    result = standings(state)
    head = view_json(result, state.cache)
    assert head == fastapi_view(state), f"seq {state.seq}"
    served = with_position(head, "1-0", "2026-01-01T00:00:00Z")
    model = StandingsResponse.model_validate_json(served)  # the schema: extra fields forbidden
    assert model == standings_view(result, "projection", "1-0", "2026-01-01T00:00:00Z")
    assert view(result, "replay") == standings_view(result, "replay")
    frame = compact(json.loads(served))
    for line, full in zip(frame["players"], model.players, strict=True):
        assert CompactLine.model_validate(line).total == full.total
        shown = {c.key: c.points for c in full.breakdown if c.points}
        assert line["points"] == shown


def test_every_answer_of_the_demo_games_after_every_event_is_the_schemas() -> None:
    for name in ("trickerion-demo.jsonl", "penumbra-demo.jsonl"):
        folder: Folder[Any] = Folder()
        for event in load(name):
            folder.add(event)
            state = folder.state
            check_every_answer(state)


def test_an_unchanged_players_line_is_not_rendered_again(monkeypatch: pytest.MonkeyPatch) -> None:
    rendered: list[str] = []
    real = render._line_json

    def counted(player: PlayerStanding, *args: Any) -> bytes:
        rendered.append(player.player_id)
        return real(player, *args)

    monkeypatch.setattr(render, "_line_json", counted)
    folder: Folder[Any] = Folder()
    kept_lines = 0
    for event in load("trickerion-demo.jsonl"):
        before = {p.player_id: p for p in standings(folder.state).players} if folder.started else {}
        folder.add(event)
        state = folder.state
        rendered.clear()
        view = view_json(standings(state), state.cache)
        same = {p.player_id for p in standings(state).players if before.get(p.player_id) is p}
        assert same.isdisjoint(rendered), f"seq {state.seq}: kept lines rendered again"
        assert len(rendered) + len(same) == len(state.players)
        assert view == fastapi_view(state)
        kept_lines += len(same)
    assert kept_lines > 0  # the demo has events that leave some players' lines as they were


@PROPERTY
@given(seed=SEEDS, kind=KINDS, picks=PICKS)
def test_every_answer_through_play_voids_and_new_categories_is_the_schemas(
    seed: int, kind: str, picks: list[int]
) -> None:
    folder = middle_of_play(kind, seed, check_every_answer)
    referee_through(folder, picks, check_every_answer, unlabelled=True)


def test_a_field_the_domain_and_the_view_gain_is_rendered_without_touching_the_renderer() -> None:
    class Line(PlayerStanding):
        penalty: int = 0

    class ViewLine(PlayerLine):
        penalty: int = 0

    line = render._compile(ViewLine, Line, {}, ["breakdown", "provisional"])
    folder: Folder[Any] = Folder()
    for event in load("penumbra-demo.jsonl"):
        folder.add(event)
    player = standings(folder.state).players[0]
    gained = Line.model_validate({**player.model_dump(), "penalty": 3})
    text = line(gained, None, breakdown=b"[]", provisional=b"null")
    assert json.loads(text)["penalty"] == 3
    assert ViewLine.model_validate_json(text).penalty == 3
    assert text.endswith(b',"penalty":3}')  # in the model's field order


def test_a_view_field_nothing_renders_is_refused() -> None:
    class ViewLine(PlayerLine):
        handicap: int = 0

    with pytest.raises(TypeError, match="handicap"):
        render._compile(ViewLine, PlayerStanding, {}, ["breakdown", "provisional"])


def test_labels_and_points_with_percent_signs_render_as_the_schemas() -> None:
    """The breakdown's pieces are `%`-templates of the points: a `%` in a category key or label
    (an unlabelled key is its own label) and a negative or zero point are rendered as written,
    in every position (first, middle and last of the labels, with and without points)."""
    folder: Folder[Any] = Folder()
    for event in load("penumbra-demo.jsonl")[:12]:
        folder.add(event)
    result = standings(folder.state)
    first, *rest = result.players
    odd = {"50%": -3, "a%d": 0, "%s%%": 7, **first.categories}
    line = first.model_copy(update={"categories": odd})
    shown = result.model_copy(update={"players": [line, *rest]})
    expected = standings_view(shown, "projection").model_dump_json(exclude=EXCLUDED).encode()
    assert view_json(shown, folder.state.cache) == expected
    assert b'"key":"50%","en":"50%","ru":"50%","endgame":false,"points":-3}' in expected
