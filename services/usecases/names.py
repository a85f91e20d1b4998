"""Names outside the log: the event log that takes them out at append and puts them back at
read (the `forget` use case, `scoreledger forget GAME PLAYER`, is `services.usecases.forget`;
its names are importable from here too).

`NamedEventLog` wraps any `EventLog` (Redis's, the tiered one): an appended `*.game_started`
is stored with each player's id in place of the name, the names kept first in
`PlayerNames` (never overwritten: a retried creation, a duplicate by its event id, cannot
bring a forgotten name back); every read puts the names back (`contracts.names.put_names`), so
answers and exports read the events as posted, and a forgotten player as `player-<seat>`.
`forget` stores a start event written with names inline again in today's form.
A game in the archive only reads the archived copy's names. Source:
docs/decisions/0014-names-outside-the-log.md (personal data outside the immutable log).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from operator import attrgetter

from contracts.envelope import Envelope
from contracts.events import parse_event_json
from contracts.names import is_game_started, put_names, strip_all, strip_names
from services.archive.usecases.tiered import ArchiveReader
from services.ports.errors import CredentialMismatch, VersionConflict
from services.ports.eventlog import (
    AppendRequest,
    AppendResult,
    EventLog,
    EventLogBase,
    GamesPage,
)
from services.ports.names import PlayerNames
from services.usecases.forget import Forget as Forget
from services.usecases.forget import Forgotten as Forgotten
from services.usecases.forget import GameBusy as GameBusy
from services.usecases.forget import TierChange as TierChange
from services.usecases.forget import UnknownGame as UnknownGame
from services.usecases.forget import UnknownPlayer as UnknownPlayer
from services.usecases.forget import rendered as rendered

_TYPE = attrgetter("type")


@dataclasses.dataclass(eq=False, slots=True)
class NamedEventLog(EventLogBase):
    """`EventLog` with player names kept outside the stored events (module docstring).

    Args:
        inner: the log the events are stored in (one that `keeps_names` keeps them where
            `names` reads them: the composition root pairs Redis's two); names: the hot
            tier's names;
        archive: archived games' names, for a game in the archive only (None: no archive);
        hot: the hot tier's log, asked before the archive (a game in Redis with no kept
            names, written before names left the log, needs no archive read; None: ask the
            archive).
    """

    inner: EventLog
    names: PlayerNames
    archive: ArchiveReader | None = None
    hot: EventLog | None = None

    async def names_of(self, game_id: str) -> dict[str, str]:
        """The game's kept names: the hot tier's, else the archived copy's (empty: none)."""
        kept = await self.names.names(game_id)
        if kept or self.archive is None:
            return kept
        if self.hot is not None and await self.hot.version(game_id):
            return kept  # in Redis: its names (none kept) are Redis's
        game = await self.archive.game(game_id)
        return {} if game is None else dict(game.names)

    async def names_stamp(self, game_id: str) -> tuple[tuple[str, str], ...]:
        """The game's kept names as a hashable stamp (a forget changes it)."""
        return tuple(sorted((await self.names_of(game_id)).items()))

    async def _stripped(self, request: AppendRequest) -> AppendRequest:
        """`request` with its start event's names taken out (as it is if none): handed to
        the inner log, which keeps them in the append's own atomic step (`keeps_names`: no
        round trip of their own, none kept for a refused batch), else kept first here."""
        # the batch's distinct types tested, not each event (most batches hold no start)
        if not any(map(is_game_started, set(map(_TYPE, request.events)))):
            return request
        out, names = strip_all(request.events, strip_names)
        if not names:
            return request
        if self.inner.keeps_names:
            return dataclasses.replace(request, events=out, names=tuple(names.items()))
        await self.names.keep(request.game_id, names)
        return dataclasses.replace(request, events=out)

    async def append_one(self, request: AppendRequest) -> AppendResult:
        """See `EventLog.append_one`; a start event's names are kept first, then it is stored
        without them (the projection keeps them, as the projector renders them)."""
        return await self.inner.append_one(await self._stripped(request))

    async def append_many(
        self, requests: Sequence[AppendRequest]
    ) -> list[AppendResult | VersionConflict | CredentialMismatch]:
        """See `EventLog.append_many` (names as `append_one`)."""
        return await self.inner.append_many([await self._stripped(r) for r in requests])

    async def version(self, game_id: str) -> int:
        return await self.inner.version(game_id)

    async def versions(self, game_ids: Sequence[str]) -> list[int]:
        return await self.inner.versions(game_ids)

    async def stored_seqs(
        self, game_id: str, event_ids: Sequence[str]
    ) -> tuple[int, list[int | None]]:
        return await self.inner.stored_seqs(game_id, event_ids)

    async def confirm_replicated(self, game_id: str, event_id: str) -> None:
        await self.inner.confirm_replicated(game_id, event_id)

    async def read_raw(
        self, game_id: str, from_seq: int = 1, to_seq: int | None = None
    ) -> list[bytes]:
        """See `EventLog.read_raw`: the events as posted (names put back; a forgotten
        player's pseudonym). Only a range with seq 1 (the start event) reads the names."""
        raw = await self.inner.read_raw(game_id, from_seq, to_seq)
        if from_seq > 1 or not raw:
            return raw
        names = await self.names_of(game_id)
        return [put_names(raw[0], names), *raw[1:]] if names else raw

    async def read(
        self, game_id: str, from_seq: int = 1, to_seq: int | None = None
    ) -> list[Envelope]:
        """See `EventLog.read` (names as `read_raw`)."""
        return [parse_event_json(d) for d in await self.read_raw(game_id, from_seq, to_seq)]

    async def list_games(self, after: str | None = None, limit: int = 1000) -> GamesPage:
        return await self.inner.list_games(after, limit)


__all__ = [
    "Forget",
    "Forgotten",
    "GameBusy",
    "NamedEventLog",
    "TierChange",
    "UnknownGame",
    "UnknownPlayer",
]
