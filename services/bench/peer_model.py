"""The peer's aggregate (eventsourcing needs it at module level: its topics are cached by
class path). Imported only by `services.bench.peer.peer_rate` (the `bench` dependency group)."""

from __future__ import annotations

import uuid

from eventsourcing.domain import Aggregate, event


class GameLog(Aggregate):
    """One game: the envelope JSON lines in order (one library event per game event)."""

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        self.lines: list[str] = []

    @classmethod
    def create_id(cls, game_id: str) -> uuid.UUID:
        return uuid.uuid5(uuid.NAMESPACE_URL, game_id)

    @event("Recorded")
    def record(self, line: str) -> None:
        self.lines.append(line)
