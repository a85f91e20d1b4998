"""The event store on Redis Streams: append (one Lua call per batch), read, version, games.

Per game: a never-trimmed stream (entry id `<seq>-1`, fields `seq`, `id`, `type`, `data`) and
an event-id HASH; per shard: the feed stream (fields `game`, `seq`, `data`) and the game index
ZSET. Source: research/tech.md §3.2-3.3; keys in `services.keys`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import redis.asyncio as aioredis
from redis.exceptions import ResponseError

from contracts.envelope import Envelope
from contracts.events import dump_event_json, parse_event_json
from services.adapters.redis.append_lua import APPEND_LUA
from services.keys import Keys, shard_of
from services.ports.errors import VersionConflict

_WRONGVERSION = re.compile(r"WRONGVERSION expected (-?\d+) actual (\d+)")


@dataclass(frozen=True, slots=True)
class AppendedEvent:
    """Where one event of an append landed.

    `seq` is the event's position in its game (for a duplicate: the original's seq);
    `feed_id` is its shard feed entry id (None for a duplicate, nothing was written).
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

    def to_dict(self) -> dict[str, object]:
        """`{"appended": [{"event_id", "seq", "duplicate"}], "version": N}` (the HTTP 201 body)."""
        return {
            "appended": [
                {"event_id": e.event_id, "seq": e.seq, "duplicate": e.duplicate}
                for e in self.events
            ],
            "version": self.version,
        }


def _conflict(error: ResponseError) -> VersionConflict:
    """The `VersionConflict` of a WRONGVERSION reply; any other error is raised as is."""
    match = _WRONGVERSION.search(str(error))
    if match is None:
        raise error
    return VersionConflict(int(match[1]), int(match[2]))


def _result(events: Sequence[Envelope], out: list) -> AppendResult:
    """The `AppendResult` of the append script's flat reply (version, then seq/feed id/dup)."""
    positions = tuple(
        AppendedEvent(
            event_id=str(event.event_id),
            seq=int(out[1 + 3 * i]),
            feed_id=out[2 + 3 * i].decode() or None,
            duplicate=bool(out[3 + 3 * i]),
        )
        for i, event in enumerate(events)
    )
    return AppendResult(events=positions, version=int(out[0]))


class EventStore:
    """Raw append/read of envelopes. No domain checks here (see `CheckedEventStore`).

    `client` must be a `redis.asyncio.Redis` created without `decode_responses`.
    """

    def __init__(self, client: aioredis.Redis, keys: Keys) -> None:
        self.client = client
        self.keys = keys
        self._append = client.register_script(APPEND_LUA)

    async def append(self, game_id: str, events: Sequence[Envelope]) -> AppendResult:
        """Append `events` (in order) to `game_id`, all or nothing, in one Lua call.

        Each event's expected version is `event.seq - 1`; a duplicate `event_id` returns its
        original seq and writes nothing. `recorded_at` is stamped now (UTC).

        Raises:
            VersionConflict: an event's expected version is not the game's version; nothing
                of the batch was written.
            ValueError: an event's `game_id` is not `game_id`.
        """
        keys, args = self._call(game_id, events, datetime.now(UTC))
        try:
            out = await self._append(keys=keys, args=args)
        except ResponseError as error:
            raise _conflict(error) from None
        return _result(events, out)

    async def append_many(
        self, requests: Sequence[tuple[str, Sequence[Envelope]]]
    ) -> list[AppendResult | VersionConflict]:
        """Several appends (game_id, events), each its own all-or-nothing Lua call, sent in one
        pipeline (one round trip, plus redis-py's SCRIPT EXISTS). The calls run in order, so
        two requests of one game behave as two `append` calls.

        Returns one outcome per request: its `AppendResult` or the `VersionConflict` that left
        it unwritten. Raises: ValueError (a foreign game id, nothing sent), redis errors.
        """
        if not requests:
            return []
        now = datetime.now(UTC)
        calls = [self._call(game_id, events, now) for game_id, events in requests]
        async with self.client.pipeline(transaction=False) as pipe:
            for keys, args in calls:
                await self._append(keys=keys, args=args, client=pipe)
            replies = await pipe.execute(raise_on_error=False)
        outcomes: list[AppendResult | VersionConflict] = []
        for (_, events), reply in zip(requests, replies, strict=True):
            if isinstance(reply, ResponseError):
                outcomes.append(_conflict(reply))
            else:
                outcomes.append(_result(events, reply))
        return outcomes

    def _call(
        self, game_id: str, events: Sequence[Envelope], now: datetime
    ) -> tuple[list[str], list[str | int]]:
        """KEYS and ARGV of one append call (see `scripts.APPEND_LUA`)."""
        for event in events:
            if event.game_id != game_id:
                raise ValueError(
                    f"game_id: event {event.event_id} is for {event.game_id}, not {game_id}"
                )
        args: list[str | int] = [game_id, int(now.timestamp() * 1000)]
        for event in events:
            args += [
                str(event.event_id),
                event.seq,
                event.type,
                dump_event_json(event.with_recorded_at(now)),
            ]
        shard = shard_of(game_id, self.keys.shards)
        keys = [
            self.keys.game_stream(game_id),
            self.keys.feed(shard),
            self.keys.event_ids(game_id),
            self.keys.game_index(shard),
        ]
        return keys, args

    async def version(self, game_id: str) -> int:
        """The game's version: the number of events stored (0 for an unknown game)."""
        return int(await self.client.xlen(self.keys.game_stream(game_id)))

    async def read_raw(
        self, game_id: str, from_seq: int = 1, to_seq: int | None = None
    ) -> list[bytes]:
        """The stored envelope JSON of seqs `from_seq..to_seq` (inclusive), as written."""
        end = f"{to_seq}-1" if to_seq is not None else "+"
        entries = await self.client.xrange(self.keys.game_stream(game_id), f"{from_seq}-1", end)
        return [fields[b"data"] for _, fields in entries]

    async def read(
        self, game_id: str, from_seq: int = 1, to_seq: int | None = None
    ) -> list[Envelope]:
        """The game's events `from_seq..to_seq` (inclusive), parsed and upcast to current schemas.

        Raises:
            pydantic.ValidationError / ValueError: a stored event cannot be parsed or upcast.
        """
        return [parse_event_json(data) for data in await self.read_raw(game_id, from_seq, to_seq)]

    async def list_games(self) -> list[str]:
        """Every game id with at least one event: the union of the shard game indexes, sorted."""
        games: set[str] = set()
        async with self.client.pipeline(transaction=False) as pipe:
            for shard in range(self.keys.shards):
                pipe.zrange(self.keys.game_index(shard), 0, -1)
            for members in await pipe.execute():
                games.update(m.decode() for m in members)
        return sorted(games)

    async def export_jsonl(self, game_id: str) -> str:
        """The game's log as JSONL, one stored envelope per line, byte for byte as appended
        (old schema versions are not upcast: this is the evidence for a dispute)."""
        return "".join(data.decode() + "\n" for data in await self.read_raw(game_id))
