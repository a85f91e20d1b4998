"""The inbox's settling use case: the entries of one inbox stream, as its consumer group delivers
them, recorded, dead-lettered once when refused, and acked, each game's in stream order.

One `Inbox` settles one stream: the shared `Keys.inbox` (`sl:inbox`) or an integration's own
`Keys.integration_inbox(name)` (`sl:inbox:<name>`: docs/decisions/0019-hostile-input-at-every-door.md).
Each stream has its own group `ingest`, PEL, order check, reclaimer and retention
(`services.usecases.inbox.consumer`); order is kept per stream.

An entry is one XADD with fields `data` (or FastStream's `__data__`: one envelope JSON, or a
JSON array of envelopes of one game), `token` (the game's write token; an entry creating a
game carries the token its creator chose) and, where the deployment requires one,
`creator_key`. The handler translates each entry and calls the record use case
(`Record.record_entries`), exactly as HTTP does; a `Refusal` goes to the dead-letter port with
the raw body and the refusal's kind/rule/field/message plus the problem members HTTP would
answer (the door's `form`, `services.doors.ingest.inbox_entry.INBOX_FORM`; never a token). Everything it asks of
the stream (acks, a game's older pending entries, holds, trimming) goes through the
`InboxQueue` port (`services.ports.inbox`; on Redis `services.adapters.redis.inbox`).

Only a refusal (rules, contract, auth) is dead-lettered, once per entry, and a game's entries
are decided in stream order (docs/decisions/0011-faults-are-answered-not-crashed.md). The design, simplest first:

* **A Redis fault is waited out, not judged.** A delivery is settled in rounds; a round that
  meets a transient storage error (the ports' `StoreUnavailable`, `services.usecases.inbox.transient`) is retried whole with tenacity's
  exponential backoff until Redis answers. Retrying is safe: appends are idempotent by event
  id, and nothing else (letters, acks) is written before the round's appends succeeded. The
  handler does not return meanwhile, so this consumer reads nothing newer.
* **Per game, stream order.** A refused entry whose game still has an older entry pending in the
  group (`InboxQueue.pending_older`: read by some consumer, not yet acked) is not decided: it and the later entries of its
  game wait (rounds again, backoff, up to `ORDER_WAIT_S`; then, or at once when the older entry
  is one this consumer already left pending, they stay pending for the reclaimer and the
  consumer reads on). So an entry that only conflicts because its predecessor sits with another
  replica, or with a consumer that died holding it, is never dead-lettered; entries of other
  games go on. A conflict or an authorization refusal with no older entry pending is
  decided again on a fresh state before it is dead-lettered (the older one may have been
  applied between the append and the check); a rule or contract refusal stands
  (`STANDING_KINDS`).
* **Oversized entries deleted at once.** An entry over `max_entry_bytes` is lettered (its first
  `max_entry_bytes` kept), acked and deleted in the same round, so a hostile integration's
  40 MB entries do not stay in Redis for the inbox retention (a day).
* **Settled = acked at once.** Each round acks what it settled (recorded, or dead-lettered
  with `DeadLetters.put_once` keyed by the inbox id, `inbox:<id>`; on an integration's stream
  `inbox:<stream>:<id>`, so ids of two streams never meet: a redelivery letters nothing new)
  before anything waits, so two replicas never wait on each other; waiting entries are held
  (`InboxQueue.hold`: on Redis XCLAIM JUSTID, idle 0) each round so no claim takes them from a
  live consumer. Settled entries are trimmed by retention (`InboxQueue.trim`, after
  `inbox_keep_s`), but one that may name a player (`EntryForm.may_name`: a start event) is
  deleted with its ack, so no kept entry holds a name `forget` cannot reach (docs/forget.md).
  FastStream's ack policies cannot do this (they ack or leave a batch as a whole:
  `services.doors.ingest.inbox_app`), so acks are ours (`AckPolicy.MANUAL`).
* **One consumer name per replica** (`IngestSettings.inbox_consumer`, default
  `ingest-<hostname>-<pid>`: unique per process, and stable across container restarts, where
  the pid is 1). A `Reclaimer` (`services.usecases.inbox.reclaim`) settles this consumer's own
  pending entries at start-up and whenever nothing works on them (a read reply lost in a Redis
  restart); FastStream's claiming subscriber (`min_idle_time`) takes entries idle for
  `inbox_claim_idle_ms` from any consumer (a dead replica's). Neither waits on order: what
  they cannot decide yet stays pending for the next pass.

A poison entry (refused by a rule) is dead-lettered alone: nothing of it is stored, so the
table's next entry at the same seq is accepted. If the table sends none, every later entry of
that game is refused by version (`conflict`, expected > actual), as HTTP answers 409: the
game's log cannot skip a seq. Anything else raised (a bug, a non-transient store error)
leaves the delivery pending; the reclaimer tries it again.
"""

from __future__ import annotations

import math
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

import structlog

from services.platform.metrics import count_appended, count_refused
from services.ports.deadletters import DeadLetter, DeadLetters
from services.ports.inbox import InboxNames, InboxQueue, StreamHealth
from services.usecases.inbox.entries import EntryForm
from services.usecases.inbox.transient import Blocked, is_transient, until_redis_answers
from services.usecases.record import Record, Recorded
from services.usecases.refusal import Refusal

log = structlog.get_logger("inbox")
Follow = Callable[[str, bytes | None], Awaitable[object]]
"""Called with a recorded entry's game id and data (`TableGames.after_write`); never raises."""

ORDER_WAIT_S = 5.0
"""Longest a consumer waits, in one delivery, for an older entry of a game that another task
holds; then the waiting entries stay pending for the reclaimer and the consumer reads on."""


STANDING_KINDS = frozenset({"rule", "invalid"})
"""Refusals that stand once no older entry of their game is pending: a contract refusal does
not depend on the log, and a rule refusal was decided on the stored state at the event's own
version (`services.usecases.plan`), so deciding again on a newer state could only turn it into
a version conflict (a later entry of the game taking its seq) and hide the rule it broke."""


@dataclass(frozen=True, slots=True)
class Retention:
    """How long settled inbox entries and dead letters are kept (seconds), the least time
    between two trims, and the per-stream cap past which settled entries go at once
    (`IngestSettings.inbox_keep_s`, `dead_letter_keep_s`, `retention_every_s`,
    `inbox_max_len`)."""

    inbox_keep_s: float = 86_400.0
    dead_letter_keep_s: float = 30 * 86_400.0
    every_s: float = 10.0
    inbox_max_len: int | None = None  # entries per inbox stream past which settled ones go


@dataclass(slots=True)
class _Clock:
    """When a retention trim last ran (`time.monotonic()` seconds); one per trimmed stream, so
    the doors of a process share the dead-letter stream's."""

    at: float = -math.inf

    def due(self, every_s: float) -> bool:
        """True (and now is the last run) when `every_s` seconds have passed since it."""
        now = time.monotonic()
        if now - self.at < every_s:
            return False
        self.at = now
        return True


@dataclass(slots=True)
class _Delivery:
    """Entries being settled: `todo` (indexes, stream order) are not decided yet; `done` holds
    the ids decided (and acked) so far; `clear` the indexes of refusals for which no older
    entry of their game was pending (decided for good if refused again in a later round)."""

    ids: list[bytes]
    entries: list[dict[bytes, bytes]]
    todo: list[int]
    done: set[bytes] = field(default_factory=set)
    clear: set[int] = field(default_factory=set)


@dataclass(slots=True)
class _Sorted:
    """One round's outcomes by what becomes of them: `recorded`, `refused` (dead-lettered
    now), or undecided: `waiting` (an older entry of the game is in flight: retry soon),
    `parked` (its older entry is ours, left pending: the reclaimer's), `again` (refused on a
    state read before the PEL: decided again next round). `held` maps a game to the list its
    later refusals join; `decided` holds the ids settled so far."""

    decided: set[bytes]
    recorded: list[Recorded] = field(default_factory=list)
    refused: list[tuple[int, Refusal]] = field(default_factory=list)
    waiting: list[int] = field(default_factory=list)
    parked: list[int] = field(default_factory=list)
    again: list[int] = field(default_factory=list)
    held: dict[str, list[int]] = field(default_factory=dict)

    def refuse(self, d: _Delivery, i: int, refusal: Refusal) -> None:
        self.refused.append((i, refusal))
        self.decided.add(d.ids[i])

    def undecided(self) -> set[int]:
        return {*self.waiting, *self.again, *self.parked}


class Inbox:
    """Settles the entries of one inbox stream, `queue` (the `InboxQueue` port; the shared
    `keys.inbox` or an integration's): records them, dead-letters refusals once with
    `form.reason(refusal)` as the letter's reason, acks (see the module docstring)."""

    def __init__(
        self,
        queue: InboxQueue,
        keys: InboxNames,
        record: Record,
        letters: DeadLetters,
        retention: Retention | None = None,
        *,
        form: EntryForm,
        retry_cap_s: float = 2.0,
        max_entry_bytes: int | None = None,
        follow: Follow | None = None,
    ) -> None:
        self.queue = queue
        self.form = form  # the door's: how an entry reads, how its letter says why
        self.follow = follow  # after a recorded entry: tournament tables follow their games
        self.max_entry_bytes = max_entry_bytes  # None: unbounded (tests); as HTTP's body limit
        self.keys = keys
        self.stream = queue.stream
        self.record = record
        self.letters = letters
        self.retention = retention  # None: no trimming (tests that count every entry)
        self.retry_cap_s = retry_cap_s
        self.closing = False  # set on shutdown: retries stop, entries stay pending
        self.in_flight: set[bytes] = set()  # ids a task of this process is settling
        self._trimmed = _Clock()
        self._letters_trimmed = _Clock()

    def sibling(self, stream: str) -> Inbox:
        """The door of another inbox stream (an integration's): the same ports, retention and
        retries; its own PEL, in-flight ids and trim clock; the dead-letter stream's trim clock
        shared, so the letters are trimmed at most once per `every_s` by all doors together."""
        other = Inbox(
            self.queue.sibling(stream),
            self.keys,
            self.record,
            self.letters,
            self.retention,
            form=self.form,
            retry_cap_s=self.retry_cap_s,
            max_entry_bytes=self.max_entry_bytes,
            follow=self.follow,
        )
        other._letters_trimmed = self._letters_trimmed
        return other

    async def trim(self) -> tuple[int, int]:
        """Retention (`InboxQueue.trim`, `DeadLetters.trim`), each at most once per
        `retention.every_s`: (entries of this stream, dead letters) trimmed."""
        r = self.retention
        if r is None:
            return (0, 0)
        now_ms = int(time.time() * 1000)
        inbox = letters = 0
        if self._trimmed.due(r.every_s):
            inbox = await self.queue.trim(r.inbox_keep_s, now_ms, r.inbox_max_len)
        if self._letters_trimmed.due(r.every_s):
            letters = await self.letters.trim(r.dead_letter_keep_s, now_ms)
        return inbox, letters

    async def process(
        self,
        ids: list[bytes],
        entries: list[dict[bytes, bytes]],
        consumer: str | None = None,
        *,
        wait_s: float = ORDER_WAIT_S,
    ) -> None:
        """Settle a delivery of `consumer` (ids and field maps, stream order) in rounds: each
        round records what is not decided yet, dead-letters refusals that no older pending
        entry of their game may explain, and acks what it decided. Transient Redis faults are
        retried until Redis answers. An entry whose game has an older entry in flight elsewhere
        waits up to `wait_s` seconds; one whose older entry this consumer left pending, or that
        waited long enough, stays pending for the reclaimer. Raises only what is not transient
        (the undecided entries stay pending)."""
        delivery = _Delivery(ids, entries, list(range(len(ids))))
        self.in_flight.update(ids)
        try:
            while delivery.todo:
                retrying = until_redis_answers(
                    "inbox", self.retry_cap_s, lambda: self.closing, blocked_for_s=wait_s
                )
                async for attempt in retrying:
                    with attempt:
                        await self._round(delivery, consumer)
        except Blocked:
            pass  # waited long enough: the rest stays pending
        finally:
            self.in_flight.difference_update(ids)
        try:
            await self.trim()
        except Exception as error:  # retention is retried at the next delivery
            if not is_transient(error):
                raise
            log.warning("inbox.trim_failed", error=repr(error))

    async def _round(self, d: _Delivery, consumer: str | None) -> None:
        """Record `d.todo`; settle what is decided; raise `Blocked` if entries wait on order
        (a refusal cleared this round is decided by the next round, at once). An entry over
        `max_entry_bytes` is refused unread, as HTTP answers 413: its size never changes."""
        big = self._oversized(d)
        todo = [i for i in d.todo if i not in big]
        outcomes = await self.record.record_entries([self.form.entry(d.entries[i]) for i in todo])
        s = _Sorted(set(d.done))
        for i, refusal in big.items():
            s.refuse(d, i, refusal)
        for i, outcome in zip(todo, outcomes, strict=True):
            await self._sort(d, s, i, outcome, consumer)
        await self._settle(d, s, [d.ids[i] for i in big])
        await self._follow_recorded(d, todo, outcomes)
        if s.waiting and not s.again:
            if consumer is not None:  # a live consumer's entries: not for a reclaimer
                await self.queue.hold(consumer, [d.ids[i] for i in s.waiting])
            raise Blocked(f"{len(s.waiting)} entries wait for older ones of their games")

    async def _follow_recorded(
        self, d: _Delivery, todo: list[int], outcomes: Sequence[Recorded | Refusal]
    ) -> None:
        """After the round is settled: `follow` (tournament tables follow their games) for
        each entry of `todo` that was recorded, in order, with its game id and data; nothing
        without `follow`. `outcomes` are `todo`'s, in order."""
        if self.follow is None:
            return
        for i, outcome in zip(todo, outcomes, strict=True):
            game = self.form.game(d.entries[i])
            if isinstance(outcome, Recorded) and game is not None:
                await self.follow(game, self.form.entry(d.entries[i]).raw)

    async def _sort(
        self, d: _Delivery, s: _Sorted, i: int, outcome: Recorded | Refusal, consumer: str | None
    ) -> None:
        """File entry `i`'s outcome in `s`: recorded, refused for good, or undecided behind an
        older pending entry of its game (then every later refusal of the game joins it)."""
        if isinstance(outcome, Recorded):
            s.recorded.append(outcome)
            s.decided.add(d.ids[i])
            return
        game = self.form.game(d.entries[i])
        if game is not None and game in s.held:
            s.held[game].append(i)
            return
        if game is None or i in d.clear:
            s.refuse(d, i, outcome)
            return
        state = await self._older_pending(game, d.ids[i], s.decided, consumer)
        if state == "none" and outcome.kind in STANDING_KINDS:
            s.refuse(d, i, outcome)
            return
        if state == "none":  # refused on a state read before the PEL: decide again
            d.clear.add(i)
        s.held[game] = {"none": s.again, "busy": s.waiting, "parked": s.parked}[state]
        s.held[game].append(i)

    async def _settle(self, d: _Delivery, s: _Sorted, delete: list[bytes]) -> None:
        """Dead-letter `s.refused`, ack every decided entry (deleting `delete`: oversized,
        lettered with a bounded copy; and each that may name a player), count the appends;
        `d.todo` becomes what to retry."""
        for i, refusal in s.refused:
            await self._letter(d.ids[i], d.entries[i], refusal)
        undecided = s.undecided()
        settled = [i for i in d.todo if i not in undecided]
        if settled:
            # a kept entry would hold the name past a forget (docs/forget.md): gone once
            # recorded or lettered; an undecided one stays pending, or it would be lost
            gone = set(delete)  # oversized: deleted unread
            named = [
                d.ids[i]
                for i in settled
                if d.ids[i] not in gone and self.form.may_name(d.entries[i])
            ]
            await self.queue.ack([d.ids[i] for i in settled], [*delete, *named])
        for result in s.recorded:
            count_appended(result.result, "inbox")
        d.done.update(d.ids[i] for i in settled)
        d.todo = sorted({*s.waiting, *s.again})

    async def _older_pending(
        self, game: str, entry_id: bytes, decided: set[bytes], consumer: str | None
    ) -> str:
        """`none`: no older entry of `game` is pending; `parked`: only ones this consumer left
        pending (no task works on them); `busy`: one is in flight here or elsewhere."""
        older = await self.queue.pending_older(game, entry_id, decided)
        if not older:
            return "none"
        mine = all(h.consumer == consumer and h.entry_id not in self.in_flight for h in older)
        return "parked" if mine else "busy"

    def _oversized(self, d: _Delivery) -> dict[int, Refusal]:
        """The undecided entries of `d` whose fields (names and values) hold more than
        `max_entry_bytes`, each with its refusal `body.too_large` (HTTP's rule and field)."""
        limit = self.max_entry_bytes
        if limit is None:
            return {}
        message = f"an inbox entry is limited to {limit} bytes, as a request body"
        return {
            i: Refusal("invalid", "body.too_large", message, "body")
            for i in d.todo
            if sum(len(k) + len(v) for k, v in d.entries[i].items()) > limit
        }

    async def _letter(self, entry_id: bytes, fields: dict[bytes, bytes], refusal: Refusal) -> None:
        """Dead-letter a refusal once per entry: context `inbox_id` (and `inbox`, the stream,
        for an integration's stream), once-key `inbox:<id>` (`inbox:<stream>:<id>`). The raw
        kept is cut to `max_entry_bytes` (an oversized entry's first bytes)."""
        kept = self.form.raw(fields)
        if self.max_entry_bytes is not None:
            kept = kept[: self.max_entry_bytes]
        inbox_id = entry_id.decode()
        keep_s = (self.retention or Retention()).dead_letter_keep_s
        context, once = {"inbox_id": inbox_id}, f"inbox:{inbox_id}"
        if self.stream != self.keys.inbox:  # the shared stream's letters stay as they were
            context, once = {**context, "inbox": self.stream}, f"inbox:{self.stream}:{inbox_id}"
        reason = self.form.reason(refusal)
        letter = DeadLetter(kept, reason, "inbox", context)
        if await self.letters.put_once(letter, once, keep_s) is None:
            log.info("inbox.dead_letter_repeat", **context)
            return
        count_refused(refusal.kind, "inbox")
        log.warning("inbox.dead_letter", **context, reason=reason)

    async def process_one(self, entry_id: str, fields: dict[bytes, bytes]) -> None:
        """Settle one entry (validate, append, or dead-letter). Raises only on Redis errors."""
        await self.process([entry_id.encode()], [fields])

    async def ensure_group(self) -> None:
        """Create the consumer group at `0` (so entries XADDed before the first start count)."""
        await self.queue.ensure_group()

    async def guard(self) -> StreamHealth:
        """Keep the stream readable (`InboxQueue.guard`): a lost group re-created at 0, an
        exhausted stream renewed once nothing is pending; what was found."""
        return await self.queue.guard()
