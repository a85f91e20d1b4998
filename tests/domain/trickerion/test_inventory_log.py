"""The end-game inventory against the log: characters declared must be the characters hired
(voided hires are not in the state, the fold refolds without them), and every count is bounded
by the card data (docs/rules/trickerion.md#characters; trickerion-scoring.md 'End of
the game'). Given the events, Then the rule and the field of the refusal, or the Fame.
"""

from __future__ import annotations

from typing import Any

from tests.domain.refusal import violation
from tests.domain.trickerion.builders import TrickerionGame, categories_of


def refusal(g: TrickerionGame, player: str, **fields: Any) -> tuple[str, str | None]:
    """Declare `player`'s inventory as the last event; the (rule, field) of the refusal."""
    g.inventory(player, **fields)
    refused = violation(g)
    return refused.rule, refused.field


def base_game(**options: Any) -> TrickerionGame:
    g = TrickerionGame(["ann", "ben"], dark_alley=False, **options)
    g.turn()
    return g


def test_a_manager_never_hired_is_refused() -> None:
    # Given no hire at all, When Ann declares a Manager, Then the specialists field is refused
    # (it would score +3 Fame in the base game, rules L21).
    g = base_game()
    g.to_final_turn()
    assert refusal(g, "ann", specialists=("manager",)) == (
        "trickerion.inventory.specialists_not_hired",
        "payload.specialists",
    )


def test_four_apprentices_never_hired_are_refused() -> None:
    # Given one Apprentice hired, When Ann declares 4, Then refused (4 x 2 = 8 Fame, rules L21).
    g = base_game()
    g.hire("ann", "apprentice")
    g.to_final_turn()
    assert refusal(g, "ann", apprentices=4) == (
        "trickerion.inventory.apprentices_not_hired",
        "payload.apprentices",
    )


def test_hired_apprentices_and_specialists_score_as_declared() -> None:
    # Given 2 Apprentices, an Assistant (its bonus Apprentice, research §3.4 / §5.20) and a
    # Manager hired, Then 3 Apprentices x 2 = 6 and 2 Specialists x 3 = 6 (rules L21).
    g = base_game()
    for character in ("apprentice", "apprentice", "assistant", "manager"):
        g.hire("ann", character)
    g.to_final_turn()
    g.inventory("ann", apprentices=3, specialists=("assistant", "manager"))
    g.inventory("ben")
    g.end()
    c = categories_of(g.standings(), "ann")
    assert (c["apprentices"], c["specialists"]) == (6, 6)


def test_fewer_apprentices_than_hired_are_refused() -> None:
    # Given 2 hired, When 1 is declared, Then refused: hired characters stay to the end.
    g = base_game()
    g.hire("ann", "apprentice")
    g.hire("ann", "apprentice")
    g.to_final_turn()
    assert refusal(g, "ann", apprentices=1) == (
        "trickerion.inventory.apprentices_undeclared",
        "payload.apprentices",
    )


def test_a_voided_hire_is_not_in_the_inventory() -> None:
    # Given a Manager hired and the hire voided, When Ann declares the Manager, Then refused.
    g = base_game()
    hire = g.hire("ann", "manager")
    g.void(hire)
    g.to_final_turn()
    assert refusal(g, "ann", specialists=("manager",)) == (
        "trickerion.inventory.specialists_not_hired",
        "payload.specialists",
    )


def test_voiding_a_hire_the_inventory_declared_is_refused() -> None:
    # Given a Manager hired and declared, When the hire is voided, Then the void breaks the
    # inventory (the refold in domain/fold.py names it), so the character is never kept scored.
    g = base_game()
    hire = g.hire("ann", "manager")
    g.to_final_turn()
    g.inventory("ann", specialists=("manager",))
    g.void(hire)
    refused = violation(g)
    assert refused.rule == "void.breaks_later_event"
    assert "specialists_not_hired" in refused.message


def test_a_hired_specialist_left_out_is_refused() -> None:
    g = base_game()
    g.hire("ann", "engineer")
    g.to_final_turn()
    assert refusal(g, "ann") == (
        "trickerion.inventory.specialists_undeclared",
        "payload.specialists",
    )


def test_a_protege_never_hired_is_refused() -> None:
    g = TrickerionGame(["ann", "ben"], academy=True)
    g.to_final_turn()
    assert refusal(g, "ann", protege=True) == (
        "trickerion.inventory.protege_not_hired",
        "payload.protege",
    )


def test_arcane_workers_must_be_the_ones_hired() -> None:
    # Given a Golem hired, When a Golem and a Shapeshifter are declared, Then refused.
    g = TrickerionGame(["ann", "ben"], arcane_arts=True)
    g.turn()
    g.hire("ann", "golem")
    g.to_final_turn()
    assert refusal(
        g, "ann", arcane_workers=("golem", "shapeshifter"), shapeshifter_as="manager"
    ) == ("trickerion.inventory.arcane_workers_not_hired", "payload.arcane_workers")


def test_the_shapeshifters_declared_type_needs_a_hired_shapeshifter() -> None:
    # Given a hired Shapeshifter declared as a Manager, Then it counts as the Manager: T09's
    # Assistant/Engineer/Manager condition (research §3.1) is not asked here; the base-game
    # count is: 1 Specialist x 3 = 3 (rules L21, L26).
    g = TrickerionGame(["ann", "ben"], arcane_arts=True, dark_alley=False)
    g.turn()
    g.hire("ann", "shapeshifter")
    g.to_final_turn()
    g.inventory("ann", arcane_workers=("shapeshifter",), shapeshifter_as="manager")
    g.inventory("ben")
    g.end()
    assert categories_of(g.standings(), "ann")["specialists"] == 3


def test_every_hired_shapeshifter_counts_as_the_declared_type() -> None:
    # Given two Shapeshifters and a Golem hired (base game, Arcane Arts), When Ann declares the
    # Shapeshifters as Apprentices, Then the Golem counts as an Apprentice and so does each
    # Shapeshifter (rules 'Arcane Arts'; research §4 comb. 4): 3 Apprentices x 2 = 6 (L21);
    # before, the second Shapeshifter counted as nothing.
    g = TrickerionGame(["ann", "ben"], arcane_arts=True, dark_alley=False)
    g.turn()
    for worker in ("shapeshifter", "shapeshifter", "golem"):
        g.hire("ann", worker)
    g.to_final_turn()
    g.inventory(
        "ann",
        arcane_workers=("shapeshifter", "shapeshifter", "golem"),
        shapeshifter_as="apprentice",
    )
    g.inventory("ben")
    g.end()
    c = categories_of(g.standings(), "ann")
    assert (c["apprentices"], c["specialists"]) == (6, 0)


# -- bounds from the card data ----------------------------------------------------------------
def test_special_assignment_cards_in_hand_are_bounded_by_the_deck() -> None:
    # BGA Assignments/ A06..A45: 40 Special Assignment cards (A01..A05 are permanent, §5.19).
    g = TrickerionGame(["ann", "ben"])
    g.to_final_turn()
    assert refusal(g, "ann", special_assignments_in_hand=41) == (
        "trickerion.inventory.over_card_data",
        "payload.special_assignments_in_hand",
    )


def test_special_assignment_cards_in_all_hands_are_bounded_by_the_deck() -> None:
    # Given Ann declared 30 Special Assignment cards in hand, When Ben declares 11, Then refused:
    # one deck of 40 (30 + 11 = 41); 10 is accepted (2 x 10 = 20 Fame, rules L19).
    g = TrickerionGame(["ann", "ben"])
    g.to_final_turn()
    g.inventory("ann", special_assignments_in_hand=30)
    assert refusal(g, "ben", special_assignments_in_hand=11) == (
        "trickerion.inventory.over_card_data",
        "payload.special_assignments_in_hand",
    )
    g.events.pop()
    g.inventory("ben", special_assignments_in_hand=10)
    g.end()
    assert categories_of(g.standings(), "ben")["special_assignments"] == 20


def test_workshop_trick_markers_are_bounded_by_the_printed_markers() -> None:
    # T01 prints 2 markers, T16 prints 2 (tricks.json); with no Engineer at most 4 in the Workshop.
    g = TrickerionGame(["ann", "ben"])
    g.turn()
    g.learn("ann", "T01")
    g.learn("ann", "T16")
    g.to_final_turn()
    assert refusal(g, "ann", workshop_trick_markers=5) == (
        "trickerion.inventory.over_card_data",
        "payload.workshop_trick_markers",
    )


def test_level3_markers_are_bounded_by_the_printed_markers() -> None:
    # T36 Transported Man prints 2 markers (research §3.1): 3 on the card is refused.
    g = TrickerionGame(["ann", "ben"])
    g.turn()
    g.learn("ann", "T36")
    g.to_final_turn()
    assert refusal(g, "ann", level3=(("T36", False, 3),)) == (
        "trickerion.inventory.over_card_data",
        "payload.level3_tricks",
    )
