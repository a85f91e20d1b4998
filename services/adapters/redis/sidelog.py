"""A side log on Redis Streams (`services.ports.sidelog.SideLog`): per stream a never-trimmed
stream (entry id `<seq>-1`, fields `seq`, `id`, `type`, `data`), an event-id HASH and the
organiser token's digest, all in one slot (the stream id is the hash tag; the tournament keys of
`Keys`, the id behind a kind's `prefix`). One Lua call per append checks the token, the
expected version of every event and the event ids before it writes anything (the core every
stream's append script shares, `append_core_lua`, without the games' shard feed and game index:
side streams are folded on read). A call that
writes no event (every one a duplicate) sets the first id's seq again, to the value it holds,
so that a `WAIT` after it (durable acknowledgements, `durable.DurableWait`) covers the original
write too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, Generic

from redis.exceptions import ResponseError

from services.adapters.redis.append_core_lua import APPEND_CORE_LUA
from services.adapters.redis.connect import RedisClient
from services.adapters.redis.durable import DurableWait
from services.adapters.redis.keys import Keys
from services.ports.errors import CredentialMismatch, ReplicasUnconfirmed, VersionConflict
from services.ports.eventlog import AppendedEvent, AppendResult
from services.ports.sidelog import E, SideStream

APPEND_SIDE_LUA = (
    """
local STREAM, IDS, TOKEN = KEYS[1], KEYS[2], KEYS[3]
local DIGEST, HEAD, FIRST, TAIL = ARGV[1], '', 1, 0
local function written(sseq, data) return '' end
local function checked() end
local function grown() end
local function finish(version, next_version) end
"""
    + APPEND_CORE_LUA
)
"""The side streams' append: the shared core (`append_core_lua`) without a feed or index
(the kind's list index is written after the call). KEYS: 1 the stream, 2 its event-id HASH, 3
its token digest STRING. ARGV: 1 the digest to check and store ("" unchecked), then per event 4
values: event_id, seq, type, data. Returns version, then per event seq, "" and dup (0/1);
errors `WRONGTOKEN`, `WRONGVERSION expected X actual Y`."""
_WRONGVERSION = re.compile(r"WRONGVERSION expected (-?\d+) actual (\d+)")


class RedisSideLog(Generic[E]):
    """The side streams of kind `stream` on Redis (a client created without
    `decode_responses`), under the tournament keys of `prefix + stream id` (`prefix`: the
    kind's own, `SideStream.prefix`, unless given). `replicas`,
    `wait_ms` (`SCORELEDGER_APPEND_REPLICAS`): as `RedisEventLog`'s, an append (a duplicate
    too) returns once that many replicas hold it, else raises `ReplicasUnconfirmed`."""

    def __init__(
        self,
        client: RedisClient,
        keys: Keys,
        stream: SideStream[E],
        prefix: str | None = None,
        replicas: int = 0,
        wait_ms: int = 1000,
    ) -> None:
        self.client = client
        self.keys = keys
        self.stream = stream
        self.prefix = stream.prefix if prefix is None else prefix
        self.durable = DurableWait(client, replicas, wait_ms)
        self._append = client.register_script(APPEND_SIDE_LUA)

    async def append(
        self, stream_id: str, events: Sequence[E], credential: str | None = None
    ) -> AppendResult:
        """See `SideLog.append` (one Lua call, all or nothing, then `WAIT` with `replicas`).
        Raises also ReplicasUnconfirmed (stored, too few replicas confirmed)."""
        self.stream.check(stream_id, events)
        now = datetime.now(UTC)
        args: list[str | int] = [credential or ""]
        for event in events:
            data = event.with_recorded_at(now).model_dump_json()
            args += [str(event.event_id), event.seq, event.type, data]
        key = self.prefix + stream_id
        keys = [
            self.keys.tournament_stream(key),
            self.keys.tournament_ids(key),
            self.keys.tournament_token(key),
        ]
        try:
            out: Any = await self.durable.call(self._append, keys, args)
        except ReplicasUnconfirmed:
            if any(event.seq == 1 for event in events):  # stored all the same: list it
                await self._list(stream_id, now)
            raise
        except ResponseError as error:
            if "WRONGTOKEN" in str(error):
                raise CredentialMismatch(stream_id) from None
            match = _WRONGVERSION.search(str(error))
            if match is None:
                raise
            raise VersionConflict(int(match[1]), int(match[2])) from None
        positions = tuple(
            AppendedEvent(str(event.event_id), int(out[1 + 3 * i]), None, bool(out[3 + 3 * i]))
            for i, event in enumerate(events)
        )
        if any(p.seq == 1 and not p.duplicate for p in positions):
            await self._list(stream_id, now)
        return AppendResult(positions, int(out[0]))

    async def _list(self, stream_id: str, now: datetime) -> None:
        # Outside the script: the index is one key for every stream, in another cluster
        # slot. A crash between the two leaves the stream readable but unlisted.
        index = self.keys.side_index(self.prefix)
        await self.client.zadd(index, {stream_id: int(now.timestamp() * 1000)}, nx=True)

    async def digest(self, stream_id: str) -> str | None:
        """GET of the stream's token digest key."""
        stored: Any = await self.client.get(self.keys.tournament_token(self.prefix + stream_id))
        return None if stored is None else bytes(stored).decode()

    async def version(self, stream_id: str) -> int:
        """XLEN of the stream."""
        return int(await self.client.xlen(self.keys.tournament_stream(self.prefix + stream_id)))

    async def read(self, stream_id: str, from_seq: int = 1, to_seq: int | None = None) -> list[E]:
        """Events `from_seq..to_seq` (inclusive), parsed."""
        end = f"{to_seq}-1" if to_seq is not None else "+"
        entries: Any = await self.client.xrange(
            self.keys.tournament_stream(self.prefix + stream_id), f"{from_seq}-1", end
        )
        return [self.stream.parse_json(fields[b"data"]) for _, fields in entries]

    async def streams(self, limit: int) -> list[str]:
        """See `SideLog.streams` (ZREVRANGE of the kind's index)."""
        ids: Any = await self.client.zrevrange(self.keys.side_index(self.prefix), 0, limit - 1)
        return [bytes(i).decode() for i in ids]
