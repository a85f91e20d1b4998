"""The standings of a player who gains a Level 3 trick late (after many changes of Coins and
Shards with no scored card: the card lines' memo is skipped for them) equal the standings
from nothing after every event: the incremental render (`standings_text`, one chain of
states) and the kept one (`kept_standings_text`, another chain), through the trick's void
and its second learning, the declared inventory, the end and the end's void (the game
reopens). Both modules' end-game lines (Dark Alley; Academy when drawn) are in play."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.fold import GameState, evolve
from domain.standings import standings, standings_text
from domain.standings_kept import kept_standings_text
from tests.domain.test_standings_incremental import cold
from tests.domain.trickerion.builders import TrickerionGame

LEVEL3 = ("T09", "T10", "T11", "T22", "T24", "T35", "T36", "T46", "T47", "T48")
STEPS = st.lists(st.tuples(st.integers(-4, 30), st.integers(0, 12)), min_size=1, max_size=6)


def _assert_every_state_equals_from_nothing(g: TrickerionGame) -> int:
    """Fold `g`'s events twice, event by event (one chain rendered in full, one kept), and
    compare each state's text with the same state's render from nothing. Returns the count."""
    full: GameState[Any] | None = None
    kept: GameState[Any] | None = None
    for event in g.events:
        full, kept = evolve(full, event), evolve(kept, event)
        expected = standings(cold(full)).model_dump_json()
        assert standings_text(full) == expected, f"full render, seq {full.seq}"
        assert kept_standings_text(kept) == expected, f"kept render, seq {kept.seq}"
    return len(g.events)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    trick=st.sampled_from(LEVEL3),
    before=STEPS,
    after=STEPS,
    academy=st.booleans(),
    void_learn=st.booleans(),
    relearn=st.booleans(),
    components=st.booleans(),
    markers=st.integers(0, 1),
)
def test_a_level3_trick_learned_late_keeps_every_render_equal_to_the_one_from_nothing(
    trick: str,
    before: list[tuple[int, int]],
    after: list[tuple[int, int]],
    academy: bool,
    void_learn: bool,
    relearn: bool,
    components: bool,
    markers: int,
) -> None:
    g = TrickerionGame(["ann", "ben"], dark_alley=True, academy=academy, negative_coins="allow")
    g.turn()
    for coins, shards in before:  # no Level 3 card yet: no card lines to keep
        g.reach("ann", coins=coins, shards=shards)
        g.reach("ben", coins=shards, shards=coins % 5)
    g.to_turn(4)
    learned = g.learn("ann", trick)
    for coins, shards in after:
        g.reach("ann", coins=coins, shards=shards)
    owned = True
    if void_learn:
        g.void(learned)
        owned = False
        g.reach("ann", coins=after[0][0] + 1)
        if relearn:
            g.learn("ann", trick)
            owned = True
    g.to_final_turn()
    rows = ((trick, components, markers),) if owned else ()
    g.declare("ann", rows, academy_banners=2 if academy else 0)
    g.declare("ben", academy_banners=1 if academy else 0)
    ended = g.end()
    g.void(ended, reopens_game=True)
    g.reach("ann", coins=7)
    g.end()
    count = _assert_every_state_equals_from_nothing(g)
    print(f"{trick}: {count} events, both renders equal the render from nothing after each")
