"""`TournamentLog` in memory (tests, the offline `scoreledger tournament simulate`)."""

from __future__ import annotations

from dataclasses import dataclass

from contracts.tournament import TournamentEnvelope
from services.adapters.memory.sidelog import MemorySideLog
from services.ports.sidelog import SideStream
from services.tournaments.ports.log import TOURNAMENTS


@dataclass
class MemoryTournamentLog(MemorySideLog[TournamentEnvelope]):
    """The memory side log of tournament streams (`MemorySideLog`)."""

    stream: SideStream[TournamentEnvelope] = TOURNAMENTS
