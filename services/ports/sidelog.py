"""The side-log port: an append-only event stream per id beside the games' logs, one kind per
envelope type (tournaments, `ports.tournaments`; leagues, `ports.leagues`). No shard feed, no
game index: side streams are few and are folded on read.

Same append contract as `services.ports.eventlog.EventLog`: every event carries its expected
version (`seq - 1`), a batch is all or nothing, a known `event_id` is a duplicate (its original
seq, nothing written), and the creating append stores the organiser's token digest
(`credential`), which every later append must carry.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from contracts.envelope import StreamBody, check_stream
from services.ports.eventlog import AppendResult, StreamLog

E = TypeVar("E", bound=StreamBody)
"""A side stream's envelope: any kind of the stream kernel (`contracts.envelope.StreamBody`)."""


@dataclass(frozen=True, slots=True)
class SideStream(Generic[E]):
    """One kind of side stream, its one registry line: `field`, the envelope's field naming
    the stream (`tournament_id`), `parse_json`, an event from its stored JSON (raises
    pydantic.ValidationError), and `prefix`, the kind's namespace among side streams (put
    before a stream id in the stored keys: "" tournaments, "@league/" leagues; no stream id
    starts with `@`, so two kinds never share keys)."""

    field: str
    parse_json: Callable[[bytes], E]
    prefix: str = ""

    def stream_of(self, event: E) -> str:
        """The id of the stream `event` belongs to (its `field`)."""
        return event.stream_id()

    def check(self, stream_id: str, events: Sequence[E]) -> None:
        """Raises ValueError (naming `field`) when an event is not of stream `stream_id`
        (the kernel's check, `contracts.envelope.check_stream`)."""
        check_stream(stream_id, events)


class SideLog(StreamLog[E], Protocol[E]):
    """Append and read the side streams of one kind; `stream_id` is a tournament's or a
    league's id. Implementations: `adapters.memory.sidelog`, `adapters.redis.sidelog`."""

    async def append(
        self, stream_id: str, events: Sequence[E], credential: str | None = None
    ) -> AppendResult:
        """Append `events` in order, all or nothing; stamps `recorded_at`.

        Raises:
            VersionConflict: an event's `seq - 1` is not the version reached; nothing written.
            CredentialMismatch: `credential` is not the stored digest (or the stream exists
                without one); nothing written.
            ValueError: an event's stream id (`tournament_id`, `league_id`) is not `stream_id`.
            ReplicasUnconfirmed: (Redis, `SCORELEDGER_APPEND_REPLICAS`) stored, but too few
                replicas confirmed it in time; a retry with the same ids is a duplicate.
        """
        ...

    async def digest(self, stream_id: str) -> str | None:
        """The organiser token's stored digest (None: no stream, or none stored), for the
        doors' authorization check before anything else is read."""
        ...

    async def version(self, stream_id: str) -> int:
        """The number of events stored (0: unknown stream)."""
        ...

    async def read(self, stream_id: str, from_seq: int = 1, to_seq: int | None = None) -> list[E]:
        """Events `from_seq..to_seq` (inclusive), parsed."""
        ...

    async def streams(self, limit: int) -> list[str]:
        """The ids of at most `limit` streams of this kind, the most recently created first
        (a list page: `GET /tournaments`)."""
        ...
