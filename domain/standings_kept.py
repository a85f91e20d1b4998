"""Standings kept current event by event: `kept_standings(state)` equals `standings(state)`
(the full render, the reference) and reuses what the event left unchanged.

What an event changes is read from the state itself, so the answer does not depend on which
state was rendered before (a replay, a void's refold or a fork may hand out any state of the
game): a player's line is kept while its inputs are the same objects (`domain.standings._lines`:
the player's breakdown, which the fold replaces when an entry of that player arrives, and what
the ruleset's provisional part and details read of that player); the places (ranks, winners,
order) are kept while the totals are the same values. Totals without a tie need neither the
ruleset's rank key nor its tie-break (no two players to order), so places are computed here
from the totals alone; a tie (or a solo game) takes the full render. Source:
docs/decisions/0012-hot-reads-and-off-loop-replays.md (incremental standings).
"""

from __future__ import annotations

from functools import partial
from typing import Any

from domain.fold import GameState
from domain.standings import (
    Standings,
    _assembled,
    _lines,
    standings,
    standings_json,
    standings_text,
)

Places = tuple[dict[str, int], tuple[int, ...]]
"""(player id -> rank, the seat indices in rank order) of totals without a tie."""


def kept_standings(state: GameState[Any]) -> Standings:
    """`standings(state)` (the same value; a property test compares them after every event),
    computed from the game's kept parts (`GameState.cache`): O(players) lookups plus the
    lines of the players whose inputs changed. Kept once per state in the slot `standings`
    reads (`GameState.memo`), so `standings` and `standings_json` of this state reuse it."""
    cached = state.memo.get("standings")
    if isinstance(cached, Standings):
        return cached
    players = state.players
    got = state.totals.get
    totals = {p.player_id: got(p.player_id, 0) for p in players}
    values = tuple(totals.values())
    if len(players) < 2 or len(set(values)) < len(values):
        return standings(state)  # a tie is settled by the ruleset's rank key and tie-break
    ranks, order = state.cache.get(("kept.places",), (), partial(_places, totals), (values,))
    lines = _lines(state, ranks, totals)
    first = players[order[0]].player_id
    result = _assembled(state, [lines[i] for i in order], [first], None)
    state.memo["standings"] = result
    return result


def kept_standings_json(state: GameState[Any]) -> bytes:
    """`standings_json(state)` of `kept_standings(state)` (the wire JSON, rendered once per
    state from the players' kept JSON lines)."""
    kept_standings(state)
    return standings_json(state)


def kept_standings_text(state: GameState[Any]) -> str:
    """`standings_text(state)` of `kept_standings(state)` (the wire JSON as text, rendered once
    per state from the players' kept JSON lines)."""
    kept_standings(state)
    return standings_text(state)


def _places(totals: dict[str, int]) -> Places:
    """Ranks 1..n by total, highest first (no two totals equal: each place its own), and the
    seat indices in that order; equal to `domain.ranks.settle_places` for untied totals."""
    values = list(totals.values())
    order = tuple(sorted(range(len(values)), key=values.__getitem__, reverse=True))
    rank_of = {i: place for place, i in enumerate(order, 1)}
    return {pid: rank_of[i] for i, pid in enumerate(totals)}, order
