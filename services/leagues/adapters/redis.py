"""`LeagueLog` on Redis: the side log (`services.adapters.redis.sidelog`) of league streams,
under tournament keys whose id is `@league/<league id>` (no tournament id can start with `@`,
so a league never shares a tournament's keys; the ACL's tournament key patterns cover
leagues)."""

from __future__ import annotations

from contracts.league import LeagueEnvelope
from services.adapters.redis.connect import RedisClient
from services.adapters.redis.keys import Keys
from services.adapters.redis.sidelog import RedisSideLog
from services.leagues.ports.log import LEAGUES

LEAGUE = LEAGUES.prefix
"""The prefix of a league's id in the tournament keys."""


class RedisLeagueLog(RedisSideLog[LeagueEnvelope]):
    """`LeagueLog` on Redis; `replicas`, `wait_ms` as `RedisSideLog`'s."""

    def __init__(
        self, client: RedisClient, keys: Keys, replicas: int = 0, wait_ms: int = 1000
    ) -> None:
        super().__init__(client, keys, LEAGUES, replicas=replicas, wait_ms=wait_ms)
