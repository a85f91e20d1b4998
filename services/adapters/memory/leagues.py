"""`LeagueLog` in memory (tests)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from contracts.league import LeagueEnvelope, parse_league_event_json
from services.ports.errors import CredentialMismatch, VersionConflict
from services.ports.eventlog import AppendedEvent, AppendResult


@dataclass
class MemoryLeagueLog:
    """Streams as lists of stored JSON; event ids -> seq per stream; token digests."""

    logs: dict[str, list[bytes]] = field(default_factory=dict)
    ids: dict[str, dict[str, int]] = field(default_factory=dict)
    digests: dict[str, str] = field(default_factory=dict)

    async def append(
        self,
        league_id: str,
        events: Sequence[LeagueEnvelope],
        credential: str | None = None,
    ) -> AppendResult:
        """See `LeagueLog.append`."""
        for event in events:
            if event.league_id != league_id:
                raise ValueError(f"league_id: event {event.event_id} is for {event.league_id}")
        log = self.logs.get(league_id, [])
        version, known = len(log), self.ids.get(league_id, {})
        stored = self.digests.get(league_id)
        if credential and (
            (stored is not None and stored != credential) or (stored is None and version)
        ):
            raise CredentialMismatch(league_id)
        plan: list[tuple[LeagueEnvelope, int, bool]] = []
        seen: dict[str, int] = {}
        for event in events:
            eid = str(event.event_id)
            original = seen.get(eid, known.get(eid))
            if original is not None:
                plan.append((event, original, True))
                continue
            if event.seq - 1 != version:
                raise VersionConflict(event.seq - 1, version)
            version = seen[eid] = event.seq
            plan.append((event, event.seq, False))
        now = datetime.now(UTC)
        out = []
        for event, seq, dup in plan:
            if not dup:
                data = event.with_recorded_at(now).model_dump_json().encode()
                self.logs.setdefault(league_id, []).append(data)
                self.ids.setdefault(league_id, {})[str(event.event_id)] = seq
                if seq == 1 and credential:
                    self.digests[league_id] = credential
            out.append(AppendedEvent(str(event.event_id), seq, None, dup))
        return AppendResult(tuple(out), version)

    async def digest(self, league_id: str) -> str | None:
        """See `LeagueLog.digest`."""
        return self.digests.get(league_id)

    async def version(self, league_id: str) -> int:
        """See `LeagueLog.version`."""
        return len(self.logs.get(league_id, []))

    async def read(
        self, league_id: str, from_seq: int = 1, to_seq: int | None = None
    ) -> list[LeagueEnvelope]:
        """See `LeagueLog.read`."""
        log = self.logs.get(league_id, [])
        chunk = log[from_seq - 1 : to_seq if to_seq is not None else len(log)]
        return [parse_league_event_json(d) for d in chunk]
