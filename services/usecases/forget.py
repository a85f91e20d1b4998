"""The `forget` use case (`scoreledger forget GAME PLAYER`): a player's name replaced by its
pseudonym in every tier that holds it (the hot names, the archive's copy, the kept webhook
bodies); the log itself is never rewritten but for a start event written with names inline,
stored again in today's form. Source: docs/decisions/0014-names-outside-the-log.md.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from contracts.names import FORGOTTEN, pseudonym, start_players
from services.archive.ports.cold import Archive, SealedGame, checksum_of
from services.archive.ports.hot import HotGames
from services.archive.usecases.seal import LOCK_TTL_MS
from services.ports.deadletters import DeadLetters
from services.ports.eventlog import EventLog
from services.ports.names import PlayerNames, Scrub
from services.usecases.forget_renders import (
    archive_change,
    archived_projection,
    hot_change,
    rendered,
    replacements,
    restored,
    scrubbed,
)
from services.usecases.side_names import NotNamed, SideForget, SideForgotten
from services.webhooks.ports import WebhookStore


class UnknownGame(LookupError):
    """`forget`: no event of the game in either tier."""


class UnknownPlayer(LookupError):
    """`forget`: the game's start event seats no such player."""


class GameBusy(RuntimeError):
    """`forget`: the game's tier lock stayed held (a seal) past the wait; nothing changed."""


@dataclass(frozen=True, slots=True)
class TierChange:
    """What a forget did in one tier (`hot`, `archive`, `webhooks`, `letters`: the dead
    letters): `changed` False when the
    tier held the player forgotten already; `what` in words."""

    tier: str
    changed: bool
    what: str


@dataclass(frozen=True, slots=True)
class Forgotten:
    """What `Forget.forget` did: the pseudonym shown from now on, the tiers it went to (`hot`,
    `archive`, `webhooks`: the deliveries kept for replay), and whether the player was forgotten already (nothing more to hide); beside
    the game (`side`, None: no tournaments or leagues kept apart): the tournament, its other
    table games (each forgotten as this one) and the leagues where the player is hidden now.
    `changes`: per tier the game is in (`hot`, `archive`; `webhooks` when a body changed,
    `letters` when a dead letter changed),
    whether and what changed there (`scoreledger forget` prints them)."""

    game_id: str
    player_id: str
    pseudonym: str
    tiers: tuple[str, ...]
    already: bool
    side: SideForgotten | None = None
    changes: tuple[TierChange, ...] = ()


@dataclass(eq=False, slots=True)
class Forget:
    """Forget a player of a game in both tiers (`scoreledger forget`, an operator's command),
    and beside it: the game's tournament, its other table games seating the player, and the
    leagues that added them (`side`).

    Args:
        hot: the hot tier's event log (stored bytes, names not put back); names: its names;
        archive: the archive (None: none); clock: stamps the archived copy's `archived_at`
        (a changed entry is how every process's archive cache sees the new names); side: the
        tournaments and leagues with names kept apart (None: the game alone); tiers: whose
        tier lock a game's forget holds, so that sealing never runs between its reads and
        writes of the two tiers (None: no sealing to exclude); lock_wait_s: how long to wait
        for a seal to let the lock go (seconds); webhooks: the deliveries kept for replay
        (their bodies scrubbed of the name; None: none kept); letters: the dead letters (the
        raw of the game's letters scrubbed of the name; None: none kept).
    """

    hot: EventLog
    names: PlayerNames
    archive: Archive | None = None
    clock: Callable[[], datetime] = lambda: datetime.now(UTC)
    side: SideForget | None = None
    tiers: HotGames | None = None
    lock_wait_s: float = 30.0
    webhooks: WebhookStore | None = None
    letters: DeadLetters | None = None

    async def forget(self, game_id: str, player_id: str) -> Forgotten:
        """Mark `player_id` forgotten and replace their name by `player-<seat>` in the game's
        stored projection, in Redis if the game is there and in the archive if it is there;
        then in the game's tournament (`player-<registration order>`), the tournament's other
        table games seating the player (as this one), and every league that added one of them
        (`player-<order in the league>`). Idempotent. Scores, ranks and what the logs' events
        say are unchanged (a log written with names inline is stored again without them).

        Raises: UnknownGame, UnknownPlayer, GameBusy (a seal held the game past the wait);
        storage errors.
        """
        done, first = await self._game(game_id, player_id)
        if self.side is None:
            return done
        side = await self.side.forget(game_id, player_id, first)
        already = done.already and not side.changed
        for other in side.games:
            found = await self._table_game(other, player_id)
            already = already if found is None else found.already and already
        return dataclasses.replace(done, side=side, already=already)

    async def forget_tournament(
        self, tournament_id: str, player_id: str
    ) -> tuple[SideForgotten, tuple[Forgotten, ...]]:
        """Hide `player_id` in a tournament (`player-<registration order>`; a registrant who
        played no game too), in each of its table games seating them (as `forget`), and in
        every league that added one of them; a judge the tournament appointed is hidden
        there as `judge-<n>` (`SideForget.forget_tournament`). Idempotent. What was done
        beside the games, and each game's `Forgotten`.

        Raises: NotNamed (no such tournament or player; also: no tournaments kept apart);
        storage errors.
        """
        if self.side is None:
            raise NotNamed("tournament names are not kept apart here")
        side = await self.side.forget_tournament(tournament_id, player_id)
        games: list[Forgotten] = []
        for game_id in side.games:
            found = await self._table_game(game_id, player_id)
            if found is not None:
                games.append(found)
        return side, tuple(games)

    async def _table_game(self, game_id: str, player_id: str) -> Forgotten | None:
        """Forget `player_id` in one of their tournament's table games (`_game`); None: the
        game seats someone else, or is not created yet.

        A table game not created yet may still be created by an opening that read the
        tournament (names put back) before the forget hid the player there: so the player is
        marked forgotten in the game's names first. `keep` never overwrites and a creation
        keeps its names in its append's own atomic step (`EventLog.keeps_names`), so a
        creation after the mark keeps no name, and one that kept its names before the mark
        is found by the second look (docs/forget.md)."""
        for look in (1, 2):
            try:
                return (await self._game(game_id, player_id))[0]
            except UnknownPlayer:
                return None  # the table seats someone else now
            except UnknownGame:
                if look == 2:
                    return None  # not created: its creation keeps the player forgotten
                await self.names.keep(game_id, {player_id: FORGOTTEN})
        return None

    async def _game(self, game_id: str, player_id: str) -> tuple[Forgotten, bytes]:
        """Forget in one game's tiers, holding its tier lock (`HotGames.lock`), then in its
        dead letters (`_scrub_letters`); what was done and the game's stored first event.
        Raises: GameBusy, and as `_locked`."""
        if self.tiers is None:
            done, first, held = await self._locked(game_id, player_id)
            return await self._with_letters(done, held), first
        owner = f"forget-{uuid.uuid4().hex}"
        deadline = time.monotonic() + self.lock_wait_s
        while not await self.tiers.lock(game_id, owner, LOCK_TTL_MS):
            if time.monotonic() >= deadline:
                raise GameBusy(
                    f"game {game_id!r} is being sealed (its tier lock stayed held"
                    f" {self.lock_wait_s:g} s); nothing changed, try again"
                )
            await asyncio.sleep(0.05)
        try:
            done, first, held = await self._locked(game_id, player_id)
        finally:
            await self.tiers.unlock(game_id, owner)
        # no seal or restore touches a letter: the scan (every letter) holds no lock
        return await self._with_letters(done, held), first

    async def _with_letters(self, done: Forgotten, held: set[str]) -> Forgotten:
        """`done` with the game's dead letters scrubbed of every name in `held`."""
        change = await self._scrub_letters(done.game_id, done.player_id, held, done.pseudonym)
        if change is None:
            return done
        tiers, changes = (*done.tiers, "letters"), (*done.changes, change)
        return dataclasses.replace(done, tiers=tiers, changes=changes, already=False)

    async def _first_event(self, game_id: str) -> tuple[list[bytes], SealedGame | None]:
        """The game's start event (Redis, else the archived copy's) and its archived copy.

        Raises:
            UnknownGame: no event of the game in either tier.
        """
        first = await self.hot.read_raw(game_id, 1, 1)
        archived = None if self.archive is None else await self.archive.get(game_id)
        if not first and archived is not None:
            first = list(archived.events[:1])
        if not first:
            where = "Redis" if self.archive is None else "Redis or the archive"
            raise UnknownGame(f"game {game_id!r}: no event in {where}")
        return first, archived

    async def _scrub_webhooks(
        self, game_id: str, player_id: str, held: set[str], shown: str
    ) -> TierChange | None:
        """The game's kept webhook bodies with `shown` for every name of the player in `held`;
        the change, or None when no body changed (or no webhook store)."""
        if self.webhooks is None:
            return None
        # a body names a player as `"player_id":…,"name":…` (`webhooks.messages`): only
        # the forgotten player's entries, never another's same name or another text
        anchor = f'"player_id":{json.dumps(player_id)},"name":'
        pairs = [
            (anchor + old, anchor + new)
            for n in sorted(held - {FORGOTTEN, player_id})
            for old, new in replacements(n, shown)
        ]
        scrubbed = await self.webhooks.scrub(game_id, pairs) if pairs else 0
        if not scrubbed:
            return None
        return TierChange("webhooks", True, f"{scrubbed} kept bodies: the name replaced")

    async def _scrub_letters(
        self, game_id: str, player_id: str, held: set[str], shown: str
    ) -> TierChange | None:
        """The game's dead letters with `shown` for every name of the player in `held`; the
        change, or None when no letter changed (or no dead letters)."""
        if self.letters is None:
            return None
        # a refused start event is kept as posted (maybe not JSON, in any member order): the
        # name's whole JSON string literal, wherever it is in the raw (docs/forget.md)
        pairs = [p for n in sorted(held - {FORGOTTEN, player_id}) for p in replacements(n, shown)]
        scrubbed = await self.letters.scrub(game_id, pairs) if pairs else 0
        if not scrubbed:
            return None
        return TierChange("letters", True, f"{scrubbed} letters: the name replaced in the raw")

    async def _locked(self, game_id: str, player_id: str) -> tuple[Forgotten, bytes, set[str]]:
        """`_game`'s work, under the lock: what was done, the game's stored first event, and
        every name of the player a tier held. Raises: UnknownGame, UnknownPlayer."""
        first, archived = await self._first_event(game_id)
        seats = start_players(first[0])
        if player_id not in seats:
            known = ", ".join(sorted(seats)) or "none"
            raise UnknownPlayer(
                f"game {game_id!r} seats no player {player_id!r} (players: {known})"
            )
        shown = pseudonym(seats[player_id])
        inline = json.loads(first[0])["payload"]["players"]
        inline_name = next(str(p["name"]) for p in inline if p["player_id"] == player_id)
        hot_restore = restored(first[0])

        def texts(kept: str | None) -> list[tuple[str, str]]:
            # the tier's kept name, else (a log written before) the inline one; nothing left
            # to replace once forgotten with no name inline
            name = kept or inline_name
            return [] if kept == FORGOTTEN and name == player_id else replacements(name, shown)

        tiers: list[str] = []
        changes: list[TierChange] = []
        already = True
        held = {inline_name}  # every name of the player a tier still holds (webhook bodies)
        if await self.hot.version(game_id):
            now = await self.names.names(game_id)
            kept = now.get(player_id)
            held.add(kept or "")
            already = kept == FORGOTTEN and hot_restore is None
            after = {**(hot_restore[1] if hot_restore else {}), **now, player_id: FORGOTTEN}
            again = rendered(await self.hot.read_raw(game_id), after)
            stored = await self.names.forget(game_id, player_id, Scrub(texts(kept), again))
            if hot_restore is not None:  # names inline: keep them apart, then store without
                await self.names.keep(game_id, hot_restore[1])
                await self.names.rewrite_start(game_id, hot_restore[0])
            tiers.append("hot")
            said = hot_change(already, hot_restore is not None, stored, again)
            changes.append(TierChange("hot", not already, said))
        if archived is not None and self.archive is not None:
            kept = archived.names.get(player_id)
            held.add(kept or "")
            restore = restored(archived.events[0]) if archived.events else None
            archive_already = kept == FORGOTTEN and restore is None
            already = already and archive_already
            events, names = archived.events, {**archived.names, player_id: FORGOTTEN}
            if restore is not None:
                events = (restore[0], *archived.events[1:])
                names = {**restore[1], **names}
            entry = dataclasses.replace(
                archived.entry, archived_at=self.clock().isoformat(), checksum=checksum_of(events)
            )
            projection, again_archived = archived_projection(archived.projection, events, names)
            if not again_archived:  # a rendered projection is stored as is (same names)
                projection = scrubbed(projection, texts(kept))
            changed = dataclasses.replace(
                archived,
                entry=entry,
                events=events,
                names=names,
                projection=projection,
            )
            await self.archive.put(changed)
            tiers.append("archive")
            said = archive_change(
                archive_already, restore is not None, archived.projection, again_archived
            )
            changes.append(TierChange("archive", not archive_already, said))
        hook_change = await self._scrub_webhooks(game_id, player_id, held, shown)
        if hook_change is not None:
            tiers.append("webhooks")
            changes.append(hook_change)
            already = False
        done = Forgotten(game_id, player_id, shown, tuple(tiers), already, None, tuple(changes))
        return done, first[0], held


__all__ = [
    "Forget",
    "Forgotten",
    "GameBusy",
    "TierChange",
    "UnknownGame",
    "UnknownPlayer",
    "rendered",
    "replacements",
]
