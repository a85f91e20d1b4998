"""A game state's projection fields, rendered the one way both writers of a projection use:
the append (`services.usecases.check`, a live game's projection stored with its events) and
the projector (`services.usecases.project`, catch-up, rebuilds, held and forgotten games).
Source: docs/decisions/0004-projector-catch-up-subscription.md (live projection).
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Mapping, Sequence
from itertools import compress, groupby, repeat
from operator import attrgetter, eq
from typing import Any

from contracts.names import may_be_start, put_names
from domain.fold import GameState
from domain.standings_kept import kept_standings, kept_standings_text
from services.ports.eventlog import EventLog, FeedEntry, LiveProjection
from services.ports.projections import ProjectionHead, Projections, reaches
from services.usecases.readmodels.render import view_json


def rendered(state: GameState[Any]) -> tuple[str, bytes]:
    """The standings JSON (text) and the rendered standings view (bytes, without its position
    fields) of `state`, each computed once per state (`GameState.memo`) from the game's kept
    parts (`domain.standings_kept`: what the events since the last render left unchanged)."""
    return kept_standings_text(state), view_json(kept_standings(state), state.cache)


def live_projection(state: GameState[Any], updated_at: str, changes_maxlen: int) -> LiveProjection:
    """The projection an append stores with its events: `state` (the checked state after
    the append) rendered, stamped `updated_at` (ISO UTC); its change notice capped near
    `changes_maxlen`."""
    standings_text, view = rendered(state)
    return LiveProjection(
        state.seq, state.status, state.game, standings_text, view, updated_at, changes_maxlen
    )


_game_id, _seq, _live = attrgetter("game_id"), attrgetter("seq"), attrgetter("live")


def last_seqs(entries: Iterable[FeedEntry]) -> dict[str, int]:
    """Each game's highest seq among `entries` (games in their first entry's order)."""
    last: dict[str, int] = {}
    # per run of one game's entries (a catch-up reads a game's events in a row): no Python
    # code runs per entry
    for game_id, run in groupby(entries, _game_id):
        last[game_id] = max(last.get(game_id, 0), *map(_seq, run))
    return last


def live_lasts(entries: Sequence[FeedEntry]) -> dict[str, int] | None:
    """Each game's highest seq among `entries` when an append projected every game's entry of
    that seq (`FeedEntry.live`): the batch the projector need not fold if the heads reach
    them (`Projections.advance`); None when some game's was not, or for no entries."""
    if not any(map(_live, entries)):  # a catch-up: no map built
        return None
    last: dict[str, int] = {}
    live: dict[str, bool] = {}
    for entry in entries:
        game_id, seq = entry.game_id, entry.seq
        if seq > last.get(game_id, 0):
            last[game_id], live[game_id] = seq, entry.live
        elif seq == last[game_id] and entry.live:
            live[game_id] = True
    return last if last and all(live.values()) else None


def first_seqs(entries: Iterable[FeedEntry]) -> dict[str, int]:
    """Each game's first seq among `entries` (feed order; games in their first entry's order)."""
    first: dict[str, int] = {}
    for game_id, run in groupby(entries, _game_id):  # per run of one game's entries
        first.setdefault(game_id, next(run).seq)
    return first


async def live_reached(
    projections: Projections,
    fresh: Sequence[FeedEntry],
    cached: Container[str] = (),
    known: Mapping[str, ProjectionHead] | None = None,
) -> tuple[set[str], dict[str, ProjectionHead]]:
    """The games of `fresh` (feed entries) whose projection, stored by an append and not held,
    reaches their last entry in it (`reaches`), and the heads as read: one HMGET per game
    with an entry an append projected (`FeedEntry.live`) or not in `cached` (the caller
    reads those heads anyway), unless in `known` (heads read already, as `Projections.advance`
    returns them). A cached game with no live-projected entry is not read: no append
    projected it since the projector's own write. A game whose live entry is followed by a
    plain one (a player forgotten between the appends, or a writer with live projection
    off) is read: its stored projection is the append's, past the cached view."""
    last = last_seqs(fresh)
    live = {e.game_id for e in fresh if e.live}
    wanted = [g for g in last if g in live or g not in cached]
    known = known or {}
    unread = [g for g in wanted if g not in known]
    heads = {g: known[g] for g in wanted if g in known}
    if unread:
        heads.update(zip(unread, await projections.heads(unread), strict=True))
    return {g for g in wanted if reaches(heads[g], last[g])}, heads


def start_games(entries: Sequence[FeedEntry]) -> list[str]:
    """The games (each once, in their first entry's order) of `entries` whose entry of seq 1
    may be a start event (`contracts.names.may_be_start`): a game's start is its seq 1
    (`domain.fold.start`), the only event the log puts names back into
    (`usecases.names.NamedEventLog.read_raw`). The seqs are compared in C, and only an entry
    of seq 1 has its JSON searched: searching every entry's was about 3.4k instructions an
    entry of a catch-up (docs/profiles/projector-round-trips.md)."""
    ones = compress(entries, map(eq, map(_seq, entries), repeat(1)))
    return list(dict.fromkeys(e.game_id for e in ones if may_be_start(e.data)))


def named(fresh: list[FeedEntry], names: Mapping[str, Mapping[str, str]]) -> list[FeedEntry]:
    """`fresh` with its start events' names put back (`contracts.names`) into each entry of
    seq 1 that may be one (`start_games`): `names` has the names of those entries' games (a
    game with none kept is read as it is, without a look at its entries)."""
    kept = {game_id: kept for game_id, kept in names.items() if kept}
    if not kept:
        return fresh
    return [
        _with_names(e, kept[e.game_id])
        if e.seq == 1 and e.game_id in kept and may_be_start(e.data)
        else e
        for e in fresh
    ]


def _with_names(entry: FeedEntry, names: Mapping[str, str]) -> FeedEntry:
    """The entry with its start event's names put back (`contracts.names.put_names`)."""
    try:
        data = put_names(entry.data, names)
    except ValueError:  # not an event: folding it letters it as it is
        return entry
    return entry if data is entry.data else entry._replace(data=data)


async def without_sealed(
    log: EventLog,
    fresh: list[FeedEntry],
    cached: Container[str],
    heads: Mapping[str, ProjectionHead],
) -> list[FeedEntry]:
    """`fresh` (feed entries) without those of games sealed into the archive since they were
    fed: not in `cached`, no projection and no hold in `heads` (as `live_reached` read them),
    and no event left in `log` (docs/decisions/0013-archive-cold-tier.md). A live projection
    runs ahead of the checkpoint, so a final game can be sealed while its entries still wait
    in the feed (a projector down or lagging); folded, they would store a projection without
    the names that left with the game, read before the archive's, or hold it at seq 1 (its
    earlier events are gone). One `EventLog.versions` call for the games neither cached nor
    projected; none usually."""
    suspects = [
        g
        for g in dict.fromkeys(map(_game_id, fresh))
        if g not in cached and g in heads and heads[g].seq == 0 and heads[g].held is None
    ]
    if not suspects:
        return fresh
    versions = await log.versions(suspects)
    gone = {g for g, v in zip(suspects, versions, strict=True) if v == 0}
    return [e for e in fresh if e.game_id not in gone] if gone else fresh
