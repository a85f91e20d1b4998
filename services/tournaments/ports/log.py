"""The tournament-log port: each tournament's append-only event stream, a side log
(`services.ports.sidelog`: the games' append contract, the organiser token's digest stored by
the creating append and required by every later one), keyed by the tournament id.
"""

from __future__ import annotations

from typing import Protocol

from contracts.tournament import TournamentEnvelope, parse_tournament_event_json
from services.ports.errors import CredentialMismatch, VersionConflict
from services.ports.eventlog import AppendResult
from services.ports.sidelog import SideLog, SideStream

__all__ = [
    "TOURNAMENTS",
    "AppendResult",
    "CredentialMismatch",
    "TournamentLog",
    "VersionConflict",
]


class TournamentLog(SideLog[TournamentEnvelope], Protocol):
    """Append and read tournament streams (`stream_id`: the tournament id).
    Implementations: `adapters.memory.tournaments`, `adapters.redis.tournaments`."""


TOURNAMENTS: SideStream[TournamentEnvelope] = SideStream(
    "tournament_id", parse_tournament_event_json
)
"""Tournament streams: named by `TournamentEnvelope.tournament_id`."""
