"""In-memory adapters of every port, sharing one `MemoryBackend` (tests, `make test-fast`).

Same contract as the Redis adapters (`tests/contract/` runs one suite against both): appends
all or nothing with expected version and event-id dedupe, the credential digest stored with
the creating append, projections and checkpoints changed together. Not for production: one
process, nothing durable. Feed ids are `1-<n>` (n counts every id the backend handed out).
A reader that waits (`ShardFeeds.read`, `ChangeNotices.read` with `block_ms`) is woken by the
next append, notice or release (`MemoryBackend.notify`). Leases and the shard feeds' reads:
`memory.leases`, `memory.feeds`.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from contracts.envelope import Envelope
from contracts.events import dump_event_json, parse_event_json
from services.adapters.memory.appendplan import check_credential, plan_append
from services.ports.credentials import CredentialLookup
from services.ports.deadletters import DeadLetter, StoredLetter
from services.ports.errors import CredentialMismatch, HeadMismatch, LeaseLost, VersionConflict
from services.ports.eventlog import (
    AppendedEvent,
    AppendRequest,
    AppendResult,
    FeedEntry,
    GamesPage,
)
from services.ports.leases import ShardLease
from services.ports.notices import Notice
from services.ports.projections import (
    START_ID,
    HeldGame,
    ProjectionBatch,
    ProjectionHead,
    StoredProjection,
    StoredStandings,
    WriteOutcome,
    feed_id_key,
    held_game,
)
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


class MemoryEventLog:
    """`EventLog` in memory."""

    def __init__(self, backend: MemoryBackend) -> None:
        self.b = backend

    async def append(
        self,
        game_id: str,
        events: Sequence[Envelope],
        credential: str | None = None,
        expected_head: str | None = None,
    ) -> AppendResult:
        """See `EventLog.append`."""
        request = AppendRequest(game_id, events, credential, expected_head)
        return self._append(request, datetime.now(UTC))

    def _append(self, request: AppendRequest, now: datetime) -> AppendResult:
        game_id = request.game_id
        for event in request.events:
            if event.game_id != game_id:
                raise ValueError(f"game_id: event {event.event_id} is for {event.game_id}")
        known = self.b.ids.get(game_id, {})
        version = len(self.b.logs.get(game_id, []))
        check_credential(game_id, request.credential, self.b.digests.get(game_id), version)
        if request.expected_head:  # "" unchecked, as the Redis script
            log = self.b.logs.get(game_id, [])
            head = str(json.loads(log[-1])["event_id"]) if log else ""
            if head != request.expected_head:
                raise HeadMismatch(version)
        plan, version = plan_append(request.events, version, known)
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
            self.b.feeds.setdefault(shard, []).append(FeedEntry(feed_id, game_id, seq, data))
            if seq == 1 and request.credential:
                self.b.digests[game_id] = request.credential
            out.append(AppendedEvent(str(event.event_id), seq, feed_id, False))
        self.b.notify()
        return AppendResult(tuple(out), version)

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


class MemoryProjections:
    """`FencedProjections` in memory: a held shard's write is refused (`LeaseLost`, nothing
    written) unless its token holds the shard's lease with the newest fence, as on Redis."""

    def __init__(self, backend: MemoryBackend) -> None:
        self.b = backend
        self.leases: dict[int, ShardLease] = {}

    async def prepare(self) -> None:
        """Nothing to load."""

    def hold_lease(self, lease: ShardLease) -> None:
        self.leases[lease.shard] = lease

    def drop_lease(self, shard: int) -> None:
        self.leases.pop(shard, None)

    def _check_fence(self, shard: int) -> None:
        lease = self.leases.get(shard)
        if lease is None:
            return
        if self.b.lease_token(shard) != lease.token:
            raise LeaseLost(shard, "lease")
        if self.b.fences.get(shard) != lease.fence:
            raise LeaseLost(shard, "fence")

    async def fields(self, game_ids: Sequence[str]) -> list[dict[str, str]]:
        return [dict(self.b.projections.get(g, {})) for g in game_ids]

    async def checkpoint(self, shard: int) -> str:
        return self.b.checkpoints.get(shard, START_ID)

    async def heads(self, game_ids: Sequence[str]) -> list[ProjectionHead]:
        out = []
        for game_id in game_ids:
            raw = self.b.projections.get(game_id, {})
            held = raw.get("held")
            seq = int(raw.get("seq", 0))
            out.append(
                ProjectionHead(seq, int(held) if held else None, raw.get("held_reason") or None)
            )
        return out

    async def write(self, batch: ProjectionBatch, changes_maxlen: int) -> WriteOutcome:
        self._check_fence(batch.shard)
        stored = self.b.checkpoints.get(batch.shard)
        moves = batch.last_feed_id != ""  # "": a reseed, the checkpoint stays
        if moves and stored is not None and feed_id_key(batch.last_feed_id) <= feed_id_key(stored):
            return WriteOutcome(stale=True)
        skipped = set()
        for op in batch.ops:
            proj = self.b.projections.setdefault(op.game_id, {})
            if op.kind == "hold":
                if "held" not in proj:
                    proj.update(held=str(op.seq), held_reason=op.reason_json)
            elif "held" in proj or int(proj.get("seq", 0)) != op.base_seq:
                skipped.add(op.game_id)
            else:
                proj.update(
                    seq=str(op.seq),
                    status=op.status,
                    game=op.game,
                    standings=op.standings_json,
                    updated_at=batch.updated_at,
                    view=op.view_json.decode(),
                    view_seq=str(op.seq) if op.view_json else "",
                )
                notices = self.b.notices.setdefault(batch.shard, [])
                notices.append(Notice(batch.shard, self.b.next_id(), op.game_id, op.seq))
                del notices[: max(0, len(notices) - changes_maxlen)]
        if moves:
            self.b.checkpoints[batch.shard] = batch.last_feed_id
        self.b.notify()
        return WriteOutcome(False, frozenset(skipped))

    def _stored(self, game_id: str, checkpoint: str | None) -> StoredProjection | None:
        raw = self.b.projections.get(game_id, {})
        if not raw.get("standings"):
            return None
        return StoredProjection(
            int(raw["seq"]),
            raw["status"],
            raw["game"],
            raw["standings"],
            raw.get("updated_at"),
            checkpoint,
        )

    async def get(self, game_id: str) -> StoredProjection | None:
        shard = shard_of(game_id, self.b.shards)
        return self._stored(game_id, self.b.checkpoints.get(shard))

    async def get_many(self, game_ids: Sequence[str]) -> list[StoredProjection | None]:
        return [self._stored(g, None) for g in game_ids]

    async def standings(self, game_id: str) -> StoredStandings | None:
        stored = await self.get(game_id)
        if stored is None:
            return None
        raw = self.b.projections[game_id]  # the view of the stored seq, as the Redis script
        view = raw["view"].encode() if raw.get("view") and raw["view_seq"] == raw["seq"] else None
        standings = None if view else stored.standings_json.encode()
        return StoredStandings(standings, stored.updated_at, stored.checkpoint, view)

    async def lag(self, cap: int) -> int:
        total = 0
        for shard, feed in self.b.feeds.items():
            ckpt = feed_id_key(self.b.checkpoints.get(shard, START_ID))
            total += min(cap + 1, sum(1 for e in feed if feed_id_key(e.feed_id) > ckpt))
        return total

    async def held(self, limit: int) -> tuple[int, list[HeldGame]]:
        held = [
            held_game(g, p.get("held_reason", ""))
            for g, p in sorted(self.b.projections.items())
            if "held" in p
        ]
        return len(held), held[:limit]

    async def release(self, game_id: str, held_seq: int, seq: int, data: bytes) -> bool:
        proj = self.b.projections.get(game_id, {})
        if proj.get("held") != str(held_seq):
            return False
        proj.pop("held")
        proj.pop("held_reason", None)
        if seq > 0:
            entry = FeedEntry(self.b.next_id(), game_id, seq, data)
            self.b.feeds.setdefault(shard_of(game_id, self.b.shards), []).append(entry)
            self.b.notify()
        return True


class MemoryChangeNotices:
    """`ChangeNotices` in memory (with `block_ms`, an empty read waits that long for a notice)."""

    def __init__(self, backend: MemoryBackend) -> None:
        self.b = backend

    async def tail(self, shard: int) -> str:
        notices = self.b.notices.get(shard, [])
        return notices[-1].entry_id if notices else START_ID

    async def tails(self, shards: Sequence[int]) -> list[str]:
        return [await self.tail(shard) for shard in shards]

    def _after(self, after: Mapping[int, str], count: int) -> list[Notice]:
        out: list[Notice] = []
        for shard, pos in after.items():
            key = feed_id_key(pos)
            fresh = [n for n in self.b.notices.get(shard, []) if feed_id_key(n.entry_id) > key]
            out += fresh[:count]
        return out

    async def read(
        self, after: Mapping[int, str], count: int = 500, block_ms: int | None = None
    ) -> Sequence[Notice]:
        out = self._after(after, count)
        if not out and block_ms:
            await self.b.changed(block_ms / 1000)
            out = self._after(after, count)
        return out

    async def changed_since(
        self, game_id: str, after: str, limit: int | None = None
    ) -> Notice | None:
        shard = shard_of(game_id, self.b.shards)
        try:
            key = feed_id_key(after)
        except ValueError:
            raise ValueError(f"not a notice id: {after[:40]!r}") from None
        later = [n for n in self.b.notices.get(shard, []) if feed_id_key(n.entry_id) > key]
        hits = [n for n in later[:limit] if n.game_id == game_id]
        return hits[-1] if hits else None
