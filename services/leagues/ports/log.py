"""The league-log port: each league's append-only event stream, a side log
(`services.ports.sidelog`) with the tournament log's append contract (expected version per
event, all or nothing, idempotent event ids, the organiser token's digest stored by the
creating append and required by every later one), keyed by the league id.
"""

from __future__ import annotations

from typing import Protocol

from contracts.league import LeagueEnvelope, parse_league_event_json
from services.ports.errors import CredentialMismatch, VersionConflict
from services.ports.eventlog import AppendResult
from services.ports.sidelog import SideLog, SideStream

__all__ = ["LEAGUES", "AppendResult", "CredentialMismatch", "LeagueLog", "VersionConflict"]


class LeagueLog(SideLog[LeagueEnvelope], Protocol):
    """Append and read league streams (`stream_id`: the league id).
    Implementations: `adapters.memory.leagues`, `adapters.redis.leagues`."""


LEAGUES: SideStream[LeagueEnvelope] = SideStream("league_id", parse_league_event_json, "@league/")
"""League streams: named by `LeagueEnvelope.league_id`."""
