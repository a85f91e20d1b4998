"""Every stream kind runs on the one kernel (docs/decisions/0020-one-stream-kernel.md): its
envelope is the kernel's, its fold the shared skeleton's, its logs the generic side logs, and
the append scripts' dedupe and expected-version core stands in one module only."""

from __future__ import annotations

from pathlib import Path

import pytest

from contracts.envelope import Envelope, StreamBody
from contracts.league import LEAGUE_ENVELOPES
from contracts.tournament import TOURNAMENT_ENVELOPES
from domain.league import fold as league_fold
from domain.stream import StreamFold
from domain.tournament import fold as tournament_fold
from services.adapters.memory.sidelog import MemorySideLog
from services.adapters.redis.append_core_lua import APPEND_CORE_LUA
from services.adapters.redis.append_lua import APPEND_LUA
from services.adapters.redis.sidelog import APPEND_SIDE_LUA, RedisSideLog
from services.leagues.adapters.memory import MemoryLeagueLog
from services.leagues.adapters.redis import RedisLeagueLog
from services.leagues.ports.log import LEAGUES
from services.ports.eventlog import EventLog, StreamLog
from services.ports.sidelog import SideLog
from services.tournaments.adapters.memory import MemoryTournamentLog
from services.tournaments.adapters.redis import RedisTournamentLog
from services.tournaments.ports.log import TOURNAMENTS

ROOT = Path(__file__).parents[2]
KINDS = [
    (TOURNAMENTS, TOURNAMENT_ENVELOPES, tournament_fold, MemoryTournamentLog, RedisTournamentLog),
    (LEAGUES, LEAGUE_ENVELOPES, league_fold, MemoryLeagueLog, RedisLeagueLog),
]


@pytest.mark.parametrize(("stream", "envelopes", "fold", "memory", "redis"), KINDS)
def test_each_side_kind_is_the_kernel_with_its_own_rules(
    stream: object, envelopes: dict[str, type], fold: object, memory: type, redis: type
) -> None:
    field = stream.field
    for model in envelopes.values():
        assert issubclass(model, StreamBody)
        assert field == model.STREAM_FIELD
    assert isinstance(fold._FOLD, StreamFold)
    assert issubclass(memory, MemorySideLog)
    assert issubclass(redis, RedisSideLog)


def test_games_are_a_kind_of_the_same_kernel() -> None:
    assert issubclass(Envelope, StreamBody)
    assert Envelope.STREAM_FIELD == "game_id"
    assert StreamLog in EventLog.__mro__
    assert StreamLog in SideLog.__mro__


def test_the_append_core_is_in_every_append_script_and_written_once() -> None:
    assert APPEND_CORE_LUA in APPEND_LUA
    assert APPEND_CORE_LUA in APPEND_SIDE_LUA
    writers = [
        path.relative_to(ROOT).as_posix()
        for tree in ("services", "domain", "contracts")
        for path in (ROOT / tree).rglob("*.py")
        if "WRONGVERSION expected" in path.read_text() and "error_reply" in path.read_text()
    ]
    assert writers == ["services/adapters/redis/append_core_lua.py"]
