"""`rendered`: a game's projection rendered again from its stored log with the names as they
are after a forget, so a tie-break sentence naming the forgotten player names the pseudonym
(Trickerion's initiative tie-break: research §6 E9 shape, docs/forget.md)."""

from __future__ import annotations

import json

from contracts.events import dump_event_json
from contracts.names import FORGOTTEN, strip_names
from services.usecases.names import rendered
from tests.domain.trickerion.builders import TrickerionGame, finish


def _tied_game() -> tuple[TrickerionGame, list[bytes]]:
    """Bo and Cy tied on 55 Fame, Cy ahead in initiative order (as tests/domain/trickerion/
    test_endgame.py); the events as stored (the start event holds ids for names)."""
    g = TrickerionGame(["ann", "ben", "cleo"], names={"ann": "Ann", "ben": "Bo", "cleo": "Cy"})
    g.to_turn(7, ["cleo", "ben", "ann"])
    g.reach("ann", fame=40)
    g.reach("ben", fame=50)
    g.reach("cleo", fame=50)
    finish(g)
    stored = [dump_event_json(strip_names(e)[0]).encode() for e in g.events]
    return g, stored


def test_the_tie_break_names_the_pseudonym_once_the_winner_is_forgotten() -> None:
    _, stored = _tied_game()
    before = rendered(stored, {"ann": "Ann", "ben": "Bo", "cleo": "Cy"})
    assert before is not None
    assert json.loads(before.standings_json)["tie_break"] == (
        "Bo and Cy tied on 55 Fame; Cy is ahead in initiative order (position 1 vs 2)"
    )
    after = rendered(stored, {"ann": "Ann", "ben": "Bo", "cleo": FORGOTTEN})
    assert after is not None
    assert after.seq == before.seq == len(stored)
    view = json.loads(after.view_json)
    tie = "Bo and player-3 tied on 55 Fame; player-3 is ahead in initiative order (position 1 vs 2)"
    assert json.loads(after.standings_json)["tie_break"] == tie
    assert view["result"] == f"Winner: player-3 ({tie})"
    assert b"Cy" not in after.view_json
    assert b"Cy" not in after.standings_json.encode()


def test_the_render_is_the_projector_s_for_names_unchanged() -> None:
    from domain.fold import fold
    from domain.standings import standings, standings_json
    from services.usecases.readmodels.render import view_json

    g, stored = _tied_game()
    again = rendered(stored, {"ann": "Ann", "ben": "Bo", "cleo": "Cy"})
    state = fold(g.events)
    assert again is not None
    assert again.standings_json.encode() == standings_json(state)
    assert again.view_json == view_json(standings(state), state.cache)


def test_a_log_the_fold_refuses_renders_nothing() -> None:
    _, stored = _tied_game()
    assert rendered([], {}) is None
    assert rendered([stored[0], stored[0]], {}) is None  # a second start event: refused
