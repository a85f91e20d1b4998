"""Build tournament event streams for tests: payloads in, envelopes with seq and stable ids out."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from contracts.envelope import Payload
from contracts.tournament import (
    PlayerRegistered,
    ResultLine,
    RoundClosed,
    RoundSeated,
    SeatedTablePayload,
    TableResultApproved,
    TableResultReported,
    TournamentCreated,
    TournamentEnvelope,
    parse_tournament_event,
)


class Stream:
    """Appends payloads as envelopes of tournament `tid` (seq 1, 2, ...)."""

    def __init__(self, tid: str = "cup-1") -> None:
        self.tid = tid
        self.events: list[TournamentEnvelope] = []

    def add(self, payload: Payload, actor: str = "organiser") -> TournamentEnvelope:
        seq = len(self.events) + 1
        raw: dict[str, Any] = {
            "event_id": str(uuid.uuid5(uuid.NAMESPACE_URL, f"{self.tid}/{seq}")),
            "tournament_id": self.tid,
            "seq": seq,
            "type": payload.TYPE,
            "schema_version": payload.SCHEMA_VERSION,
            "occurred_at": datetime(2026, 12, 1, 10, 0, seq % 60, tzinfo=UTC).isoformat(),
            "actor": actor,
            "payload": payload.model_dump(mode="json"),
        }
        event = parse_tournament_event(raw)
        self.events.append(event)
        return event

    def create(self, **settings: Any) -> Stream:
        self.add(TournamentCreated(title="Cup", **{"game": "trickerion", "rounds": 3, **settings}))
        return self

    def register(self, *ids: str) -> Stream:
        for pid in ids:
            self.add(PlayerRegistered(player_id=pid, name=pid.upper()))
        return self

    def seat(self, number: int, *tables: tuple[str, ...], byes: tuple[str, ...] = ()) -> Stream:
        seated = tuple(
            SeatedTablePayload(number=i, players=t, reason="test") for i, t in enumerate(tables, 1)
        )
        self.add(RoundSeated(round=number, tables=seated, byes=byes, reason="test"))
        return self

    def result(
        self, number: int, table: int, *lines: tuple[str, int, int], approve: bool = True
    ) -> Stream:
        results = tuple(ResultLine(player_id=p, place=pl, score=s) for p, pl, s in lines)
        self.add(TableResultReported(round=number, table=table, results=results, reported_by="t"))
        if approve:
            self.add(TableResultApproved(round=number, table=table, judge="judge"))
        return self

    def close(self, number: int) -> Stream:
        self.add(RoundClosed(round=number))
        return self
