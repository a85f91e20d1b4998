"""`TournamentLog` in memory (tests, the offline `scoreledger tournament simulate`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from contracts.tournament import TournamentEnvelope, parse_tournament_event_json
from services.ports.errors import CredentialMismatch, VersionConflict
from services.ports.eventlog import AppendedEvent, AppendResult


@dataclass
class MemoryTournamentLog:
    """Streams as lists of stored JSON; event ids -> seq per stream; token digests."""

    logs: dict[str, list[bytes]] = field(default_factory=dict)
    ids: dict[str, dict[str, int]] = field(default_factory=dict)
    digests: dict[str, str] = field(default_factory=dict)

    async def append(
        self,
        tournament_id: str,
        events: Sequence[TournamentEnvelope],
        credential: str | None = None,
    ) -> AppendResult:
        """See `TournamentLog.append`."""
        for event in events:
            if event.tournament_id != tournament_id:
                raise ValueError(
                    f"tournament_id: event {event.event_id} is for {event.tournament_id}"
                )
        log = self.logs.get(tournament_id, [])
        version, known = len(log), self.ids.get(tournament_id, {})
        stored = self.digests.get(tournament_id)
        if credential and (
            (stored is not None and stored != credential) or (stored is None and version)
        ):
            raise CredentialMismatch(tournament_id)
        plan: list[tuple[TournamentEnvelope, int, bool]] = []
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
                self.logs.setdefault(tournament_id, []).append(data)
                self.ids.setdefault(tournament_id, {})[str(event.event_id)] = seq
                if seq == 1 and credential:
                    self.digests[tournament_id] = credential
            out.append(AppendedEvent(str(event.event_id), seq, None, dup))
        return AppendResult(tuple(out), version)

    async def digest(self, tournament_id: str) -> str | None:
        """See `TournamentLog.digest`."""
        return self.digests.get(tournament_id)

    async def version(self, tournament_id: str) -> int:
        """See `TournamentLog.version`."""
        return len(self.logs.get(tournament_id, []))

    async def read(
        self, tournament_id: str, from_seq: int = 1, to_seq: int | None = None
    ) -> list[TournamentEnvelope]:
        """See `TournamentLog.read`."""
        log = self.logs.get(tournament_id, [])
        chunk = log[from_seq - 1 : to_seq if to_seq is not None else len(log)]
        return [parse_tournament_event_json(d) for d in chunk]
