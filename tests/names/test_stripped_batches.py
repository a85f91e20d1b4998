"""`NamedEventLog` strips a start event's names wherever it stands in an appended batch, and
hands a batch with no start event on as it is (services/usecases/names.py: the batch's
distinct types are tested, not each event; docs/decisions/0014-names-outside-the-log.md)."""

from __future__ import annotations

from contracts.events import parse_event_json
from services.adapters.memory.names import MemoryPlayerNames
from services.adapters.memory.store import MemoryBackend, MemoryEventLog
from services.ports.eventlog import AppendRequest
from services.usecases.names import NamedEventLog
from tests.names.helpers import GAME, lines


def _named() -> tuple[NamedEventLog, MemoryBackend]:
    backend = MemoryBackend()
    return NamedEventLog(MemoryEventLog(backend), MemoryPlayerNames(backend)), backend


async def test_a_start_event_behind_others_in_a_batch_is_stripped() -> None:
    named, backend = _named()
    events = [parse_event_json(line) for line in lines()[:3]]
    request = AppendRequest(GAME, [events[1], events[0], events[2]])
    stripped = await named._stripped(request)
    start = stripped.events[1]
    names = {p.player_id: p.name for p in events[0].payload.players}  # type: ignore[attr-defined]
    assert dict(stripped.names) == names  # kept by the append (`keeps_names`)
    assert GAME not in backend.names
    assert all(p.name == p.player_id for p in start.payload.players)  # type: ignore[attr-defined]
    assert stripped.events[0] is events[1]
    assert stripped.events[2] is events[2]


async def test_a_batch_without_a_start_event_is_handed_on_as_it_is() -> None:
    named, backend = _named()
    events = [parse_event_json(line) for line in lines()[1:20]]
    request = AppendRequest(GAME, events)
    assert await named._stripped(request) is request
    assert GAME not in backend.names
