"""Scoring a Penumbra game joined in progress: `penumbra.game_started.joined_in_progress`
declares the round and each player's VP as counted at the table, Arcana in supply, experience
symbols and Light / Dark obtained, as ledger entries citing
`docs/rules/penumbra.md#joined-in-progress`; what follows scores as usual, experience sets and Fate
continuing from the declared symbols (rules/penumbra-scoring.ru.md lines 7, 13-24, 34-40).
"""

from __future__ import annotations

from typing import Any

from contracts.penumbra import PenumbraGameStarted
from tests.domain.penumbra.builders import PenumbraGame, xp
from tests.domain.refusal import violation

ADA = {"player_id": "ada", "vp": 20, "arcana": 4, "xp": xp(1, 1, 1, 1, 1), "light": 3}
BEA = {"player_id": "bea", "vp": 9, "arcana": 2}


def joined(players: list[dict[str, Any]] | None = None) -> PenumbraGame:
    g = PenumbraGame(["ada", "bea"])
    start = g.events[0].payload.model_dump()
    start["joined_in_progress"] = {"turn": 4, "players": players or [ADA, BEA]}
    g.events[0] = g.events[0].model_copy(
        update={"payload": PenumbraGameStarted.model_validate(start)}
    )
    return g


def test_the_declared_vp_is_the_total_and_every_entry_has_the_join_rule() -> None:
    g = joined()
    assert g.totals() == {"ada": 20, "bea": 9}
    assert {e.rule for e in g.state().ledger} == {"docs/rules/penumbra.md#joined-in-progress"}
    # Ada's 20: Arcana 4 (line 7), experience five different kinds: 5 x G(1) = 5 (lines 15-22),
    # Fate |3 - 0| = 3 (lines 34-36), and 20 - 4 - 5 - 3 = 8 declared otherwise.
    b = g.breakdown("ada")
    assert (b["arcana"], b["experience"], b["fate"], b["joined"]) == (4, 5, 3, 8)


def test_experience_and_fate_continue_from_the_declared_symbols() -> None:
    # Ada completes a Trial: 2 VP, the sixth kind XP6 and 1 Dark. Experience: one set of six
    # different = 7 + six singles 6 x G(1) = 6 -> 13 (was 5: +8); Fate |3 - 1| = 2 (was 3: -1);
    # Trials +2. Total 20 + 8 - 1 + 2 = 29.
    g = joined()
    g.turn(5)
    g.trial_completed("ada", "t-9", vp=2, xp=xp(0, 0, 0, 0, 0, 1), dark=1)
    assert g.totals()["ada"] == 29


def test_arcana_over_the_cap_is_refused() -> None:
    refused = violation(joined([{**ADA, "arcana": 13}, BEA]))
    assert (refused.rule, refused.field) == (
        "penumbra.join.arcana_over_cap",
        "payload.joined_in_progress.players",
    )


def test_every_player_is_declared_once() -> None:
    refused = violation(joined([ADA]))
    assert (refused.rule, refused.field) == (
        "penumbra.join.players",
        "payload.joined_in_progress.players",
    )


def test_the_next_round_follows_the_declared_one() -> None:
    g = joined()
    g.turn(4)
    refused = violation(g)
    assert refused.rule == "penumbra.turn.order"


OPEN = {"contract_id": "c-2", "vp": 5, "xp": xp(0, 1), "light": 1}


def test_an_open_contract_reservation_declared_at_join_is_fulfilled_as_usual() -> None:
    # Given Ada joins at 20 VP with Contract c-2 reserved (its -3 is in her 20, rules line 28)
    # and Mortal Wound w-1 held (-3, line 11), Then her breakdown shows both: contracts -3,
    # mortal_wounds -3, and the rest declared otherwise: 20 - 4 - 5 - 3 + 3 + 3 = 14 joined.
    ada = {**ADA, "reserved_contracts": [OPEN], "mortal_wounds": ["w-1"]}
    g = joined([ada, BEA])
    b = g.breakdown("ada")
    assert (b["contracts"], b["mortal_wounds"], b["joined"]) == (-3, -3, 14)
    # When she fulfils c-2 with its printed values, Then +5 and the -3 goes (EC-5): +8;
    # experience XP1-XP5 + XP2 = G(1) x 4 + G(2) = 6 (was 5: +1, lines 15-22); Fate
    # |4 - 0| = 4 (was 3: +1, lines 34-36). Total 20 + 8 + 1 + 1 = 30.
    g.turn(5)
    g.contract_fulfilled("ada", "c-2", vp=5, xp=xp(0, 1), light=1)
    assert g.totals()["ada"] == 30
    # and removing the wound gives its 3 back (EC-19): 33.
    g.mortal_wound_removed("ada", "w-1")
    assert g.totals()["ada"] == 33


def test_a_reservation_declared_at_join_fixes_the_cards_printed_values() -> None:
    g = joined([{**ADA, "reserved_contracts": [OPEN]}, BEA])
    g.turn(5)
    g.contract_fulfilled("ada", "c-2", vp=7)
    refused = violation(g)
    assert (refused.rule, refused.field) == (
        "penumbra.contract.fulfilment_disagrees",
        "payload.vp",
    )


def test_one_card_declared_by_two_players_is_refused() -> None:
    ada = {**ADA, "mortal_wounds": ["w-1"]}
    bea = {**BEA, "mortal_wounds": ["w-1"]}
    refused = violation(joined([ada, bea]))
    assert (refused.rule, refused.field) == (
        "penumbra.join.card_held_twice",
        "payload.joined_in_progress.players",
    )
