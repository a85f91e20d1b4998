"""A side log in memory (`services.ports.sidelog.SideLog`): the tournament and league logs of
tests and of the offline `scoreledger tournament simulate`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Generic

from services.adapters.memory.appendplan import check_credential, plan_append
from services.ports.eventlog import AppendedEvent, AppendResult
from services.ports.sidelog import E, SideStream


@dataclass
class MemorySideLog(Generic[E]):
    """Streams of kind `stream` as lists of stored JSON; event ids -> seq per stream; token
    digests."""

    stream: SideStream[E]
    logs: dict[str, list[bytes]] = field(default_factory=dict)
    ids: dict[str, dict[str, int]] = field(default_factory=dict)
    digests: dict[str, str] = field(default_factory=dict)

    async def append(
        self, stream_id: str, events: Sequence[E], credential: str | None = None
    ) -> AppendResult:
        """See `SideLog.append`."""
        self.stream.check(stream_id, events)
        version = len(self.logs.get(stream_id, []))
        check_credential(stream_id, credential, self.digests.get(stream_id), version)
        plan, version = plan_append(events, version, self.ids.get(stream_id, {}))
        now = datetime.now(UTC)
        out = []
        for event, seq, dup in plan:
            if not dup:
                data = event.with_recorded_at(now).model_dump_json().encode()
                self.logs.setdefault(stream_id, []).append(data)
                self.ids.setdefault(stream_id, {})[str(event.event_id)] = seq
                if seq == 1 and credential:
                    self.digests[stream_id] = credential
            out.append(AppendedEvent(str(event.event_id), seq, None, dup))
        return AppendResult(tuple(out), version)

    async def digest(self, stream_id: str) -> str | None:
        """See `SideLog.digest`."""
        return self.digests.get(stream_id)

    async def version(self, stream_id: str) -> int:
        """See `SideLog.version`."""
        return len(self.logs.get(stream_id, []))

    async def read(self, stream_id: str, from_seq: int = 1, to_seq: int | None = None) -> list[E]:
        """See `SideLog.read`."""
        log = self.logs.get(stream_id, [])
        chunk = log[from_seq - 1 : to_seq if to_seq is not None else len(log)]
        return [self.stream.parse_json(d) for d in chunk]

    async def streams(self, limit: int) -> list[str]:
        """See `SideLog.streams` (the streams in creation order, reversed)."""
        return list(reversed(self.logs))[:limit]
