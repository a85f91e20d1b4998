"""A fulfilment refers to its reservation and must agree with it: one Contract card has one set
of printed values (rules/penumbra-scoring.ru.md line 26 "победные очки на всех выполненных вами
Контрактах" are the card's; research/penumbra.md §8: the reservation carries the "printed
vp/xp/light/dark"). Given a reservation, Then a fulfilment with other values is refused naming
the field; one that agrees scores the card once (EC-5: +vp, no -3).
"""

from __future__ import annotations

import pytest

from domain.errors import RuleViolation
from tests.domain.penumbra.builders import PenumbraGame, xp


def reserved() -> PenumbraGame:
    """Ada has reserved Contract c-1: 5 VP, XP (1,0,0,0,0,2), 2 Light, 0 Dark."""
    g = PenumbraGame(["ada", "bea"])
    g.contract_reserved("ada", "c-1", vp=5, xp=xp(1, 0, 0, 0, 0, 2), light=2)
    return g


def refused(g: PenumbraGame) -> tuple[str, str | None]:
    with pytest.raises(RuleViolation) as caught:
        g.state()
    return caught.value.rule, caught.value.field


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
