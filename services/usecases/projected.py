"""A game state's projection fields, rendered the one way both writers of a projection use:
the append (`services.usecases.check`, a live game's projection stored with its events) and
the projector (`services.usecases.project`, catch-up, rebuilds, held and forgotten games).
Source: docs/decisions/0004-projector-catch-up-subscription.md (live projection).
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Sequence
from typing import Any

from domain.fold import GameState
from domain.standings_kept import kept_standings, kept_standings_json
from services.ports.eventlog import FeedEntry, LiveProjection
from services.ports.projections import ProjectionHead, Projections
from services.usecases.readmodels.render import view_json


def rendered(state: GameState[Any]) -> tuple[str, bytes]:
    """The standings JSON (text) and the rendered standings view (bytes, without its position
    fields) of `state`, each computed once per state (`GameState.memo`) from the game's kept
    parts (`domain.standings_kept`: what the events since the last render left unchanged)."""
    return kept_standings_json(state).decode(), view_json(kept_standings(state), state.cache)


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


def first_seqs(entries: Iterable[FeedEntry]) -> dict[str, int]:
    """Each game's first seq among `entries` (feed order; games in their first entry's order)."""
    first: dict[str, int] = {}
    for entry in entries:
        first.setdefault(entry.game_id, entry.seq)
    return first


def reaches(head: ProjectionHead, seq: int) -> bool:
    """A stored projection (`head`), stored by an append and not held, is of `seq` or later:
    the projector has nothing to fold for the game up to `seq`."""
    return head.live and head.held is None and head.seq >= seq


async def live_reached(
    projections: Projections, fresh: Sequence[FeedEntry], cached: Container[str] = ()
) -> tuple[set[str], dict[str, ProjectionHead]]:
    """The games of `fresh` (feed entries) whose projection, stored by an append and not held,
    reaches their last entry in it (`reaches`), and the heads as read: one HMGET per game
    whose last entry an append projected (`FeedEntry.live`) or not in `cached` (the caller
    reads those heads anyway). A cached game whose last entry is not live-projected is not
    read: no append projected it, so its stored projection is the projector's own."""
    last = last_seqs(fresh)
    live = {e.game_id for e in fresh if e.live and e.seq == last[e.game_id]}
    wanted = [g for g in last if g in live or g not in cached]
    heads = dict(zip(wanted, await projections.heads(wanted), strict=True)) if wanted else {}
    return {g for g in wanted if reaches(heads[g], last[g])}, heads
