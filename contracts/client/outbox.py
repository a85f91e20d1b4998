"""An outbox that keeps each event's exact bytes, so that a resend is byte-identical.

The service answers a repeated `event_id` with the same body as a no-op (`duplicate: true`);
with a changed body it refuses it. Serialising an event again could change its bytes (a
float, a new optional field), so the outbox serialises each event once, when it is added,
and every attempt of a batch sends those bytes.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable

from contracts.envelope import Envelope
from contracts.events import dump_event_json

__all__ = ["MAX_BATCH", "Outbox"]

MAX_BATCH = 1000
"""Most events of one `POST /games/{id}/events` (the service's bound)."""


class Outbox:
    """The events of one game not yet acknowledged, in seq order, as their exact bytes.

    `add` takes contract models (`contracts.events.parse_event` / the payload classes) or
    already-serialised JSON (bytes, kept as they are); `batch` gives the next events as one
    JSON array body; `acknowledge` removes the events the service answered for.
    """

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        self._pending: OrderedDict[str, bytes] = OrderedDict()

    def add(self, event: Envelope, raw: bytes | None = None) -> None:
        """Keep `event` (its bytes: `raw` when given, else `dump_event_json(event)`).

        Raises: ValueError if the event is of another game, or its id is already pending
        with other bytes (a changed resend would be refused as a different event).
        """
        if event.game_id != self.game_id:
            raise ValueError(f"event of game {event.game_id!r}, outbox of {self.game_id!r}")
        data = raw if raw is not None else dump_event_json(event).encode()
        key = str(event.event_id)
        if self._pending.get(key, data) != data:
            raise ValueError(f"event {key} is pending with other bytes")
        self._pending[key] = data

    def extend(self, events: Iterable[Envelope]) -> None:
        """`add` each of `events`, in order."""
        for event in events:
            self.add(event)

    def batch(self, size: int = 100) -> tuple[list[str], bytes]:
        """The first `size` (1..1000) pending events: (their ids, the JSON array body made of
        their kept bytes). An empty outbox gives `([], b"")`."""
        if not 1 <= size <= MAX_BATCH:
            raise ValueError(f"batch size {size} is not in 1..{MAX_BATCH}")
        items = list(self._pending.items())[:size]
        if not items:
            return [], b""
        return [k for k, _ in items], b"[" + b",".join(v for _, v in items) + b"]"

    def acknowledge(self, event_ids: Iterable[str]) -> None:
        """Forget the events the service stored (or answered as duplicates)."""
        for key in event_ids:
            self._pending.pop(key, None)

    def __len__(self) -> int:
        return len(self._pending)
