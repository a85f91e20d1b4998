"""The event log on Redis Streams (`services.ports.eventlog.EventLog`): append (one Lua call
per batch, the creating append also storing the write-token digest), read, version, games.

Per game: a never-trimmed stream (entry id `<seq>-1`, fields `seq`, `id`, `type`, `data`), an
event-id HASH and the write-token digest STRING; per shard: the feed stream (fields `game`,
`seq`, `data`) and the game index ZSET. Source: docs/decisions/0003-shards-and-hash-tags.md; keys in
`services.adapters.redis.keys`.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from itertools import chain, repeat
from operator import attrgetter, itemgetter
from typing import Any

from pydantic import TypeAdapter
from redis.crc import key_slot
from redis.exceptions import ResponseError

from contracts.envelope import Envelope, check_stream
from contracts.events import dump_event_json, parse_event_json
from services.adapters.redis.append_lua import APPEND_LUA, TOUCH_LUA
from services.adapters.redis.coalesce import ScriptCoalescer
from services.adapters.redis.connect import RedisClient, is_cluster
from services.adapters.redis.durable import DurableWait
from services.adapters.redis.fanout import script_calls
from services.adapters.redis.keynames import KeyNames
from services.adapters.redis.keys import Keys, shard_of
from services.ports.errors import (
    CredentialMismatch,
    HeadMismatch,
    VersionConflict,
)
from services.ports.eventlog import (
    AppendedEvent,
    AppendRequest,
    AppendResult,
    EventLogBase,
    GamesPage,
)

_WRONGVERSION = re.compile(r"WRONGVERSION expected (-?\d+) actual (\d+)")
_WRONGHEAD = re.compile(r"WRONGHEAD version (\d+)")
_UNSTAMPED = b'"recorded_at":null'
_DATETIME: TypeAdapter[datetime] = TypeAdapter(datetime)


def stamped_json(events: Sequence[Envelope], now: datetime) -> list[bytes]:
    """The stored JSON of each event, UTF-8 bytes: `dump_event_json(event.with_recorded_at(now))`
    encoded, made without copying the model and without a str between (Redis is sent bytes
    either way: the serializer's own bytes skip a decode here and an encode in the packing).
    An unstamped event is dumped once and its `"recorded_at":null` replaced: the first one in
    the text is the envelope's (only scalar fields come before it, and inside a JSON string its
    quotes would be escaped). An event sent with a `recorded_at` (the store overwrites it) is
    copied as before."""
    stamp = b'"recorded_at":' + _DATETIME.dump_json(now)  # longer than `_UNSTAMPED`
    out = []
    for event in events:
        if event.recorded_at is None:
            # model_dump_json() is this call's bytes decoded (pydantic's BaseModel)
            text = event.__pydantic_serializer__.to_json(event)
            stamped = text.replace(_UNSTAMPED, stamp, 1)  # the first one, in C
            if len(stamped) != len(text):  # replaced (the stamp is longer)
                out.append(stamped)
                continue
        out.append(dump_event_json(event.with_recorded_at(now)).encode())
    return out


def _conflict(error: ResponseError, game_id: str) -> VersionConflict | CredentialMismatch:
    """The `VersionConflict` of a WRONGVERSION reply, the `HeadMismatch` of a WRONGHEAD one,
    the `CredentialMismatch` of a WRONGTOKEN one; any other error is raised as is."""
    if "WRONGTOKEN" in str(error):
        return CredentialMismatch(game_id)
    head = _WRONGHEAD.search(str(error))
    if head is not None:
        return HeadMismatch(int(head[1]))
    match = _WRONGVERSION.search(str(error))
    if match is None:
        raise error
    return VersionConflict(int(match[1]), int(match[2]))


_ID_AT = b'{"event_id":"'
_SEQ, _TYPE = attrgetter("seq"), attrgetter("type")


_UUID_AT = itemgetter(slice(13, 49))
_QUOTE_AT = itemgetter(49)


def _event_ids(events: Sequence[Envelope], lines: list[bytes]) -> Iterator[str]:
    """`_event_id` of each event and its stored line, in C when every line starts with its
    id (`{"event_id":"`, 36 characters, `"`: what `stamped_json` makes of a model), else one
    event at a time."""
    try:
        quotes = bytes(map(_QUOTE_AT, lines))
    except IndexError:  # a line too short to hold an id where `_event_id` reads it
        quotes = b""
    if quotes.count(b'"') == len(lines) and all(map(bytes.startswith, lines, repeat(_ID_AT))):
        return map(bytes.decode, map(_UUID_AT, lines))
    return map(_event_id, events, lines)


def _event_id(event: Envelope, line: bytes) -> str:
    """`str(event.event_id)`, read from the event's stored `line` where the line starts with
    it (the envelope's first field, a UUID's 36 characters), else made from the UUID."""
    if line.startswith(_ID_AT) and line[49:50] == b'"':
        return line[13:49].decode()
    return str(event.event_id)


def _first(args: list[str | int | bytes]) -> int:
    """The index in ARGV `args` (0-based) of the first event's values: after the 5 fixed
    values and the names' pairs (`append_lua.APPEND_LUA`)."""
    return 5 + 2 * int(args[4])


def _result(args: list[str | int | bytes], out: list[Any]) -> AppendResult:
    """The `AppendResult` of the append script's flat reply (version, then seq/feed id/dup)
    to the call of ARGV `args` (its event ids: every 4th value from the first event's, one
    per event answered; a live projection's values follow them)."""
    first = _first(args)
    events = (len(out) - 1) // 3
    ids = args[first : first + 4 * events : 4]  # str(event_id), by `_call`
    seqs, feed_ids, dups = out[1::3], out[2::3], out[3::3]
    if b"" in feed_ids:  # a duplicate (no feed entry): its feed id is None
        positions = tuple(
            AppendedEvent(str(event_id), int(seq), feed_id.decode() or None, bool(duplicate))
            for event_id, seq, feed_id, duplicate in zip(ids, seqs, feed_ids, dups, strict=True)
        )
    else:  # every event written: the same values, each tuple built in C
        columns = zip(
            ids, map(int, seqs), map(bytes.decode, feed_ids), map(bool, dups), strict=True
        )
        positions = tuple(map(_NEW, repeat(AppendedEvent), columns))
    return AppendResult(positions, int(out[0]), _lines_text(args, events))


_NEW = tuple.__new__


def _lines_text(args: list[str | int | bytes], events: int) -> int | None:
    """`AppendResult.text` of the call of ARGV `args` with `events` events: their lines are
    every 4th value from the first event's 4th (a live projection's values follow them),
    tested and counted joined (a line starts with `{` and ends with `}`: no `\\u` across two)."""
    first = _first(args)
    try:
        joined = b"".join(args[first + 3 : first + 4 * events : 4])  # type: ignore[arg-type]
    except TypeError:  # a line that is not bytes
        return None
    # a one-byte search first: no backslash (most batches) spares the two-byte one
    if not joined.isascii() or (b"\\" in joined and b"\\u" in joined):
        return None
    return len(joined)  # ASCII: one byte a character


def append_keys(keys: Keys, game_id: str) -> tuple[str, ...]:
    """The append script's KEYS for `game_id` (`append_lua.APPEND_LUA`): its stream, its
    shard's feed, its event-id HASH, its shard's game index, its write-token digest, its
    names HASH, then the two a live projection adds (its projection, its shard's change
    notices)."""
    shard = shard_of(game_id, keys.shards)
    return (
        keys.game_stream(game_id),
        keys.feed(shard),
        keys.event_ids(game_id),
        keys.game_index(shard),
        keys.write_token(game_id),
        keys.names(game_id),
        keys.projection(game_id),
        keys.changes(shard),
    )


class RedisEventLog(EventLogBase):
    """Raw append/read of envelopes. No domain checks here (the record use case does them).
    It `keeps_names`: an append's `AppendRequest.names` go to the game's names HASH
    (`Keys.names`, what `names.RedisPlayerNames` reads) inside the append script.

    `client` must be a `redis.asyncio.Redis` created without `decode_responses`.
    `replicas` (`SCORELEDGER_APPEND_REPLICAS`): an append returns only once that many replicas
    hold it (`WAIT replicas wait_ms` on the connection that appended, on a cluster the slot
    primary's), else raises `ReplicasUnconfirmed` (the write stays; a retry is a duplicate and
    waits again). 0: no wait, as Redis replication is asynchronous.
    """

    def __init__(
        self, client: RedisClient, keys: Keys, replicas: int = 0, wait_ms: int = 1000
    ) -> None:
        self.client = client
        self.keys = keys
        self.durable = DurableWait(client, replicas, wait_ms)
        self._append = client.register_script(APPEND_LUA)
        self._touch = client.register_script(TOUCH_LUA)
        self._keys: KeyNames[tuple[str, ...]] = KeyNames()

    keeps_names = True

    async def confirm_replicated(self, game_id: str, event_id: str) -> None:
        """See `EventLog.confirm_replicated`: with `replicas`, the touch script
        (`append_lua.TOUCH_LUA`) then `WAIT`, on one connection. Raises: ReplicasUnconfirmed."""
        if self.durable.enabled:
            await self.durable.waited([(self._touch, [self.keys.event_ids(game_id)], [event_id])])

    async def append_one(self, request: AppendRequest) -> AppendResult:
        """Append `request.events` (in order) to its game, all or nothing, in one Lua call;
        with `request.projection`, the game's projection in the same call (`live_lua`).

        Each event's expected version is `event.seq - 1`; a duplicate `event_id` returns its
        original seq and writes nothing. `recorded_at` is stamped now (UTC). `credential` (a
        write-token digest; None: a trusted caller, unchecked) must be the game's stored one,
        and is stored in the same call when it writes seq 1. `expected_head` (an event id;
        None: unchecked) must be the id of the stored last event.

        Raises:
            HeadMismatch: the stored last event is not `expected_head`; nothing written.
            VersionConflict: an event's expected version is not the game's version; nothing
                of the batch was written.
            CredentialMismatch: `credential` is not the game's digest; nothing written.
            ValueError: an event's `game_id` is not the request's.
        """
        keys, args = self._call(request, datetime.now(UTC))
        try:
            out = await self.durable.call(self._append, keys, args)
        except ResponseError as error:
            raise _conflict(error, request.game_id) from None
        return _result(args, out)

    async def append_many(
        self, requests: Sequence[AppendRequest]
    ) -> list[AppendResult | VersionConflict | CredentialMismatch]:
        """Several appends, each its own all-or-nothing Lua call, sent in one
        pipeline on a single node, fanned out per slot on a cluster (`fanout.script_calls`).
        The calls of one game run in order, so two requests of one game behave as two
        `append` calls.

        Returns one outcome per request: its `AppendResult`, or the `VersionConflict` /
        `CredentialMismatch` that left it unwritten. Raises: ValueError (a foreign game id, nothing sent), redis errors.
        """
        if not requests:
            return []
        now = datetime.now(UTC)
        calls = [self._call(request, now) for request in requests]
        if self.durable.enabled:
            replies = await self._waited_per_slot(calls)
        else:
            replies = await script_calls(self.client, self._append, calls)
        outcomes: list[AppendResult | VersionConflict | CredentialMismatch] = []
        for request, (_, args), reply in zip(requests, calls, replies, strict=True):
            if isinstance(reply, ResponseError):
                outcomes.append(_conflict(reply, request.game_id))
            else:
                outcomes.append(_result(args, reply))
        return outcomes

    async def _waited_per_slot(
        self, calls: list[tuple[list[str], list[str | int | bytes]]]
    ) -> list[Any]:
        """`DurableWait.waited` for the calls of each slot (in call order), the slots at once.
        Raises: ReplicasUnconfirmed (any slot: the caller retries the whole batch)."""
        by_slot: dict[int, list[int]] = {}
        for i, (keys, _) in enumerate(calls):
            slot = key_slot(keys[0].encode()) if is_cluster(self.client) else 0
            by_slot.setdefault(slot, []).append(i)
        out: list[Any] = [None] * len(calls)

        async def slot_calls(indexes: list[int]) -> None:
            answers = await self.durable.waited([(self._append, *calls[i]) for i in indexes])
            for i, answer in zip(indexes, answers, strict=True):
                out[i] = answer

        await asyncio.gather(*(slot_calls(indexes) for indexes in by_slot.values()))
        return out

    def _call(
        self, request: AppendRequest, now: datetime
    ) -> tuple[list[str], list[str | int | bytes]]:
        """KEYS and ARGV of one append call (see `append_lua.APPEND_LUA`)."""
        game_id, events = request.game_id, request.events
        check_stream(game_id, events)
        args: list[str | int | bytes] = [
            game_id,
            int(now.timestamp() * 1000),
            request.credential or "",
            request.expected_head or "",
            len(request.names),
        ]
        for player_id, name in request.names:
            args += [player_id, name]
        lines = stamped_json(events, now)
        ids = _event_ids(events, lines)
        args += chain.from_iterable(
            zip(ids, map(_SEQ, events), map(_TYPE, events), lines, strict=True)
        )
        named = self._keys.get(game_id)
        if named is None:
            named = self._keys.put(game_id, append_keys(self.keys, game_id))
        live = request.projection
        if live is None:
            keys = list(named[:6])
        else:
            keys = list(named)
            args += [live.seq, live.status, live.game, live.standings_json, live.view_json]
            args += [live.updated_at, live.changes_maxlen]
        return keys, args

    async def version(self, game_id: str) -> int:
        """The game's version: the number of events stored (0 for an unknown game)."""
        return int(await self.client.xlen(self.keys.game_stream(game_id)))

    async def versions(self, game_ids: Sequence[str]) -> list[int]:
        """XLEN of several game streams, one pipeline. On a single node the XLENs ride with the
        other calls of this event-loop turn (`coalesce.ScriptCoalescer`): a catch-up's shards
        ask them together (`projected.without_sealed`, every new game), one pipeline a read
        instead of one per shard (docs/profiles/projector-catch-up-io.md)."""
        if not game_ids:
            return []
        if not is_cluster(self.client):
            command = ScriptCoalescer.of(self.client).command
            stream = self.keys.game_stream
            got = await asyncio.gather(*(command("XLEN", stream(g)) for g in game_ids))
            return [int(n) for n in got]
        async with self.client.pipeline(transaction=False) as pipe:
            for game_id in game_ids:
                pipe.xlen(self.keys.game_stream(game_id))
            return [int(n) for n in await pipe.execute()]

    async def stored_seqs(
        self, game_id: str, event_ids: Sequence[str]
    ) -> tuple[int, list[int | None]]:
        """XLEN of the game stream and HGET of each id in its event-id HASH, one pipeline
        (one slot; HGET, not HMGET, is what the ingest ACL user has)."""
        async with self.client.pipeline(transaction=False) as pipe:
            pipe.xlen(self.keys.game_stream(game_id))
            for event_id in event_ids:
                pipe.hget(self.keys.event_ids(game_id), event_id)
            version, *seqs = await pipe.execute()
        return int(version), [None if s is None else int(s) for s in seqs]

    async def read_raw(
        self, game_id: str, from_seq: int = 1, to_seq: int | None = None
    ) -> list[bytes]:
        """The stored envelope JSON of seqs `from_seq..to_seq` (inclusive), as written."""
        end = f"{to_seq}-1" if to_seq is not None else "+"
        entries: Any = await self.client.xrange(
            self.keys.game_stream(game_id), f"{from_seq}-1", end
        )
        return [fields[b"data"] for _, fields in entries]

    async def read(
        self, game_id: str, from_seq: int = 1, to_seq: int | None = None
    ) -> list[Envelope]:
        """The game's events `from_seq..to_seq` (inclusive), parsed and upcast to current schemas.

        Raises:
            pydantic.ValidationError / ValueError: a stored event cannot be parsed or upcast.
        """
        return [parse_event_json(data) for data in await self.read_raw(game_id, from_seq, to_seq)]

    async def list_games(self, after: str | None = None, limit: int = 1000) -> GamesPage:
        """Game ids with at least one event (the union of the shard game indexes), sorted, at
        most `limit` after `after`."""
        games: set[str] = set()
        async with self.client.pipeline(transaction=False) as pipe:
            for shard in range(self.keys.shards):
                pipe.zrange(self.keys.game_index(shard), 0, -1)
            for members in await pipe.execute():
                games.update(m.decode() for m in members)
        ids = sorted(g for g in games if after is None or g > after)
        page = tuple(ids[:limit])
        return GamesPage(page, page[-1] if len(ids) > limit else None)
