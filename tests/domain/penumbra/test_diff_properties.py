"""Properties of Penumbra's ledger diff (domain/penumbra/diff.py) over logs out of the
simulator's habits: every option variant, 1-4 players, voids of any earlier event (refolds from
a mark, the memo then holding tableaux of the abandoned branch), corrections in any category,
games joined in progress.

After every accepted event: the entries the fold wrote for an in-play event are the diff of
every category of every tableau computed the slow way (no memo); the VP ledger, corrections
left out, summed per category is that category of the state (docs/rules/penumbra.md#categories);
the ARCANA ledger sums to the supply. At the end: every handed-out state is as it was handed
out, and the live fold equals a fold from scratch.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contracts.common import EventVoided, ScoreCorrected
from contracts.penumbra import PenumbraGameStarted, PenumbraOptions
from domain.errors import RuleViolation
from domain.fold import Folder, GameState, fold
from domain.ledger import LedgerEntry, Resource
from domain.penumbra.categories import RULE_LINE, category_vp
from domain.penumbra.ruleset import HANDLERS
from domain.penumbra.state import PenumbraState
from domain.standings import standings_text
from tests.domain.penumbra.builders import PenumbraGame

PLAYERS = ["ada", "bea", "cy", "dov"]
KINDS = [f"XP{i}" for i in range(1, 7)]
CATEGORY_KEYS = [*RULE_LINE, "correction"]

options = st.builds(
    PenumbraOptions,
    six_plus_identical=st.sampled_from(["cap", "extrapolate", "chunk"]),
    reserved_contract_penalty=st.sampled_from(["per_contract", "once"]),
    arcana_cap=st.sampled_from([1, 5, 12, 99]),
    tie_break=st.sampled_from(["shared", "fewer_wounds_then_arcana"]),
    tie_break_ranks=st.sampled_from(["shared", "ordered"]),
    xp_on_unfulfilled=st.booleans(),
    contract_reservation_required=st.booleans(),
)
who = st.integers(0, 8)  # a seat (`_seat`), or 8: zed, who is not seated (refused)
card = st.sampled_from(["a", "b", "c", "d"])
vp = st.integers(-5, 9)
fate = st.integers(0, 4)
xp = st.dictionaries(st.sampled_from(KINDS), st.integers(0, 12), max_size=6)


def _seat(g: PenumbraGame, i: int) -> str:
    return "zed" if i == 8 else g.players[i % len(g.players)]


Step = Callable[[PenumbraGame], object]
steps: st.SearchStrategy[Step] = st.one_of(
    st.builds(lambda p, n: lambda g: g.arcana_gained(_seat(g, p), n), who, st.integers(1, 14)),
    st.builds(lambda p, n: lambda g: g.arcana_spent(_seat(g, p), n), who, st.integers(1, 5)),
    st.builds(lambda p, c: lambda g: g.trial_reserved(_seat(g, p), c), who, card),
    st.builds(lambda p, c: lambda g: g.trial_reservation_cleared(_seat(g, p), c), who, card),
    st.builds(
        lambda p, c, v, x, li, d: lambda g: g.trial_completed(_seat(g, p), c, v, x, li, d),
        *(who, card, vp, xp, fate, fate),
    ),
    st.builds(
        lambda p, c, v, x, li, d: lambda g: g.contract_reserved(_seat(g, p), c, v, x, li, d),
        *(who, card, vp, xp, fate, fate),
    ),
    st.builds(
        lambda p, c, v, x, li, d: lambda g: g.contract_fulfilled(_seat(g, p), c, v, x, li, d),
        *(who, card, vp, xp, fate, fate),
    ),
    st.builds(lambda p, c: lambda g: g.contract_reservation_removed(_seat(g, p), c), who, card),
    st.builds(lambda p, c, x: lambda g: g.tome_gained(_seat(g, p), c, x), who, card, xp),
    st.builds(lambda p, c: lambda g: g.tome_lost(_seat(g, p), c), who, card),
    st.builds(lambda p, c: lambda g: g.mortal_wound_taken(_seat(g, p), c), who, card),
    st.builds(lambda p, c: lambda g: g.mortal_wound_removed(_seat(g, p), c), who, card),
    st.builds(
        lambda p, c, v, s: lambda g: g.mark_placed(_seat(g, p), c, v, s),
        *(who, card, st.integers(0, 8), st.booleans()),
    ),
    st.builds(lambda p, c: lambda g: g.mark_removed(_seat(g, p), c), who, card),
    st.builds(
        lambda p, c, v: lambda g: g.goal_scored(_seat(g, p), c, v), who, card, st.integers(0, 9)
    ),
    st.builds(lambda p, c: lambda g: g.goal_revoked(_seat(g, p), c), who, card),
    st.builds(
        lambda p, n, k: lambda g: g.corrected(_seat(g, p), n, k),
        *(who, st.integers(-9, 9), st.sampled_from(CATEGORY_KEYS)),
    ),
    st.builds(lambda n: lambda g: g.turn(n), st.integers(1, 30)),
)
# a void of the accepted event this far back (0: the latest), or a step
plan_items = st.one_of(st.integers(0, 40).map(lambda back: ("void", back)), steps)


def declared(pid: str) -> st.SearchStrategy[dict[str, Any]]:
    """One player's standing declared on joining in progress (contracts.penumbra.WizardNow)."""
    contract = st.fixed_dictionaries(
        {"contract_id": card, "vp": vp, "xp": xp, "light": fate, "dark": fate}
    )
    return st.fixed_dictionaries(
        {
            "player_id": st.just(pid),
            "vp": st.integers(-20, 60),
            "arcana": st.integers(0, 12),
            "xp": xp,
            "light": fate,
            "dark": fate,
            "reserved_contracts": st.lists(contract, max_size=2),
            "mortal_wounds": st.lists(card, max_size=2, unique=True),
        }
    )


def _join(g: PenumbraGame, players: list[dict[str, Any]]) -> None:
    """`g`'s start, joined in progress in round 3 with the `players` declared."""
    start = g.events[0].payload.model_dump()
    start["joined_in_progress"] = {"turn": 3, "players": players}
    payload = PenumbraGameStarted.model_validate(start)
    g.events[0] = g.events[0].model_copy(update={"payload": payload})


def _reference(old: PenumbraState, new: PenumbraState, event: Any) -> list[LedgerEntry]:
    """One event's entries the slow way: every category of every tableau, no memo, built by
    `LedgerEntry` itself; ARCANA entry then Arcana VP, then the other categories per player."""
    entries: list[LedgerEntry] = []
    arcana_rule = RULE_LINE["arcana"]

    def entry(pid: str, resource: Resource, key: str, amount: int, note: str) -> None:
        rule = RULE_LINE[key]
        entries.append(
            LedgerEntry(event.event_id, event.seq, pid, resource, key, amount, rule, note)
        )

    for pid in new.seats:
        before, after = old.tableaux[pid], new.tableaux[pid]
        lost = after.arcana_lost - before.arcana_lost
        if after.arcana != before.arcana or lost:
            note = f"supply {before.arcana} -> {after.arcana}"
            note += f", {lost} lost over the cap ({arcana_rule})" if lost else ""
            entry(pid, Resource.ARCANA, "arcana", after.arcana - before.arcana, note)
        was, now = category_vp(before, old.options), category_vp(after, new.options)
        for key, value in now.items():
            if value != was[key]:
                entry(pid, Resource.VP, key, value - was[key], f"{key} {was[key]} -> {value} VP")
    return entries


def _fingerprint(state: GameState) -> tuple[object, ...]:
    """What a handed-out state shows: ledger, sums, rules (with every tableau), standings."""
    return (
        list(state.ledger),
        dict(state.totals),
        {pid: dict(cats) for pid, cats in state.breakdown.items()},
        repr(state.rules),
        state.rules,
        state.voided,
        standings_text(state),
    )


def _check_categories(state: GameState, corrections: set[object]) -> None:
    vp, arcana = Counter[tuple[str, str]](), Counter[str]()
    for e in state.ledger:
        if e.event_id in corrections:
            continue
        if e.resource is Resource.VP:
            vp[(e.player_id, e.category)] += e.amount
        else:
            arcana[e.player_id] += e.amount
    rules = state.rules
    for pid, tableau in rules.tableaux.items():
        for key, value in category_vp(tableau, rules.options).items():
            assert vp[(pid, key)] == value, (pid, key)
        assert arcana[pid] == tableau.arcana


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 4), options, st.lists(plan_items, min_size=5, max_size=90), st.data())
def test_every_entry_is_the_slow_diff_and_handed_out_states_stay(
    n: int, opts: PenumbraOptions, plan: list[Any], data: st.DataObject
) -> None:
    g = PenumbraGame(PLAYERS[:n], opts)
    folder: Folder[PenumbraState] = Folder()
    if data.draw(st.booleans(), label="joined in progress"):
        _join(g, [data.draw(declared(pid), label=pid) for pid in g.players])
    try:  # a join may declare a card twice, or Arcana over the cap: then a plain start
        folder.add(g.events[0])
    except RuleViolation:
        g.events[0] = PenumbraGame(PLAYERS[:n], opts).events[0]
        folder.add(g.events[0])
    _check_categories(folder.state, set())
    accepted = [g.events[0]]
    corrections: set[object] = set()
    handed: list[tuple[GameState, tuple[object, ...]]] = []
    for item in plan:
        if isinstance(item, tuple):  # a void (of the start when nothing else: refused)
            g.voided(accepted[max(1, len(accepted) - 1 - item[1]) % len(accepted)])
        else:
            item(g)
        event = g.events[-1]
        before = folder.state
        try:
            folder.add(event)
        except RuleViolation:
            g.events.pop()
            assert folder.state is before  # a refused event changes nothing
            continue
        accepted.append(event)
        state = folder.state
        payload = event.payload
        if isinstance(payload, ScoreCorrected):
            corrections.add(event.event_id)
        elif isinstance(payload, EventVoided):
            corrections.discard(payload.voided_event_id)
        elif type(payload) in HANDLERS:
            written = list(state.ledger[len(before.ledger) :])
            assert written == _reference(before.rules, state.rules, event)
        _check_categories(state, corrections)
        if data.draw(st.booleans(), label="hand out"):
            handed.append((state, _fingerprint(state)))
    for state, seen in handed:
        assert _fingerprint(state) == seen
    live, scratch = folder.state, fold(g.events)
    assert _fingerprint(live) == _fingerprint(scratch)
