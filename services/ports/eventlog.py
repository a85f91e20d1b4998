"""The event-log port: each game's append-only log (the source of truth) and its index.

An append carries the expected version of every event (`seq - 1`) and is idempotent by
`event_id`; a batch is all or nothing. An append may carry the writer's write-token digest
(`credential`): it must equal the game's stored digest (checked in the same atomic step as the
append), and the append that creates the game (writes seq 1) stores it, so a game never exists
without its credential. Source: docs/decisions/0002-one-atomic-append.md; docs/decisions/0009-one-authorization-on-every-write.md (credential stored with the append).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple, Protocol, TypeVar

from contracts.envelope import Envelope, StreamBody
from services.ports.errors import CredentialMismatch, VersionConflict


class AppendedEvent(NamedTuple):
    """Where one event of an append landed.

    `seq` is the event's position in its game (for a duplicate: the original's seq);
    `feed_id` is its shard feed entry id (None for a duplicate, nothing was written).
    A named tuple, not a frozen dataclass: an append makes one per event, and a tuple is
    built in C (`tuple.__new__` over zipped columns, `adapters.redis.eventlog._result`)
    where a frozen dataclass's `__init__` sets each field through Python.
    """

    event_id: str
    seq: int
    feed_id: str | None
    duplicate: bool


@dataclass(frozen=True, slots=True)
class AppendResult:
    """The outcome of one append call: per-event positions and the game's version after it."""

    events: tuple[AppendedEvent, ...]
    version: int
    text: int | None = None
    """The characters of the events' stored JSON lines when every line is ASCII with no `\\u`
    escape (one byte a character of the strings the events hold; a stored start event lacks
    its names: they are kept outside the log); None: not known. For cache estimates: it
    stands for a walk of the events' strings, which also counts each string's header and so
    reads up to about 1.4x more on short events; the estimate's per-event allowance covers
    that (tests/usecases/test_statecache_bytes.py)."""

    def to_dict(self) -> dict[str, object]:
        """`{"appended": [{"event_id", "seq", "duplicate"}], "version": N}` (the HTTP 201 body)."""
        return {
            "appended": [
                {"event_id": e.event_id, "seq": e.seq, "duplicate": e.duplicate}
                for e in self.events
            ],
            "version": self.version,
        }


@dataclass(frozen=True, slots=True)
class LiveProjection:
    """A game's projection rendered from the state an append's check computed (seq, status,
    ruleset, standings JSON, rendered view, `updated_at` as ISO UTC), handed to the append so
    the same atomic step stores it: one parse and one fold per live event.

    Stored only when the game's stored projection is at the version the append starts from
    (so it is the next state of that one), the game is not held, no player of it was
    forgotten (the writer's state may still hold the name) and `seq` is the version the
    append reaches; then a change notice is added too (capped near `changes_maxlen`). Else
    nothing of it is stored and the projector projects the game from the feed as before.
    Source: docs/decisions/0004-projector-catch-up-subscription.md (live projection)."""

    seq: int
    status: str
    game: str
    standings_json: str
    view_json: bytes
    updated_at: str
    changes_maxlen: int


EMPTY_HEAD = "-"
"""`AppendRequest.expected_head` of a writer that planned on an empty game (no event id is
"-"): an append finding any event stored raises `HeadMismatch`."""


@dataclass(frozen=True, slots=True)
class AppendRequest:
    """One all-or-nothing append: `events` of `game_id` in order; `credential` is the writer's
    write-token digest (checked against the game's, stored by the creating append; None: a
    trusted caller such as a test seeding a log, unchecked). `expected_head` is the event id
    the writer expects as the game's stored last event (`EMPTY_HEAD`: no event; None:
    unchecked; see `HeadMismatch`)."""

    game_id: str
    events: Sequence[Envelope]
    credential: str | None = None
    expected_head: str | None = None
    projection: LiveProjection | None = None
    """The game's projection after the append (None: the projector projects it)."""
    names: tuple[tuple[str, str], ...] = ()
    """(player id, name) pairs to keep, each only if the game keeps none for that player yet
    (first writer wins; a forgotten name stays forgotten), in the same atomic step as the
    events, once the batch passed its checks, if it stores an event (an all-duplicate batch
    keeps none); only an `EventLog` whose `keeps_names` is True
    takes them (`usecases.names.NamedEventLog` hands them over; docs/decisions/0014-names-outside-the-log.md)."""


class FeedEntry(NamedTuple):
    """One entry of a shard feed (every append also writes its events there, in order): the
    feed entry id (`ms-n`), the game, the event's seq and its stored envelope JSON; `live`:
    the append that wrote it stored the game's projection too (docs/decisions/0004-projector-catch-up-subscription.md).
    A named tuple, not a frozen dataclass: a read builds one per entry, and a tuple is built
    in C (`tuple.__new__` over zipped columns, `adapters.redis.feed.feed_entries`), as
    `AppendedEvent` is."""

    feed_id: str
    game_id: str
    seq: int
    data: bytes
    live: bool = False


@dataclass(frozen=True, slots=True)
class MalformedFeedEntry:
    """A shard feed entry that is not a `FeedEntry`: a field missing, a seq that is not a
    positive integer, bytes that are not UTF-8, a game id that is not a game id of the shard.

    The projector dead-letters it alone (its neighbours are applied) before its checkpoint
    moves past it. `raw`: the entry's fields as JSON, cut at a bound; `rule` / `field` /
    `message`: what is wrong; `game_id`: the game when it could be read.
    """

    feed_id: str
    raw: bytes
    rule: str
    field: str
    message: str
    game_id: str | None = None


@dataclass(frozen=True, slots=True)
class GamesPage:
    """A page of game ids (sorted), and the id to pass as `after` for the next page (None: last)."""

    games: tuple[str, ...]
    next_after: str | None


S = TypeVar("S", bound=StreamBody)
"""A stream kind's envelope."""


class StreamLog(Protocol[S]):
    """The one log port: append and read the streams of one kind, the stream id being the
    kind's (`game_id`, `tournament_id`, `league_id`). The games' `EventLog` and the side kinds'
    `SideLog` extend it (docs/decisions/0020-one-stream-kernel.md)."""

    async def append(
        self, stream_id: str, events: Sequence[S], /, credential: str | None = None
    ) -> AppendResult:
        """Append `events` in order, all or nothing; stamps `recorded_at`. Every event's
        `seq - 1` is the version it expects; a known `event_id` is a duplicate (its original
        seq, nothing written); the creating append stores `credential` (a token digest), which
        every later one must carry.

        Raises:
            VersionConflict: an event's expected version is not the one reached; nothing written.
            CredentialMismatch: `credential` is not the stored digest (or the stream has events
                but no digest); nothing written.
            ValueError: an event names another stream (`contracts.envelope.check_stream`).
            ReplicasUnconfirmed: (Redis, `SCORELEDGER_APPEND_REPLICAS`) stored, but too few
                replicas confirmed it in time; a retry with the same ids is a duplicate.
        """
        ...

    async def version(self, stream_id: str, /) -> int:
        """The number of events stored (0: unknown stream)."""
        ...

    async def read(
        self, stream_id: str, from_seq: int = 1, to_seq: int | None = None, /
    ) -> list[S]:
        """Events `from_seq..to_seq` (inclusive), parsed."""
        ...


class EventLog(StreamLog[Envelope], Protocol):
    """Append, read and list games. Implementations (each an `EventLogBase`):
    `adapters.redis.eventlog.RedisEventLog`, `adapters.memory.store.MemoryEventLog`;
    `tests/ports/` holds both to one suite."""

    @property
    def keeps_names(self) -> bool:
        """Whether `append_one`/`append_many` keep `AppendRequest.names` where the process's
        `PlayerNames` reads them (False: they are ignored; the caller keeps them first)."""
        ...

    async def append_one(self, request: AppendRequest) -> AppendResult:
        """Append `request.events` (in order), all or nothing; a known `event_id` is a
        duplicate (original seq, nothing written). Stamps `recorded_at`. `request.projection`:
        the game's projection after the append, stored with it on the conditions of
        `LiveProjection`. `append(game_id, events, credential)` is this with the other fields
        unset (`EventLogBase`).

        Raises:
            HeadMismatch: `expected_head` (an event id; None: unchecked) is not the id of the
                stored last event (or the game has none); nothing written.
            VersionConflict: an event's `seq - 1` is not the version reached; nothing written.
            CredentialMismatch: `credential` is not the game's stored digest, or the game has
                events but no digest; nothing written.
            ValueError: an event's `game_id` is not `request.game_id`.
        """
        ...

    async def append_many(
        self, requests: Sequence[AppendRequest]
    ) -> list[AppendResult | VersionConflict | CredentialMismatch]:
        """Several appends in order, each all or nothing (one round trip where the backend can);
        one outcome per request."""
        ...

    async def version(self, game_id: str) -> int:
        """The number of events stored for the game (0: unknown game)."""
        ...

    async def versions(self, game_ids: Sequence[str]) -> list[int]:
        """`version` of several games, in order (one round trip where the backend can)."""
        ...

    async def stored_seqs(
        self, game_id: str, event_ids: Sequence[str]
    ) -> tuple[int, list[int | None]]:
        """The game's version and the stored seq of each of `event_ids` (None: not stored),
        in one round trip where the backend can: what a duplicate answer is checked against."""
        ...

    async def confirm_replicated(self, game_id: str, event_id: str) -> None:
        """Return once the game's write of `event_id` (already stored: a duplicate being
        answered) is on as many replicas as every append waits for; at once when none are
        required. Raises: ReplicasUnconfirmed (too few confirmed in time)."""
        ...

    async def read_raw(
        self, game_id: str, from_seq: int = 1, to_seq: int | None = None
    ) -> list[bytes]:
        """The stored envelope JSON of seqs `from_seq..to_seq` (inclusive), byte for byte."""
        ...

    async def read(
        self, game_id: str, from_seq: int = 1, to_seq: int | None = None
    ) -> list[Envelope]:
        """Events `from_seq..to_seq` (inclusive), parsed and upcast to current schemas."""
        ...

    async def list_games(self, after: str | None = None, limit: int = 1000) -> GamesPage:
        """Game ids with at least one event, sorted, at most `limit` after `after`."""
        ...


class EventLogBase(ABC):
    """The part every `EventLog` implementation shares: `append` is `append_one` of one
    `AppendRequest`, so the request's fields are spelt once, in the request; an implementation
    (or a wrapper: names, tiers) writes `append_one` and passes the request on."""

    __slots__ = ()

    keeps_names: bool = False
    """See `EventLog.keeps_names` (an implementation that keeps them sets True)."""

    async def append(
        self, game_id: str, events: Sequence[Envelope], credential: str | None = None
    ) -> AppendResult:
        """`StreamLog.append` of the games: `append_one` with no expected head and no
        projection. Raises: as `EventLog.append_one`."""
        return await self.append_one(AppendRequest(game_id, events, credential))

    @abstractmethod
    async def append_one(self, request: AppendRequest) -> AppendResult:
        """See `EventLog.append_one`."""
