"""The event store: the source of truth (append with expected version and dedupe, read, export).

Public: `EventStore` (raw), `CheckedEventStore` (domain-checked append, used by ingest),
`AppendResult`, `AppendedEvent`, `VersionConflict`.
"""

from services.store.checked import CheckedEventStore, StateCache
from services.store.errors import VersionConflict
from services.store.eventstore import AppendedEvent, AppendResult, EventStore

__all__ = [
    "AppendResult",
    "AppendedEvent",
    "CheckedEventStore",
    "EventStore",
    "StateCache",
    "VersionConflict",
]
