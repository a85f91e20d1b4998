"""`LeagueLog` in memory (tests)."""

from __future__ import annotations

from dataclasses import dataclass

from contracts.league import LeagueEnvelope
from services.adapters.memory.sidelog import MemorySideLog
from services.leagues.ports.log import LEAGUES
from services.ports.sidelog import SideStream


@dataclass
class MemoryLeagueLog(MemorySideLog[LeagueEnvelope]):
    """The memory side log of league streams (`MemorySideLog`)."""

    stream: SideStream[LeagueEnvelope] = LEAGUES
