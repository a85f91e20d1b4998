"""Hand-computed ledger entries of Penumbra's diff (domain/penumbra/diff.py) where the options
and the order of events make the incremental tally easy to get wrong, a void refolding them, and
a handed-out state that must not change while the folder goes on past marks.

Rules: docs/rules/penumbra.md#experience (lines 13-24; 6 identical symbols `extrapolate`:
floor(7^2 / 4) = 12), #reserved-contracts (-3, `once`: for any open reservations; symbols of an
unfulfilled Contract counted under `xp_on_unfulfilled`), #fate (|Light - Dark| of completed
Trials and fulfilled Contracts).
"""

from __future__ import annotations

import dataclasses

from contracts.penumbra import PenumbraOptions
from domain.fold import MARK_EVERY, Folder, GameState, fold
from domain.ledger import Resource
from domain.penumbra.state import Card, PenumbraState
from domain.standings import standings_text
from services.simulator.tables import simulate_game
from tests.domain.penumbra.builders import PenumbraGame, xp
from tests.domain.referee import referee_event

OPTIONS = PenumbraOptions(
    six_plus_identical="extrapolate", reserved_contract_penalty="once", xp_on_unfulfilled=True
)


def _vp(state: GameState, seq: int) -> list[tuple[str, str, int, str]]:
    return [
        (e.player_id, e.category, e.amount, e.note)
        for e in state.ledger
        if e.seq == seq and e.resource is Resource.VP
    ]


def _game() -> PenumbraGame:
    g = PenumbraGame(["ada", "bea", "cy"], OPTIONS)
    g.contract_reserved("ada", "c1", 4, xp(6), light=2)  # seq 2
    g.contract_reserved("ada", "c2", 1, xp(0, 1))  # seq 3
    g.contract_fulfilled("ada", "c1", 4, xp(6), light=2)  # seq 4
    g.trial_completed("cy", "t1", 0, dark=3)  # seq 5
    g.trial_completed("bea", "t2", 2, light=3, dark=3)  # seq 6
    return g


def test_reserved_then_fulfilled_under_the_options() -> None:
    state = _game().state()
    # c1 reserved: its six XP1 count (xp_on_unfulfilled), G(6) = 12; one open Contract: -3.
    assert _vp(state, 2) == [
        ("ada", "experience", 12, "experience 0 -> 12 VP"),
        ("ada", "contracts", -3, "contracts 0 -> -3 VP"),
    ]
    # c2 reserved: one XP2, G(1) = 1; still -3 in all (`once`).
    assert _vp(state, 3) == [("ada", "experience", 1, "experience 12 -> 13 VP")]
    # c1 fulfilled: its symbols were counted already; 4 VP and c2's -3 stays; Fate |2 - 0|.
    assert _vp(state, 4) == [
        ("ada", "contracts", 4, "contracts -3 -> 1 VP"),
        ("ada", "fate", 2, "fate 0 -> 2 VP"),
    ]
    # a Trial of 0 VP scores no Trials entry; Fate |0 - 3| = 3.
    assert _vp(state, 5) == [("cy", "fate", 3, "fate 0 -> 3 VP")]
    # Light 3 and Dark 3: Fate stays 0, no entry.
    assert _vp(state, 6) == [("bea", "trials", 2, "trials 0 -> 2 VP")]
    assert dict(state.totals) == {"ada": 16, "bea": 2, "cy": 3}
    assert state.breakdown["ada"] == {"experience": 13, "contracts": 1, "fate": 2}


def test_a_void_of_the_reservation_refolds_the_later_entries() -> None:
    g = _game()
    before = g.state()
    seen = (list(before.ledger), dict(before.totals), before.rules, standings_text(before))
    g.voided(g.events[1])  # c1's reservation: c1 is then fulfilled unreserved (allowed)
    state = fold(g.events)
    assert _vp(state, 2) == []
    assert _vp(state, 3) == [
        ("ada", "experience", 1, "experience 0 -> 1 VP"),
        ("ada", "contracts", -3, "contracts 0 -> -3 VP"),
    ]
    assert _vp(state, 4) == [
        ("ada", "experience", 12, "experience 1 -> 13 VP"),
        ("ada", "contracts", 4, "contracts -3 -> 1 VP"),
        ("ada", "fate", 2, "fate 0 -> 2 VP"),
    ]
    assert dict(state.totals) == {"ada": 16, "bea": 2, "cy": 3}
    assert (list(before.ledger), dict(before.totals), before.rules, standings_text(before)) == seen


def test_arcana_over_the_cap_writes_the_loss_and_no_vp_when_the_supply_stays() -> None:
    """docs/rules/penumbra.md#arcana: a supply holds `arcana_cap` (5 here), the rest is lost.
    A gain at the cap changes no VP: an ARCANA entry of 0 noting the loss, no VP entry."""
    g = PenumbraGame(["ada", "bea"], PenumbraOptions(arcana_cap=5))
    g.arcana_gained("ada", 4)  # seq 2: 0 -> 4
    g.arcana_gained("ada", 3)  # seq 3: 4 -> 5, 2 lost
    g.arcana_gained("ada", 2)  # seq 4: 5 -> 5, 2 lost
    g.arcana_spent("ada", 5)  # seq 5: 5 -> 0
    state = g.state()
    rule = "docs/rules/penumbra.md#arcana"
    entries = [(e.seq, e.resource, e.amount, e.note) for e in state.ledger]
    assert entries == [
        (2, Resource.ARCANA, 4, "supply 0 -> 4"),
        (2, Resource.VP, 4, "arcana 0 -> 4 VP"),
        (3, Resource.ARCANA, 1, f"supply 4 -> 5, 2 lost over the cap ({rule})"),
        (3, Resource.VP, 1, "arcana 4 -> 5 VP"),
        (4, Resource.ARCANA, 0, f"supply 5 -> 5, 2 lost over the cap ({rule})"),
        (5, Resource.ARCANA, -5, "supply 5 -> 0"),
        (5, Resource.VP, -5, "arcana 5 -> 0 VP"),
    ]
    assert {e.rule for e in state.ledger} == {rule}
    # Bea holds nothing: a total of 0 and an empty breakdown; Ada's Arcana is back to 0 too.
    assert dict(state.totals) == {"ada": 0, "bea": 0}
    assert state.breakdown == {"ada": {"arcana": 0}, "bea": {}}


def _shown(state: GameState) -> tuple[object, ...]:
    rules = state.rules
    assert isinstance(rules, PenumbraState)
    return (
        list(state.ledger),
        dict(state.totals),
        {pid: dict(cats) for pid, cats in state.breakdown.items()},
        rules,
        repr(rules),
        {pid: id(t) for pid, t in rules.tableaux.items()},
        standings_text(state),
    )


def test_a_handed_out_state_stays_while_the_folder_goes_on() -> None:
    """Fold, take `folder.state`, fold on past marks with a void refolding from a mark and a
    correction, and a second writer continuing the state: the state taken is unchanged and is
    still the fold of the log to its seq."""
    log = list(simulate_game("penumbra", 7, players=4))
    middle = len(log) // 2
    assert len(log) - middle > 2 * MARK_EVERY
    folder: Folder[PenumbraState] = Folder()
    for event in log[:middle]:
        folder.add(event)
    taken = folder.state
    shown = _shown(taken)
    corrected = False
    for event in log[middle:-1]:  # not game.ended: a void and a correction follow
        folder.add(event)
        if event.seq == middle + MARK_EVERY + 3:
            corrected = True
            state = folder.state
            player = state.players[1].player_id
            folder.add(
                referee_event(
                    state,
                    "game.score_corrected",
                    {
                        "player_id": player,
                        "amount": 5,
                        "category": "fate",
                        "reason": "r",
                        "referee": "x",
                    },
                )
            )
            break
    target = next(e for e in log[middle - 5 : middle] if e.type != "game.event_voided")
    void = referee_event(
        folder.state,
        "game.event_voided",
        {"voided_event_id": str(target.event_id), "reason": "r", "referee": "x"},
    )
    assert corrected
    folder.add(void)  # refolds from the mark before the target, through `taken`'s seq
    other = Folder.resume(taken)  # a second writer from the state taken
    other.add(log[middle])
    assert folder.state.voided == {target.event_id}
    assert _shown(taken) == shown
    again = fold(log, upto_seq=taken.seq)
    assert (list(again.ledger), dict(again.totals), again.rules) == (shown[0], shown[1], shown[3])


def test_a_card_of_a_move_is_the_dataclass_its_init_builds() -> None:
    """`cards._card` builds a `Card` without `__init__` (`values.with_dict`): every Card a
    game's moves hold has the fields in declared order, equals and reprs as `Card(...)`."""
    state = fold(simulate_game("penumbra", 11, players=4)).rules
    assert isinstance(state, PenumbraState)
    names = [f.name for f in dataclasses.fields(Card)]
    held = [
        c for t in state.tableaux.values() for c in (*t.trials, *t.contracts, *t.reserved_contracts)
    ]
    held += list(state.printed_contracts.values())
    assert len(held) > 5
    for c in held:
        assert list(vars(c)) == names
        built = Card(**vars(c))
        assert (c, repr(c), hash(c)) == (built, repr(built), hash(built))
