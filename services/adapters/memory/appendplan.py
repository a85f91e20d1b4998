"""The checks every memory log makes before an append writes (the Redis append scripts', in
Python): the writer's token digest, then each event's expected version with idempotent event
ids. Shared by the games' log (`store.MemoryEventLog`) and the side logs (`sidelog`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol, TypeVar
from uuid import UUID

from services.ports.errors import CredentialMismatch, VersionConflict


class _Keyed(Protocol):
    @property
    def event_id(self) -> UUID: ...

    @property
    def seq(self) -> int: ...


T = TypeVar("T", bound=_Keyed)


def check_credential(
    stream_id: str, credential: str | None, stored: str | None, version: int
) -> None:
    """A `credential` (None or "": unchecked) must be the `stored` digest; a stream that has
    events (`version` > 0) but no digest takes none. Raises: CredentialMismatch."""
    if credential and (
        (stored is not None and stored != credential) or (stored is None and version)
    ):
        raise CredentialMismatch(stream_id)


def plan_append(
    events: Sequence[T], version: int, known: Mapping[str, int]
) -> tuple[list[tuple[T, int, bool]], int]:
    """Each event with its seq and whether it is a duplicate (its id in `known`, id -> seq, or
    earlier in the batch: its original seq), and the version after the batch. A new event's
    `seq - 1` must be the version reached (the batch is checked whole before anything is
    written). Raises: VersionConflict (expected, actual)."""
    seen: dict[str, int] = {}
    plan: list[tuple[T, int, bool]] = []
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
    return plan, version
