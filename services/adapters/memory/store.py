"""In-memory adapters of every port, sharing one `MemoryBackend` (tests, `make test-fast`).

Same contract as the Redis adapters (`tests/ports/` runs one suite against both): appends
all or nothing with expected version and event-id dedupe, the credential digest stored with
the creating append, projections and checkpoints changed together. Not for production: one
process, nothing durable. Feed ids are `1-<n>` (n counts every id the backend handed out).
A reader that waits (`ShardFeeds.read`, `ChangeNotices.read` with `block_ms`) is woken by the
next append, notice or release (`MemoryBackend.notify`). Leases and the shard feeds' reads:
`memory.leases`, `memory.feeds`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from contracts.envelope import Envelope, check_stream
from contracts.events import dump_event_json, parse_event_json
from services.adapters.memory.appendplan import check_credential, plan_append
from services.ports.credentials import CredentialLookup
from services.ports.deadletters import SCRUBBED_FROM, DeadLetter, StoredLetter, scrubbed
from services.ports.errors import CredentialMismatch, HeadMismatch, VersionConflict
from services.ports.eventlog import (
    EMPTY_HEAD,
    AppendedEvent,
    AppendRequest,
    AppendResult,
    EventLogBase,
    FeedEntry,
    GamesPage,
    LiveProjection,
)
from services.ports.notices import Notice
from services.ports.shards import shard_of


@dataclass
class MemoryBackend:
    """All state of the in-memory adapters."""

    shards: int = 16
    logs: dict[str, list[bytes]] = field(default_factory=dict)
    ids: dict[str, dict[str, int]] = field(default_factory=dict)
    digests: dict[str, str] = field(default_factory=dict)
    names: dict[str, dict[str, str]] = field(default_factory=dict)
    """game -> player_id -> name ("" once forgotten): `memory.names`."""
    feeds: dict[int, list[FeedEntry]] = field(default_factory=dict)
    letters: list[StoredLetter] = field(default_factory=list)
    letters_once: set[str] = field(default_factory=set)  # `put_once` keys (kept for good)
    projections: dict[str, dict[str, str]] = field(default_factory=dict)
    checkpoints: dict[int, str] = field(default_factory=dict)
    notices: dict[int, list[Notice]] = field(default_factory=dict)
    counter: int = 0
    leases: dict[int, tuple[str, float]] = field(default_factory=dict)
    """shard -> (token `<owner>:<fence>`, expiry on `time.monotonic`)."""
    fences: dict[int, int] = field(default_factory=dict)
    """shard -> its fencing counter (grows with every acquisition)."""
    members: dict[str, float] = field(default_factory=dict)
    """live projector owner -> membership expiry (`time.monotonic`)."""
    trimmed_to: dict[int, str] = field(default_factory=dict)
    """shard -> the last feed id trimmed from its feed (none: never trimmed)."""
    waiters: list[asyncio.Future[None]] = field(default_factory=list, repr=False)

    def next_id(self) -> str:
        self.counter += 1
        return f"1-{self.counter}"

    def lease_token(self, shard: int) -> str | None:
        """The token holding `shard`'s lease now (None: none, or lapsed)."""
        held = self.leases.get(shard)
        if held is None or held[1] <= time.monotonic():
            return None
        return held[0]

    def notify(self) -> None:
        """Wake every reader waiting in `changed` (a feed entry or a notice was added)."""
        waiters, self.waiters = self.waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    async def changed(self, timeout_s: float) -> None:
        """Wait until the next `notify`, at most `timeout_s` seconds."""
        waiter = asyncio.get_running_loop().create_future()
        self.waiters.append(waiter)
        try:
            async with asyncio.timeout(timeout_s):
                await waiter
        except TimeoutError:
            pass
        finally:
            if waiter in self.waiters:
                self.waiters.remove(waiter)


class MemoryEventLog(EventLogBase):
    """`EventLog` in memory. It `keeps_names` in `backend.names` (what `MemoryPlayerNames` on
    the same backend reads), once the batch passed its checks, as the Redis append script."""

    keeps_names = True

    def __init__(self, backend: MemoryBackend) -> None:
        self.b = backend

    async def append_one(self, request: AppendRequest) -> AppendResult:
        """See `EventLog.append_one`."""
        return self._append(request, datetime.now(UTC))

    def _append(self, request: AppendRequest, now: datetime) -> AppendResult:
        game_id = request.game_id
        check_stream(game_id, request.events)
        known = self.b.ids.get(game_id, {})
        version = before = len(self.b.logs.get(game_id, []))
        check_credential(game_id, request.credential, self.b.digests.get(game_id), version)
        if request.expected_head:  # "" unchecked, as the Redis script
            log = self.b.logs.get(game_id, [])
            head = str(json.loads(log[-1])["event_id"]) if log else EMPTY_HEAD
            if head != request.expected_head:
                raise HeadMismatch(version)
        plan, version = plan_append(request.events, version, known)
        if request.names and version > before:  # checked, storing: first writer wins
            kept = self.b.names.setdefault(game_id, {})
            for player_id, name in request.names:
                kept.setdefault(player_id, name)
        live = request.projection
        projecting = live is not None and before < version == live.seq
        projecting = projecting and self._may_project(game_id, before)
        out = []
        shard = shard_of(game_id, self.b.shards)
        for event, seq, dup in plan:
            if dup:
                out.append(AppendedEvent(str(event.event_id), seq, None, True))
                continue
            data = dump_event_json(event.with_recorded_at(now)).encode()
            self.b.logs.setdefault(game_id, []).append(data)
            self.b.ids.setdefault(game_id, {})[str(event.event_id)] = seq
            feed_id = self.b.next_id()
            entry = FeedEntry(feed_id, game_id, seq, data, projecting)
            self.b.feeds.setdefault(shard, []).append(entry)
            if seq == 1 and request.credential:
                self.b.digests[game_id] = request.credential
            out.append(AppendedEvent(str(event.event_id), seq, feed_id, False))
        if projecting and live is not None:
            self._project(game_id, live)
        self.b.notify()
        return AppendResult(tuple(out), version)

    def _may_project(self, game_id: str, before: int) -> bool:
        """An append from `before` stores its live projection (as `redis.live_lua` decides):
        over a projection at `before`, not held, of a game with no forgotten player."""
        proj = self.b.projections.get(game_id, {})
        forgotten = "" in self.b.names.get(game_id, {}).values()
        return not forgotten and "held" not in proj and int(proj.get("seq", 0)) == before

    def _project(self, game_id: str, live: LiveProjection) -> None:
        """Store `live` as the Redis append script does (`redis.live_lua`), with one change
        notice (`_may_project` said it may)."""
        proj = self.b.projections.get(game_id, {})
        view = live.view_json.decode()
        self.b.projections[game_id] = proj | {
            "seq": str(live.seq), "status": live.status, "game": live.game,
            "standings": live.standings_json, "updated_at": live.updated_at, "view": view,
            "view_seq": str(live.seq) if view else "", "live": "1",
        }  # fmt: skip
        shard = shard_of(game_id, self.b.shards)
        notices = self.b.notices.setdefault(shard, [])
        notices.append(Notice(shard, self.b.next_id(), game_id, live.seq))
        del notices[: max(0, len(notices) - live.changes_maxlen)]

    async def append_many(
        self, requests: Sequence[AppendRequest]
    ) -> list[AppendResult | VersionConflict | CredentialMismatch]:
        """See `EventLog.append_many`."""
        now = datetime.now(UTC)
        outcomes: list[AppendResult | VersionConflict | CredentialMismatch] = []
        for request in requests:
            try:
                outcomes.append(self._append(request, now))
            except (VersionConflict, CredentialMismatch) as refused:
                outcomes.append(refused)
        return outcomes

    async def version(self, game_id: str) -> int:
        return len(self.b.logs.get(game_id, []))

    async def versions(self, game_ids: Sequence[str]) -> list[int]:
        return [len(self.b.logs.get(g, [])) for g in game_ids]

    async def stored_seqs(
        self, game_id: str, event_ids: Sequence[str]
    ) -> tuple[int, list[int | None]]:
        """See `EventLog.stored_seqs`."""
        known = self.b.ids.get(game_id, {})
        return len(self.b.logs.get(game_id, [])), [known.get(e) for e in event_ids]

    async def confirm_replicated(self, game_id: str, event_id: str) -> None:
        """See `EventLog.confirm_replicated`: memory has no replicas."""

    async def read_raw(
        self, game_id: str, from_seq: int = 1, to_seq: int | None = None
    ) -> list[bytes]:
        log = self.b.logs.get(game_id, [])
        return log[from_seq - 1 : to_seq if to_seq is not None else len(log)]

    async def read(
        self, game_id: str, from_seq: int = 1, to_seq: int | None = None
    ) -> list[Envelope]:
        return [parse_event_json(d) for d in await self.read_raw(game_id, from_seq, to_seq)]

    async def list_games(self, after: str | None = None, limit: int = 1000) -> GamesPage:
        ids = sorted(g for g in self.b.logs if after is None or g > after)
        page = tuple(ids[:limit])
        return GamesPage(page, page[-1] if len(ids) > limit else None)


class MemoryCredentials:
    """`Credentials` in memory."""

    def __init__(self, backend: MemoryBackend) -> None:
        self.b = backend

    async def lookup(self, game_id: str) -> CredentialLookup:
        return CredentialLookup(self.b.digests.get(game_id), len(self.b.logs.get(game_id, [])))

    async def lookup_many(self, game_ids: Sequence[str]) -> list[CredentialLookup]:
        return [await self.lookup(g) for g in game_ids]


class MemoryDeadLetters:
    """`DeadLetters` in memory (the reason is round-tripped through JSON, as Redis does)."""

    def __init__(self, backend: MemoryBackend) -> None:
        self.b = backend

    async def put(self, letter: DeadLetter) -> str:
        reason = json.loads(json.dumps(dict(letter.reason), default=str))
        context: dict[str, str | int] = {k: str(v) for k, v in letter.context.items()}
        kept = DeadLetter(letter.raw, reason, letter.source, context)
        letter_id = self.b.next_id()
        self.b.letters.append(StoredLetter(letter_id, kept, datetime.now(UTC).isoformat()))
        return letter_id

    async def read(self, count: int = 100) -> list[StoredLetter]:
        return self.b.letters[:count]

    async def put_once(self, letter: DeadLetter, once: str, keep_s: float) -> str | None:
        if once in self.b.letters_once:
            return None
        self.b.letters_once.add(once)
        return await self.put(letter)

    async def trim(self, keep_s: float, now_ms: int) -> int:
        bound = datetime.fromtimestamp((now_ms - keep_s * 1000) / 1000, UTC)
        kept = [s for s in self.b.letters if datetime.fromisoformat(s.time) >= bound]
        trimmed = len(self.b.letters) - len(kept)
        self.b.letters[:] = kept
        return trimmed

    async def scrub(self, game_id: str, replacements: Sequence[tuple[str, str]]) -> int:
        """See `DeadLetters.scrub`: a changed letter moves to the end under a new id, as on
        Redis (`time` kept, so `trim` keeps it no longer)."""
        changed = 0
        for stored in list(self.b.letters):
            raw = scrubbed(stored.letter, game_id, replacements)
            if raw is None:
                continue
            first = stored.letter.context.get(SCRUBBED_FROM, stored.letter_id)
            context = {**stored.letter.context, SCRUBBED_FROM: first}
            letter = dataclasses.replace(stored.letter, raw=raw, context=context)
            self.b.letters.remove(stored)
            self.b.letters.append(StoredLetter(self.b.next_id(), letter, stored.time))
            changed += 1
        return changed
