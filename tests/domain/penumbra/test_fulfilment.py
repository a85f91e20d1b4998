"""A fulfilment refers to its reservation and must agree with it: one Contract card has one set
of printed values (rules/penumbra-scoring.ru.md line 26 "победные очки на всех выполненных вами
Контрактах" are the card's; docs/rules/penumbra.md#reserved-contracts: the reservation carries the "printed
vp/xp/light/dark"). Given a reservation, Then a fulfilment with other values is refused naming
the field; one that agrees scores the card once (EC-5: +vp, no -3).
"""

from __future__ import annotations

import pytest

from tests.domain.penumbra.builders import PenumbraGame, xp
from tests.domain.refusal import violation


def reserved() -> PenumbraGame:
    """Ada has reserved Contract c-1: 5 VP, XP (1,0,0,0,0,2), 2 Light, 0 Dark."""
    g = PenumbraGame(["ada", "bea"])
    g.contract_reserved("ada", "c-1", vp=5, xp=xp(1, 0, 0, 0, 0, 2), light=2)
    return g


def refused(g: PenumbraGame) -> tuple[str, str | None]:
    refused = violation(g)
    return refused.rule, refused.field


@pytest.mark.parametrize(
    ("values", "field"),
    [
        ({"vp": 4, "xp": xp(1, 0, 0, 0, 0, 2), "light": 2}, "payload.vp"),
        ({"vp": 5, "light": 2}, "payload.xp"),  # the bare fulfilment that dropped the XP
        ({"vp": 5, "xp": xp(1, 0, 0, 0, 0, 2)}, "payload.light"),
        ({"vp": 5, "xp": xp(1, 0, 0, 0, 0, 2), "light": 2, "dark": 1}, "payload.dark"),
    ],
    ids=["vp", "xp", "light", "dark"],
)
def test_a_fulfilment_that_disagrees_with_its_reservation_is_refused(
    values: dict[str, object], field: str
) -> None:
    g = reserved()
    g.contract_fulfilled("ada", "c-1", **values)  # type: ignore[arg-type]
    assert refused(g) == ("penumbra.contract.fulfilment_disagrees", field)


def test_a_fulfilment_that_agrees_scores_the_reserved_card() -> None:
    # Contracts +5 (line 26), the -3 gone (EC-5); Fate |2 - 0| = 2 (line 34-36); experience:
    # six-different 0, identical G(1) + G(2) = 1 + 2 = 3 (lines 15-22); total 5 + 2 + 3 = 10.
    g = reserved()
    g.contract_fulfilled("ada", "c-1", vp=5, xp=xp(1, 0, 0, 0, 0, 2), light=2)
    b = g.breakdown("ada")
    assert (b["contracts"], b["fate"], b["experience"]) == (5, 2, 3)
    assert g.totals()["ada"] == 10


def test_a_reservation_removed_still_fixes_the_cards_printed_values() -> None:
    # Given c-1 reserved with 5 VP, XP (1,0,0,0,0,2), 2 Light and the reservation removed (EC-6),
    # When Ada fulfils c-1 with 9 VP and nothing else, Then refused naming payload.vp: the card
    # printed 5 VP when it was reserved (one card, one set of printed values).
    g = reserved()
    g.contract_reservation_removed("ada", "c-1")
    g.contract_fulfilled("ada", "c-1", vp=9)
    assert refused(g) == ("penumbra.contract.fulfilment_disagrees", "payload.vp")


def test_a_card_reserved_again_repeats_its_printed_values() -> None:
    # Given c-1 reserved by Ada (5 VP, 2 Light) and her reservation removed, When Bea reserves
    # c-1 with 1 VP, Then refused naming payload.vp; with the same values it is hers (-3, line 28).
    g = reserved()
    g.contract_reservation_removed("ada", "c-1")
    g.contract_reserved("bea", "c-1", vp=1)
    assert refused(g) == ("penumbra.contract.reservation_disagrees", "payload.vp")
    g.events.pop()
    g.contract_reserved("bea", "c-1", vp=5, xp=xp(1, 0, 0, 0, 0, 2), light=2)
    assert g.totals()["bea"] == -3


def test_a_bare_fulfilment_of_a_card_never_reserved_scores_its_own_values() -> None:
    # Given nothing reserved, When Ada fulfils c-7 for 4 VP, Then +4 (line 26): a Contract taken
    # and fulfilled at once has no reservation to agree with.
    g = PenumbraGame(["ada", "bea"])
    g.contract_fulfilled("ada", "c-7", vp=4)
    assert g.totals()["ada"] == 4
