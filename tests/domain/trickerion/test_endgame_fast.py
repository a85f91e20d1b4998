"""The end-game lines' cheaper paths equal the general ones they replace
(docs/profiles/fold-event-cost.md, "The standings render"): `holdings` before an inventory
built by position equals the named tuple built by keyword; `character_lines` counts as
`counters` does; the base game's lines kept across a trick or hire (`endlines._relined`)
equal the lines from nothing (tests/domain/test_endlines_kept.py checks every event)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from contracts.trickerion import TrickerionOptions
from domain.fold import GameState, evolve
from domain.trickerion import categories as r
from domain.trickerion.endgame import (
    EndLine,
    Holdings,
    _assumed_eligible,
    _cap,
    character_lines,
    counters,
    holdings,
)
from domain.trickerion.holdings_check import hired_apprentices
from domain.trickerion.state import TrickerionState
from services.simulator.tables import simulate_game


def keyword_holdings(state: TrickerionState, player_id: str) -> Holdings:
    """`holdings` before an inventory as it was written before (by keyword)."""
    book = state.book(player_id)
    hires = book.hires
    levels = tuple(state.card(t).level for t in book.tricks)
    return Holdings(
        extra=state.extra_tricks,
        coins=book.coins,
        shards=book.shards,
        owned_levels=levels,
        level3=tuple(
            _assumed_eligible(t) for t, level in zip(book.tricks, levels, strict=True) if level == 3
        ),
        apprentices=hired_apprentices(hires),
        specialists=tuple(h for h in ("assistant", "manager", "engineer") if h in hires),
        protege="protege" in hires,
        arcane_workers=tuple(
            h for h in hires if h in ("specter", "golem", "trickster", "shapeshifter")
        ),
    )


def counted_lines(h: Holdings, opts: TrickerionOptions, shape: str | None) -> list[EndLine]:
    """The base game's two character lines as `regular_lines` wrote them from `counters`."""
    counts = counters(h, opts, shape)
    cap = opts.category_cap
    specialists = counts["assistant"] + counts["manager"] + counts["engineer"]
    if opts.protege_counts_as_specialist and h.protege:
        specialists += 1
    app, app_note = _cap(
        2 * counts["apprentices"], cap, f"{counts['apprentices']} Apprentices: 2 each"
    )
    spec, spec_note = _cap(3 * specialists, cap, f"{specialists} Specialists: 3 each")
    return [
        EndLine("apprentices", app, r.BASE_GAME, app_note),
        EndLine("specialists", spec, r.BASE_GAME, spec_note),
    ]


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_holdings_by_position_equal_holdings_by_keyword(seed: int) -> None:
    state: GameState[Any] | None = None
    seen = 0
    for event in simulate_game("trickerion", seed, 0):
        state = evolve(state, event)
        rules = state.rules
        for pid in rules.books:
            if rules.inventories.get(pid) is None:
                got, want = holdings(rules, pid), keyword_holdings(rules, pid)
                assert got == want
                assert type(got) is Holdings
                seen += 1
    assert seen


WORKERS = st.sampled_from(["specter", "golem", "trickster", "shapeshifter"])
KINDS = st.sampled_from(["assistant", "manager", "engineer"])


@settings(max_examples=300, deadline=None)
@given(
    apprentices=st.integers(0, 12),
    workers=st.lists(WORKERS, max_size=4).map(tuple),
    specialists=st.lists(KINDS, max_size=3, unique=True).map(tuple),
    protege=st.booleans(),
    shape=st.sampled_from([None, "apprentice", "assistant", "manager", "engineer"]),
    counts_protege=st.booleans(),
    cap=st.integers(1, 30),
)
def test_character_lines_count_as_counters_does(
    apprentices: int,
    workers: tuple[str, ...],
    specialists: tuple[str, ...],
    protege: bool,
    shape: str | None,
    counts_protege: bool,
    cap: int,
) -> None:
    h = Holdings(
        coins=3,
        shards=1,
        owned_levels=(),
        level3=(),
        apprentices=apprentices,
        specialists=specialists,
        protege=protege,
        arcane_workers=workers,
    )
    opts = TrickerionOptions(protege_counts_as_specialist=counts_protege, category_cap=cap)
    assert character_lines(h, opts, shape) == counted_lines(h, opts, shape)
