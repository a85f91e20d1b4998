"""The flat-cost fold (docs/decisions/0012-hot-reads-and-off-loop-replays.md): a `Folder` and `evolve` over shared append-only lists give
exactly what a fold from scratch gives; a void refolded from the nearest mark equals a refold
from the start at any mark spacing; handed-out states never change; two writers continuing
the same state do not see each other; a 50,000-event game folds in one pass.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import domain.fold
from contracts.envelope import Envelope
from contracts.events import parse_event_json
from domain.errors import RuleViolation
from domain.fold import Folder, GameState, _refold, evolve, fold
from domain.standings import score_entries, standings, standings_json
from services.bench.fold_cost import long_game
from tests.domain.referee import referee_event
from tests.domain.test_fold_properties_simulated import _log, games

PROPERTY = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _sums(state: GameState) -> dict[str, int]:
    out = {p.player_id: 0 for p in state.players}
    for e in score_entries(state):
        out[e.player_id] += e.amount
    return out


@PROPERTY
@given(games, st.sampled_from([1, 2, 3, 7, 64]))
def test_a_void_refolded_from_the_nearest_mark_equals_a_refold_from_the_start(
    game: tuple[str, int, list[tuple[int, int, int]]], every: int
) -> None:
    log = _log(game)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(domain.fold, "MARK_EVERY", every)
        folder: Folder[object] = Folder()
        for event in log:
            folder.add(event)
        live = folder.state
    reference = _refold(live.history, live.voided)
    assert live.ledger == reference.ledger
    assert standings(live) == standings(reference)
    assert dict(live.totals) == _sums(live) == dict(reference.totals)


@PROPERTY
@given(games)
def test_the_running_sums_equal_the_ledger_at_every_seq(
    game: tuple[str, int, list[tuple[int, int, int]]],
) -> None:
    state = None
    for event in _log(game):
        state = evolve(state, event)
        assert dict(state.totals) == _sums(state)
        for pid, cats in state.breakdown.items():
            assert sum(cats.values()) == state.totals[pid]


def test_a_handed_out_state_never_changes_and_two_writers_do_not_meet() -> None:
    log = _log(("trickerion", 3, []))
    middle = len(log) // 2
    base = fold(log, upto_seq=middle)
    frozen = (len(base.ledger), base.ledger[:], standings(base).model_dump())
    # Writer A continues the log; writer B continues the same state with a correction.
    a = base
    for event in log[middle:]:
        a = evolve(a, event)
    correction = referee_event(
        base,
        "game.score_corrected",
        {"player_id": base.players[0].player_id, "amount": 3, "reason": "r", "referee": "ref"},
    )
    b = evolve(base, correction)
    assert (len(base.ledger), base.ledger[:], standings(base).model_dump()) == frozen
    assert standings(a) == standings(fold(log))
    assert standings(b) == standings(fold([*log[:middle], correction]))
    assert b.totals[base.players[0].player_id] == base.totals[base.players[0].player_id] + 3
    # B's history does not hold A's events, A's does not hold B's correction.
    assert b.seq_of(log[middle].event_id) is None
    assert a.seq_of(correction.event_id) is None


def test_a_refused_void_leaves_the_folder_unchanged() -> None:
    log = _log(("penumbra", 11, []))
    folder: Folder[object] = Folder()
    for event in log:
        folder.add(event)
    before = folder.state
    void = referee_event(
        before,
        "game.event_voided",
        {"voided_event_id": str(log[0].event_id), "reason": "r", "referee": "ref"},
    )
    with pytest.raises(RuleViolation) as refused:
        folder.add(void)
    assert refused.value.rule == "void.game_started"
    assert folder.state is before


def test_standings_json_is_the_standings_rendered_once() -> None:
    state = fold(_log(("penumbra", 5, [])))
    data = standings_json(state)
    assert data is standings_json(state)
    assert json.loads(data) == json.loads(standings(state).model_dump_json())
    assert json.loads(data)["score_unit_label"] == {"en": "VP", "ru": "ПО"}


def test_a_50000_event_game_folds_in_one_pass() -> None:
    lines = long_game(50_000)
    events: list[Envelope] = [parse_event_json(line) for line in lines]
    state = fold(events)
    assert state.seq == 50_000
    assert state.status == "final"
    assert len(state.history) == 50_000
    # The padding is Coins +1/-1 pairs: the game scores as the simulated game it was made from.
    short = fold([parse_event_json(line) for line in long_game(0)])
    assert [(p.player_id, p.total, p.categories) for p in standings(state).players] == [
        (p.player_id, p.total, p.categories) for p in standings(short).players
    ]
    assert dict(state.totals) == _sums(state)
    coins = {p.player_id: 0 for p in state.players}
    for e in state.ledger:
        if e.resource == "coins":
            coins[e.player_id] += e.amount
    # Expected: the short game's Coins plus the pads' own changes (an odd pad count leaves one +1).
    padded = {p.player_id: 0 for p in short.players}
    for event in events:
        if event.type == "trickerion.resources_changed" and event.seq >= len(short.history):
            padded[event.payload.player_id] += event.payload.coins  # type: ignore[attr-defined]
    assert coins == {
        p.player_id: padded[p.player_id]
        + sum(
            e.amount for e in short.ledger if e.resource == "coins" and e.player_id == p.player_id
        )
        for p in short.players
    }


def test_each_writer_finds_its_own_event_ids_after_another_continued_the_state() -> None:
    """The event-id index is read from the history on first use (domain.eventids): writers
    continuing one state, one of them voiding, each find every event of its own history at
    its seq, and none of the others'."""
    log = _log(("trickerion", 3, []))
    middle = len(log) // 2
    base = fold(log, upto_seq=middle)
    a = base
    for event in log[middle:]:
        a = evolve(a, event)
    pid = base.players[0].player_id
    correction = referee_event(
        base,
        "game.score_corrected",
        {"player_id": pid, "amount": 3, "reason": "r", "referee": "ref"},
    )
    b = evolve(base, correction)
    void = referee_event(
        b,
        "game.event_voided",
        {"voided_event_id": str(log[middle - 1].event_id), "reason": "r", "referee": "ref"},
    )
    c = evolve(b, void)
    for state, events in (
        (a, log),
        (b, [*log[:middle], correction]),
        (c, [*log[:middle], correction, void]),
        (base, log[:middle]),
    ):
        assert [state.seq_of(e.event_id) for e in events] == [e.seq for e in events]
        found = {i: seq for i, seq in state.ids.items() if state.seq_of(i) == seq}
        assert found == {e.event_id: e.seq for e in events}
    assert base.seq_of(correction.event_id) is None
    assert c.seq_of(log[middle].event_id) is None
    assert a.seq_of(void.event_id) is None


@PROPERTY
@given(games, st.data())
def test_handed_out_states_never_change_while_the_folder_writes_its_rules_in_place(
    game: tuple[str, int, list[tuple[int, int, int]]], data: st.DataObject
) -> None:
    """A folder lets a ruleset write its rules state in place between hand-outs (Trickerion:
    `Ruleset.apply`'s owned states): every state it handed out, and a second writer's state
    continued from one, still equals a fold to its seq after both went on and the ruleset was
    applied to its rules directly; so do the marks."""
    log = _log(game)
    at = set(data.draw(st.lists(st.integers(1, len(log)), max_size=6)))
    folder: Folder[object] = Folder()
    handed: list[GameState] = []
    for event in log:
        folder.add(event)
        if event.seq in at:
            handed.append(folder.state)
            if event.seq < len(log):  # a second writer continues the same state
                handed.append(evolve(handed[-1], log[event.seq]))
    handed.append(folder.state)
    for state in handed:  # a direct caller of `apply`, twice on the same rules
        for event in log[state.seq : state.seq + 1] * 2:
            with contextlib.suppress(RuleViolation):  # not the ruleset's event
                state.ruleset.apply(state.rules, event)
    for state in handed:
        assert state.rules == fold(log, upto_seq=state.seq).rules
        if not state.voided:  # a void's refold makes marks of a log without the voided event
            assert all(m.rules == fold(log, upto_seq=m.seq).rules for m in state.marks)


def test_a_refused_event_leaves_the_folders_own_rules_state_unchanged() -> None:
    """A Trickerion event refused after some of its changes were counted (Fame first, then
    Shards it cannot pay) leaves the folder's rules state, written in place, as it was."""
    log = _log(("trickerion", 5, []))
    middle = len(log) // 2
    folder: Folder[object] = Folder()
    for event in log[:middle]:
        folder.add(event)
    expected = fold(log, upto_seq=middle)
    pid = expected.players[0].player_id
    shards = expected.rules.books[pid].shards
    bad = referee_event(
        expected,
        "trickerion.resources_changed",
        {"player_id": pid, "fame": 5, "coins": 0, "shards": -shards - 1, "reason": "other"},
    )
    with pytest.raises(RuleViolation) as refused:
        folder.add(bad)
    assert refused.value.rule == "trickerion.shards.insufficient"
    assert folder.rules == expected.rules
    for event in log[middle:]:
        folder.add(event)
    assert folder.state.rules == fold(log).rules
    assert standings(folder.state) == standings(fold(log))


@pytest.mark.parametrize("game", ["trickerion", "penumbra"])
def test_a_folder_resumed_for_a_run_owns_its_rules_from_the_first_event(game: str) -> None:
    """`Folder.resume(state, run=True)` (a batch, `usecases.plan`): the rules state is the
    folder's own from the run's first event, the state it resumed from never changes, and the
    result equals the fold of the whole log."""
    log = _log((game, 4, []))
    middle = len(log) // 2
    base = fold(log, upto_seq=middle)
    before = (base.rules, base.ledger[:], standings(base).model_dump())
    folder = Folder.resume(base, run=True)
    folder.add(log[middle])
    if game == "trickerion":  # the ruleset that offers an owned state
        assert folder._rules_owned
    assert folder.rules is not base.rules or not folder._rules_owned
    for event in log[middle + 1 :]:
        folder.add(event)
    assert (base.rules, base.ledger[:], standings(base).model_dump()) == before
    assert base.rules == fold(log, upto_seq=middle).rules
    assert folder.state.rules == fold(log).rules
    assert standings(folder.state) == standings(fold(log))
    one = Folder.resume(base)  # one event between hand-outs (`evolve`): no copy yet
    one.add(log[middle])
    assert not one._rules_owned


@pytest.mark.parametrize("game", ["trickerion", "penumbra"])
def test_a_handed_out_state_is_the_dataclass_it_would_be_built_as(game: str) -> None:
    """`Folder.state` builds the `GameState` from a dict of its own (`values.with_dict`): its
    fields in declared order, equal and with the same repr as the state the dataclass's own
    `__init__` builds from the same values."""
    state = fold(_log((game, 4, [])))
    names = [f.name for f in dataclasses.fields(GameState)]
    assert list(vars(state)) == names
    built = GameState(**{name: getattr(state, name) for name in names})
    assert state == built
    assert repr(state) == repr(built)
