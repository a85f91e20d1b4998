"""A game state's projection fields, rendered the one way both writers of a projection use:
the append (`services.usecases.check`, a live game's projection stored with its events) and
the projector (`services.usecases.project`, catch-up, rebuilds, held and forgotten games).
Source: docs/decisions/0004-projector-catch-up-subscription.md (live projection).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from domain.fold import GameState
from domain.standings import standings, standings_json
from services.ports.eventlog import FeedEntry, LiveProjection
from services.ports.projections import ProjectionHead, Projections
from services.usecases.readmodels.render import view_json


def rendered(state: GameState[Any]) -> tuple[str, bytes]:
    """The standings JSON (text) and the rendered standings view (bytes, without its position
    fields) of `state`, each computed once per state (`GameState.memo`)."""
    return standings_json(state).decode(), view_json(standings(state), state.cache)


def live_projection(state: GameState[Any], updated_at: str, changes_maxlen: int) -> LiveProjection:
    """The projection an append stores with its events: `state` (the checked state after
    the append) rendered, stamped `updated_at` (ISO UTC); its change notice capped near
    `changes_maxlen`."""
    standings_text, view = rendered(state)
    return LiveProjection(
        state.seq, state.status, state.game, standings_text, view, updated_at, changes_maxlen
    )


def last_seqs(entries: Iterable[FeedEntry]) -> dict[str, int]:
    """Each game's highest seq among `entries` (games in their first entry's order)."""
    last: dict[str, int] = {}
    for entry in entries:
        last[entry.game_id] = max(last.get(entry.game_id, 0), entry.seq)
    return last


def reaches(head: ProjectionHead, seq: int) -> bool:
    """A stored projection (`head`), stored by an append and not held, is of `seq` or later:
    the projector has nothing to fold for the game up to `seq`."""
    return head.live and head.held is None and head.seq >= seq


async def live_reached(
    projections: Projections, fresh: Sequence[FeedEntry]
) -> tuple[set[str], dict[str, ProjectionHead]]:
    """The games of `fresh` (feed entries) whose projection, stored by an append and not held,
    reaches their last entry in it (`reaches`), and every game's head as read (one HMGET per
    game of `fresh`)."""
    last = last_seqs(fresh)
    heads = dict(zip(last, await projections.heads(list(last)), strict=True))
    return {g for g, n in last.items() if reaches(heads[g], n)}, heads
