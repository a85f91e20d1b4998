"""Names outside the side logs: the tournament and league logs that take player names out at
append and put them back at read, and what `forget` does to the tournament and the leagues a
game belongs to.

`NamedSideLog` wraps a `SideLog` (tournaments, leagues): a `player_registered`,
`player_joined_late` or league addition is stored with each player's id in place of the name,
the names kept first in `SideNames` (never overwritten); every read puts them back
(`contracts.names.put_side_names`), so standings, pages, live screens and league additions read
the events as posted, and a forgotten player by their pseudonym.

`SideForget` follows a game to where its player is named beside it: the tournament that seated
the game (its first event's actor, checked against the tournament's own record of its tables),
that tournament's other table games seating the player, and every league that added the
tournament or one of those games. A stream written with names inline (before names left it)
has them kept apart and its named events stored again in today's form. Source:
docs/decisions/0014-names-outside-the-log.md (personal data outside the immutable log).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic

from contracts.league import LeagueEnvelope
from contracts.names import (
    judge_key,
    judge_pseudonym,
    pseudonym,
    put_side_names,
    side_field_player,
    side_key_id,
    strip_all,
    strip_side_names,
)
from contracts.tournament import JudgeAppointed, TournamentEnvelope
from domain.league.fold import fold as fold_league
from domain.tournament.fold import fold as fold_tournament
from services.ports.eventlog import AppendResult
from services.ports.names import SideNames
from services.ports.sidelog import E, SideLog

TOURNAMENT_ACTOR = "tournament "
"""The actor of a table game's first event (`tournaments.usecases.tables.ACTOR_PREFIX`)."""


class NamedSideLog(Generic[E]):
    """`SideLog` with player names kept outside the stored events (module docstring).

    Args:
        inner: the side log the events are stored in; names: its kind's kept names.
    """

    def __init__(self, inner: SideLog[E], names: SideNames) -> None:
        self.inner = inner
        self.names = names

    async def append(
        self, stream_id: str, events: Sequence[E], credential: str | None = None
    ) -> AppendResult:
        """See `SideLog.append`; the names the events carry are kept first (by event id, so
        readers of the stored events never miss them), then the events are stored without
        them; a refused append takes back the names it kept, but not those of an event the
        stream holds.

        Two copies of one keyed request share event ids (derived from the key), so a field
        one copy kept may be the one the other copy's stored event reads: a refused copy
        leaves the fields of events the stream holds after its refusal, and a copy that found
        some of its fields kept already keeps them again once its append is stored (`keep`
        never overwrites, nor brings a forgotten name back). What is left open: the other
        copy storing its event between a refused copy's read and its drop, and keeping again
        before that drop."""
        stored, names = strip_all(events, strip_side_names)
        kept = await self.names.keep(stream_id, names) if names else []
        try:
            result = await self.inner.append(stream_id, stored, credential)
        except Exception:
            if kept:
                await self.names.drop(stream_id, await self._unstored(stream_id, kept))
            raise
        if len(kept) < len(names):  # another copy's fields: dropped meanwhile if it was refused
            await self.names.keep(stream_id, names)
        return result

    async def _unstored(self, stream_id: str, fields: Sequence[str]) -> list[str]:
        """The kept-names `fields` (`<event_id>/<player_id>`) whose event the stream does not
        hold (a side stream is short: read whole)."""
        held = {str(getattr(e, "event_id", "")) for e in await self.inner.read(stream_id)}
        return [f for f in fields if f.split("/", 1)[0] not in held]

    async def digest(self, stream_id: str) -> str | None:
        return await self.inner.digest(stream_id)

    async def version(self, stream_id: str) -> int:
        return await self.inner.version(stream_id)

    async def read(self, stream_id: str, from_seq: int = 1, to_seq: int | None = None) -> list[E]:
        """See `SideLog.read`: the events with the kept names (or pseudonyms) put back."""
        events = await self.inner.read(stream_id, from_seq, to_seq)
        if not events:
            return events
        names = await self.names.names(stream_id)
        return [put_side_names(e, names) for e in events] if names else events

    async def streams(self, limit: int) -> list[str]:
        return await self.inner.streams(limit)


async def _hide(
    log: NamedSideLog[Any],
    stream_id: str,
    events: Sequence[Any],
    player_id: str,
    shown: str,
    rewrite: bool = True,
) -> bool:
    """Show `player_id` as `shown` in a side stream (its stored `events` given). A stream
    written with names inline (before names left it) has them kept apart first and (with
    `rewrite`: the operator's `forget`, whose user may rewrite streams) its named events
    stored again in today's form, so the name is in no stored byte. False: nothing changed
    (forgotten before)."""
    inline: dict[str, str] = {}
    data: dict[int, bytes] = {}
    for event in events:
        stored, carried = strip_side_names(event)
        held = {f: name for f, name in carried.items() if name != side_key_id(side_field_player(f))}
        if held:
            inline |= held
            data[event.seq] = stored.model_dump_json().encode()
    if inline:
        await log.names.keep(stream_id, inline)
    changed = await log.names.forget(stream_id, player_id, shown)
    if data and rewrite:
        changed = await log.names.rewrite(stream_id, data) > 0 or changed
    return changed


class NotNamed(LookupError):
    """`forget --tournament`: no such tournament, or it names no such player or judge."""


@dataclass(frozen=True, slots=True)
class SideForgotten:
    """Where `SideForget.forget` hid a player: `tournament` (with the pseudonym shown there;
    None: the game is no tournament's table), the tournament's other table `games` seating
    the player (each to forget as a game), `leagues` (league id, pseudonym), and `changed`."""

    tournament: tuple[str, str] | None
    games: tuple[str, ...]
    leagues: tuple[tuple[str, str], ...]
    changed: bool = False
    """Whether anything beside the games changed (False: all of it was forgotten before)."""
    judge: str | None = None
    """`forget --tournament` of a judge (one appointed there, dismissed or not): the
    pseudonym the judge is shown as now (`judge-<order of appointment>`); None: no judge."""


def appointed_judges(events: Sequence[TournamentEnvelope]) -> list[str]:
    """The judge ids a tournament's stored `events` appointed, in order (dismissed ones too)."""
    out: list[str] = []
    for event in events:
        payload = getattr(event, "payload", None)
        if isinstance(payload, JudgeAppointed) and payload.judge_id not in out:
            out.append(payload.judge_id)
    return out


class SideForget:
    """Forget a game's player in the tournament and the leagues the game belongs to.

    Args:
        tournaments, leagues: the side logs with their kept names (`NamedSideLog`);
        game_names: a game's kept names (`NamedEventLog.names_of`: `player_id -> name`,
            `FORGOTTEN` once forgotten), for a league adding a game (None: not followed).
    """

    def __init__(
        self,
        tournaments: NamedSideLog[TournamentEnvelope],
        leagues: NamedSideLog[LeagueEnvelope],
        game_names: Callable[[str], Awaitable[dict[str, str]]] | None = None,
    ) -> None:
        self.tournaments = tournaments
        self.leagues = leagues
        self.game_names = game_names

    async def forget(self, game_id: str, player_id: str, first: bytes) -> SideForgotten:
        """Hide `player_id` (a player of `game_id`, whose stored first event is `first`) in
        the game's tournament and in every league naming them that added the tournament or
        one of its table games seating them (or, with no tournament, the game). Idempotent.

        Raises: storage errors; RuleViolation (a stored tournament or league that does not
        fold).
        """
        actor = str(json.loads(first).get("actor") or "")
        tournament = None
        games: tuple[str, ...] = ()
        changed = False
        sources = {f"game:{game_id}"}
        if actor.startswith(TOURNAMENT_ACTOR):
            tid = actor.removeprefix(TOURNAMENT_ACTOR)
            found = await self._tournament(tid, game_id, player_id)
            if found is not None:
                tournament, games, changed = found
                sources |= {f"tournament:{tid}", *(f"game:{g}" for g in games)}
        leagues, in_leagues = await self._leagues(player_id, sources)
        return SideForgotten(tournament, games, leagues, changed or in_leagues)

    async def forget_tournament(self, tournament_id: str, player_id: str) -> SideForgotten:
        """Hide `player_id` in tournament `tournament_id` (a registrant who played no game
        too) and in every league naming them that added the tournament or one of its table
        games seating them; `games`: those table games (each to forget as a game). A judge
        the tournament appointed (`judge_appointed`, dismissed since or not) is hidden there
        as `judge-<order of appointment>` (`SideForgotten.judge`); an id that is both a
        player's and a judge's is hidden as both. Idempotent.

        Raises: NotNamed (no such tournament, or it has no such player or judge); storage
        errors.
        """
        events = await self.tournaments.inner.read(tournament_id)
        if not events:
            raise NotNamed(f"no tournament {tournament_id!r}")
        judges = appointed_judges(events)
        is_player = player_id in fold_tournament(events).players
        if not is_player and player_id not in judges:
            raise NotNamed(f"tournament {tournament_id!r} has no player {player_id!r}")
        judge = changed_judge = None
        if player_id in judges:  # a judge is no league's: the tournament alone names them
            judge = judge_pseudonym(judges.index(player_id) + 1)
            key = judge_key(player_id)
            changed_judge = await _hide(self.tournaments, tournament_id, events, key, judge)
        if not is_player:
            return SideForgotten((tournament_id, judge or ""), (), (), bool(changed_judge), judge)
        found = await self._tournament(tournament_id, None, player_id)
        assert found is not None
        tournament, games, changed = found
        sources = {f"tournament:{tournament_id}", *(f"game:{g}" for g in games)}
        leagues, in_leagues = await self._leagues(player_id, sources)
        changed = changed or in_leagues or bool(changed_judge)
        return SideForgotten(tournament, games, leagues, changed, judge)

    async def league_added(self, league_id: str, source: str) -> None:
        """After a league added `source` (`tournament:<id>` or `game:<id>`): hide in the
        league each player forgotten in the source, so an addition that read the source
        before a forget (and the league, not holding it yet, was passed over) keeps no name.
        """
        kind, _, source_id = source.partition(":")
        if kind == "tournament":
            kept = await self.tournaments.names.names(source_id)
            forgotten = {side_field_player(f) for f in kept if f.startswith("!")}
        elif self.game_names is not None:
            forgotten = {p for p, n in (await self.game_names(source_id)).items() if not n}
        else:
            return
        if not forgotten:
            return
        events = await self.leagues.inner.read(league_id)
        state = fold_league(events)
        order = list(state.names)
        for player_id in forgotten & set(order):
            shown = pseudonym(order.index(player_id) + 1)
            # ingest runs this: no stream rewrite (its ACL user has none; `forget` does it)
            await _hide(self.leagues, league_id, events, player_id, shown, rewrite=False)

    async def _tournament(
        self, tournament_id: str, game_id: str | None, player_id: str
    ) -> tuple[tuple[str, str], tuple[str, ...], bool] | None:
        events = await self.tournaments.inner.read(tournament_id)
        if not events:
            return None
        state = fold_tournament(events)
        tables = [t for r in state.rounds for t in r.tables.values()]
        registrant = state.players.get(player_id)
        if registrant is None:
            return None
        if game_id is not None and all(t.game_id != game_id for t in tables):
            return None  # not this tournament's table game
        shown = pseudonym(registrant.order + 1)
        changed = await _hide(self.tournaments, tournament_id, events, player_id, shown)
        # the tables as they are after the hide: a round seated since the read above was
        # read by its opening before the hide, names put back (docs/forget.md)
        now = fold_tournament(await self.tournaments.inner.read(tournament_id))
        others = tuple(
            t.game_id
            for r in now.rounds
            for t in r.tables.values()
            if t.game_id is not None and t.game_id != game_id and player_id in t.players
        )
        return (tournament_id, shown), others, changed

    async def _leagues(
        self, player_id: str, sources: set[str]
    ) -> tuple[tuple[tuple[str, str], ...], bool]:
        # Every league that keeps names; whether it names the player is read from its fold
        # (a league written partly before names left it keeps none for an early addition).
        out: list[tuple[str, str]] = []
        changed = False
        for league_id in await self.leagues.names.streams():
            events = await self.leagues.inner.read(league_id)
            if not events:
                continue
            state = fold_league(events)
            if player_id not in state.names or not sources & set(state.additions):
                continue
            shown = pseudonym(list(state.names).index(player_id) + 1)
            changed = await _hide(self.leagues, league_id, events, player_id, shown) or changed
            out.append((league_id, shown))
        return tuple(out), changed


__all__ = ["NamedSideLog", "NotNamed", "SideForget", "SideForgotten"]
