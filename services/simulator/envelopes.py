"""Wrap payloads into envelopes for one simulated table: seq 1..N, seeded event ids, table time.

Every random choice comes from the table's `random.Random`, so a (seed, table) pair always
yields the same log byte for byte. Envelope shape: contracts/envelope.py.
"""

from __future__ import annotations

import random
import uuid
from datetime import UTC, datetime, timedelta

from contracts.envelope import Envelope, Payload
from contracts.events import ENVELOPE_BY_TYPE

EPOCH = datetime(2026, 11, 30, 18, 0, tzinfo=UTC)
"""Table time of the first simulated game (table k starts k minutes later)."""


class EnvelopeFactory:
    """Builds the envelopes of one game in order.

    Args:
        game_id: the game (and stream) id.
        rng: the table's random source (event ids and time gaps come from it).
        actor: who reports the events (a table integration id).
        start: table time of seq 1; each later event is 5-90 s after the previous one.
    """

    def __init__(
        self, game_id: str, rng: random.Random, actor: str, start: datetime = EPOCH
    ) -> None:
        self.game_id = game_id
        self.rng = rng
        self.actor = actor
        self.now = start
        self.seq = 0

    def new_id(self) -> uuid.UUID:
        """A version-4 UUID drawn from the table's rng (reproducible, unlike `uuid.uuid4`)."""
        return uuid.UUID(int=self.rng.getrandbits(128), version=4)

    def add(self, payload: Payload) -> Envelope:
        """The next envelope (seq + 1) carrying `payload`, validated by its typed envelope model."""
        self.seq += 1
        if self.seq > 1:
            self.now += timedelta(seconds=self.rng.randint(5, 90))
        return ENVELOPE_BY_TYPE[payload.TYPE](
            event_id=self.new_id(),
            game_id=self.game_id,
            seq=self.seq,
            type=payload.TYPE,
            schema_version=payload.SCHEMA_VERSION,
            occurred_at=self.now,
            actor=self.actor,
            payload=payload,
        )
