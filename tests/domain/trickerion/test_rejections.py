"""Bad input is rejected with a RuleViolation naming the rule and the field, and the state the
event was applied to is left unchanged (docs/rules/trickerion.md; trickerion-scoring.md)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from contracts.common import Player
from contracts.trickerion import TrickerionGameStarted
from domain.errors import RuleViolation
from domain.fold import evolve
from tests.domain.trickerion.builders import TrickerionGame

Step = Callable[[TrickerionGame], object]


def ready(**options: object) -> TrickerionGame:
    """Ann (position 1) owns T16 and has an Assistant; Ben (position 2) owns T01; turn 1."""
    g = TrickerionGame(["ann", "ben"], **options)
    g.turn()
    g.learn("ann", "T16")
    g.learn("ben", "T01")
    g.hire("ann", "assistant")
    return g


def at_final_turn(**options: object) -> TrickerionGame:
    g = ready(**options)
    g.to_final_turn()
    return g


def assert_rejected(g: TrickerionGame, step: Step, rule: str, field: str) -> None:
    """`step` appends events; its last one, applied to the state before it, must raise `rule` /
    `field`, and that state must still equal a fresh fold of the events before it."""
    step(g)
    event = g.events.pop()
    before = g.state()
    with pytest.raises(RuleViolation) as caught:
        evolve(before, event)
    assert (caught.value.rule, caught.value.field) == (rule, field)
    assert before == g.state()


CASES: list[tuple[str, Callable[[], TrickerionGame], Step, str, str]] = [
    # Advertise
    ("second_advertise_in_a_turn", ready, lambda g: (g.advertise("ann", 1), g.advertise("ann", 1)), "trickerion.advertise.once_per_turn", "payload.player_id"),
    ("advertise_cost_not_position", ready, lambda g: g.advertise("ben", 1), "trickerion.advertise.cost", "payload.coins_paid"),
    ("advertise_without_the_coins", ready, lambda g: (g.change("ben", "bank", coins=-11), g.advertise("ben", 2)), "trickerion.coins.insufficient", "payload.coins_paid"),
    ("advertise_before_a_turn", lambda: TrickerionGame(["ann", "ben"]), lambda g: g.advertise("ann", 1), "trickerion.turn.not_started", "type"),
    # players and cards
    ("unknown_player", ready, lambda g: g.advertise("zed", 1), "trickerion.player.unknown", "payload.player_id"),
    ("unknown_link_partner", ready, lambda g: g.link("ann", "T16", other="zed"), "trickerion.player.unknown", "payload.other_owner_id"),
    ("unknown_yield_owner", ready, lambda g: g.yield_("zed", "T16", "P01"), "trickerion.player.unknown", "payload.owner_id"),
    ("unknown_trick_card", ready, lambda g: g.learn("ann", "T49"), "trickerion.card.unknown_trick", "payload.trick_id"),
    ("unknown_performance_card", ready, lambda g: g.perform("ann", "P29"), "trickerion.card.unknown_performance", "payload.performance_card_id"),
    # the hot handlers' unknown players and missing turn (their fast paths call `state.book` /
    # `require_turn` only to refuse, docs/profiles/fold-event-cost.md)
    ("unknown_link_placer", ready, lambda g: g.link("zed", "T16", other="ben"), "trickerion.player.unknown", "payload.player_id"),
    ("unknown_performer", ready, lambda g: g.perform("zed", "P01"), "trickerion.player.unknown", "payload.performer_id"),
    ("unknown_player_changed", ready, lambda g: g.change("zed", "bank", coins=1), "trickerion.player.unknown", "payload.player_id"),
    ("yield_before_a_turn", lambda: TrickerionGame(["ann", "ben"]), lambda g: g.yield_("ann", "T16", "P01"), "trickerion.turn.not_started", "type"),
    ("performance_before_a_turn", lambda: TrickerionGame(["ann", "ben"]), lambda g: g.perform("ann", "P01"), "trickerion.turn.not_started", "type"),
    ("link_before_a_turn", lambda: TrickerionGame(["ann", "ben"]), lambda g: g.link("ann", "T16", other="ben"), "trickerion.turn.not_started", "type"),
    # tricks
    ("level3_trick_without_the_dark_alley_q3", lambda: ready(dark_alley=False), lambda g: g.learn("ann", "T09"), "trickerion.trick.level3_needs_dark_alley", "payload.trick_id"),
    ("trick_already_owned", ready, lambda g: g.learn("ann", "T01"), "trickerion.trick.already_owned", "payload.trick_id"),
    ("link_with_a_trick_not_owned", ready, lambda g: g.link("ann", "T01", other="ben"), "trickerion.link.trick_not_owned", "payload.trick_id"),
    ("link_to_a_player_without_tricks", lambda: _no_tricks_for_ben(), lambda g: g.link("ann", "T16", other="ben"), "trickerion.link.other_owner_has_no_trick", "payload.other_owner_id"),
    # yields and performances
    ("yield_for_a_trick_the_owner_does_not_own", ready, lambda g: g.yield_("ann", "T01", "P01"), "trickerion.yield.trick_not_owned", "payload.trick_id"),
    ("yield_amount_contradicts_the_catalog", ready, lambda g: g.yield_("ann", "T16", "P01", fame=5), "trickerion.yield.amount_mismatch", "payload.fame"),
    ("yield_without_weekday_when_modifiers_on", lambda: ready(weekday_yield_modifiers=True), lambda g: g.yield_("ann", "T16", "P01"), "trickerion.yield.weekday_required", "payload.weekday"),
    ("performance_links_exceeded", ready, lambda g: g.perform("ann", "P01", links=3), "trickerion.performance.links_exceeded", "payload.links"),
    ("performance_bonus_contradicts_the_catalog", ready, lambda g: g.perform("ann", "P01", bonus_coins=2), "trickerion.performance.bonus_mismatch", "payload.bonus_coins"),
    ("specialist_behind_not_hired", ready, lambda g: g.perform("ann", "P01", specialists=("manager",)), "trickerion.performance.specialist_not_hired", "payload.specialists_behind"),
    ("same_card_performed_twice_in_a_turn", ready, lambda g: (g.perform("ann", "P01"), g.perform("ben", "P01")), "trickerion.performance.once_per_turn", "payload.performance_card_id"),
    ("magnus_pantheon_without_the_dark_alley", lambda: ready(dark_alley=False), lambda g: g.perform("ann", "P21"), "trickerion.performance.needs_dark_alley", "payload.performance_card_id"),
    # hires and other changes
    ("protege_without_the_academy", ready, lambda g: g.hire("ann", "protege"), "trickerion.hire.needs_academy", "payload.character"),
    ("arcane_worker_without_arcane_arts", ready, lambda g: g.hire("ann", "golem"), "trickerion.hire.needs_arcane_arts", "payload.character"),
    ("second_assistant", ready, lambda g: g.hire("ann", "assistant"), "trickerion.hire.twice", "payload.character"),
    ("spending_shards_not_held", ready, lambda g: g.change("ann", "enhance", shards=-2), "trickerion.shards.insufficient", "payload.shards"),
    ("spending_coins_not_held", ready, lambda g: g.change("ann", "purchase", coins=-11), "trickerion.coins.insufficient", "payload.coins"),
    # turns
    ("a_turn_skipped", ready, lambda g: (g.turn(), g.emit(g.events[-1].payload.model_copy(update={"turn": 4}))), "trickerion.turn.order", "payload.turn"),
    ("a_turn_after_the_final_turn", at_final_turn, lambda g: g.turn(), "trickerion.turn.after_final_turn", "payload.turn"),
    ("base_game_turn_six", lambda: at_final_turn(dark_alley=False), lambda g: g.turn(), "trickerion.turn.after_final_turn", "payload.turn"),
    ("initiative_order_missing_a_player", ready, lambda g: g.initiative(["ann"]), "trickerion.initiative.players", "payload.initiative_order"),
    # inventory
    ("inventory_before_the_final_turn", ready, lambda g: g.declare("ann"), "trickerion.inventory.before_final_turn", "type"),
    ("inventory_twice", at_final_turn, lambda g: (g.declare("ann"), g.declare("ann")), "trickerion.inventory.twice", "payload.player_id"),
    ("special_assignments_in_the_base_game", lambda: at_final_turn(dark_alley=False), lambda g: g.declare("ann", special_assignments_in_hand=1), "trickerion.inventory.needs_dark_alley", "payload.special_assignments_in_hand"),
    ("banners_without_the_academy", at_final_turn, lambda g: g.declare("ann", academy_banners=2), "trickerion.inventory.needs_academy", "payload.academy_banners"),
    ("contraption_shards_without_dawn_of_technology", at_final_turn, lambda g: g.declare("ann", contraption_shards=2), "trickerion.inventory.needs_dawn_of_technology", "payload.contraption_shards"),
    ("arcane_shards_without_arcane_arts", at_final_turn, lambda g: g.declare("ann", arcane_shards=1), "trickerion.inventory.needs_arcane_arts", "payload.arcane_shards"),
    ("level3_trick_not_declared", lambda: _owns_t46(), lambda g: g.declare("ann"), "trickerion.inventory.level3_missing", "payload.level3_tricks"),
    ("level3_trick_not_owned", at_final_turn, lambda g: g.declare("ann", level3=(("T46", True, 0),)), "trickerion.inventory.trick_not_owned", "payload.level3_tricks"),
    ("level1_trick_declared_as_level3", at_final_turn, lambda g: g.declare("ann", level3=(("T16", True, 0),)), "trickerion.inventory.not_level3", "payload.level3_tricks"),
    # the end
    ("game_ended_before_the_final_turn", ready, lambda g: g.end(), "trickerion.end.before_final_turn", "type"),
    ("game_ended_without_every_inventory", at_final_turn, lambda g: (g.declare("ann"), g.end()), "trickerion.end.inventory_missing", "type"),
]  # fmt: skip


def _no_tricks_for_ben() -> TrickerionGame:
    g = TrickerionGame(["ann", "ben"])
    g.turn()
    g.learn("ann", "T16")
    return g


def _owns_t46() -> TrickerionGame:
    g = ready()
    g.learn("ann", "T46")
    g.to_final_turn()
    return g


@pytest.mark.parametrize(
    ("name", "given", "step", "rule", "field"), CASES, ids=[c[0] for c in CASES]
)
def test_rejected(
    name: str, given: Callable[[], TrickerionGame], step: Step, rule: str, field: str
) -> None:
    assert_rejected(given(), step, rule, field)


@pytest.mark.parametrize(
    ("players", "rule"),
    [
        ([Player(player_id=f"p{i}", name=f"P{i}", seat=i, initiative=i) for i in range(1, 6)], "trickerion.setup.players"),
        ([Player(player_id="a", name="A", seat=1, initiative=1), Player(player_id="b", name="B", seat=2)], "trickerion.setup.initiative"),
    ],
    ids=["five_players", "missing_starting_initiative"],
)  # fmt: skip
def test_rejected_setup(players: list[Player], rule: str) -> None:
    g = TrickerionGame(["x"])
    # built unchecked: the contract refuses five players too (its bound is the rules')
    start = g.envelope(TrickerionGameStarted.model_construct(players=tuple(players)), seq=1)
    with pytest.raises(RuleViolation) as caught:
        evolve(None, start)
    assert (caught.value.rule, caught.value.field) == (rule, "payload.players")
