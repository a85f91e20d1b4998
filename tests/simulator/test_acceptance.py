"""Every simulated game is accepted by the domain: it folds without a RuleViolation and ends
final, over many seeds, player counts and module combinations (hypothesis)."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contracts.events import dump_event_json, parse_event_json
from contracts.penumbra import PenumbraOptions
from contracts.trickerion import TrickerionOptions
from domain.fold import fold
from domain.ledger import Resource
from services.simulator.penumbra import PenumbraTable
from services.simulator.penumbra import random_options as pen_options
from services.simulator.tables import interleave, simulate_game
from services.simulator.trickerion import TrickerionTable
from services.simulator.trickerion_extras import random_options as tr_options

trickerion_options = st.integers(0, 2**32).map(lambda n: tr_options(random.Random(n)))
"""Every option value (modules and RECs), as the simulator draws them for a table."""
penumbra_options = st.integers(0, 2**32).map(lambda n: pen_options(random.Random(n)))
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(seed=st.integers(0, 2**32), players=st.integers(1, 4), options=trickerion_options)
def test_trickerion_games_fold_final(seed: int, players: int, options: TrickerionOptions) -> None:
    table = TrickerionTable(random.Random(seed), "tr-prop", players=players, options=options)
    events = list(table.events())
    state = fold(events)
    assert state.status == "final"
    assert state.seq == len(events)
    # The simulator's own in-play Fame tally agrees with the domain's in-play Fame ledger
    # (referee corrections are outside both the tally and the ruleset's books).
    endgame = {c.key for c in state.ruleset.categories if c.endgame}
    for seat in table.seats:
        in_play = sum(
            e.amount
            for e in state.ledger
            if e.player_id == seat.player_id
            and e.resource is Resource.FAME
            and e.category not in endgame
            and e.rule != "correction"
        )
        assert in_play == seat.fame, seat.player_id


@SETTINGS
@given(seed=st.integers(0, 2**32), players=st.integers(1, 4), options=penumbra_options)
def test_penumbra_games_fold_final(seed: int, players: int, options: PenumbraOptions) -> None:
    events = list(
        PenumbraTable(random.Random(seed), "pe-prop", players=players, options=options).events()
    )
    state = fold(events)
    assert state.status == "final"
    assert state.seq == len(events)


def test_same_seed_same_log_byte_for_byte() -> None:
    first = [dump_event_json(e) for e in simulate_game("mixed", 7, 3)]
    again = [dump_event_json(e) for e in simulate_game("mixed", 7, 3)]
    other = [dump_event_json(e) for e in simulate_game("mixed", 8, 3)]
    assert first == again
    assert first != other


def test_interleaved_tables_keep_each_games_order_and_round_trip() -> None:
    events = list(interleave(simulate_game("mixed", 11, t) for t in range(6)))
    by_game: dict[str, list] = {}
    for event in events:
        by_game.setdefault(event.game_id, []).append(parse_event_json(dump_event_json(event)))
    assert len(by_game) == 6
    for log in by_game.values():
        assert [e.seq for e in log] == list(range(1, len(log) + 1))
        assert fold(log).status == "final"


def test_turns_follow_the_initiative_rules() -> None:
    """Initiative by ascending Fame from turn 2; Advertise at most once per player per turn,
    paying the initiative position (trickerion-scoring.md 'Advertise')."""
    for seed in range(20):
        events = list(simulate_game("trickerion", seed, 0))
        order: tuple[str, ...] = ()
        advertised: set[str] = set()
        for event in events:
            payload = event.payload
            if event.type == "game.turn_started":
                order, advertised = payload.initiative_order, set()
                state = fold(events[: event.seq - 1])
                fame = {pid: b.fame for pid, b in state.rules.books.items()}
                assert list(order) == sorted(order, key=lambda pid: fame[pid])
            elif event.type == "trickerion.advertised":
                assert payload.player_id not in advertised
                advertised.add(payload.player_id)
                assert payload.coins_paid == order.index(payload.player_id) + 1


def test_some_trickerion_tables_are_joined_in_progress() -> None:
    """About one table in ten starts scoring mid-game: its start event declares the turn and
    holdings (every declared amount citing docs/rules/trickerion.md#joined-in-progress), the next
    turn follows the declared one, and the game folds to final like the others."""
    joined = []
    for seed in range(60):
        log = list(simulate_game("trickerion", seed, 0))
        join = log[0].payload.joined_in_progress
        if join is None:
            continue
        joined.append(seed)
        state = fold(log)
        assert state.status == "final"
        assert {e.rule for e in state.ledger if e.seq == 1} == {
            "docs/rules/trickerion.md#joined-in-progress"
        }
        first_turn = next(e.payload for e in log if e.type == "game.turn_started")
        assert first_turn.turn == join.turn + 1
    assert 2 <= len(joined) <= 15
