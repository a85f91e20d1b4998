"""Voiding `game.ended` reopens a final game only when the referee says so (`reopens_game`).

Rules `void.game_ended_needs_reopen` and `void.reopen_not_game_ended`. Source: docs/decisions/0019-hostile-input-at-every-door.md
("Voiding `game.ended` turns a final game back to in progress without a word").
"""

from __future__ import annotations

from domain.errors import RuleViolation
from tests.domain.refusal import violation
from tests.domain.trickerion.builders import TrickerionGame, finish


def _refusal(g: TrickerionGame) -> RuleViolation:
    refused = violation(g)
    return refused


def test_a_plain_void_of_game_ended_is_refused_and_the_game_stays_final() -> None:
    g = TrickerionGame(["ann", "ben"])
    final = finish(g)
    g.void(g.events[-1])
    error = _refusal(g)
    assert (error.rule, error.field) == ("void.game_ended_needs_reopen", "payload.reopens_game")
    g.events.pop()
    assert g.standings() == final
    assert final.status == "final"


def test_a_void_of_game_ended_with_reopens_game_makes_the_game_live_again() -> None:
    g = TrickerionGame(["ann", "ben"])
    finish(g)
    g.void(g.events[-1], reopens_game=True)
    assert g.standings().status == "in_progress"
    g.end()  # the reopened game can end again
    assert g.standings().status == "final"


def test_reopens_game_on_a_void_of_another_event_is_refused() -> None:
    g = TrickerionGame(["ann", "ben"])
    turn = g.turn()
    g.void(turn, reopens_game=True)
    error = _refusal(g)
    assert (error.rule, error.field) == ("void.reopen_not_game_ended", "payload.reopens_game")
