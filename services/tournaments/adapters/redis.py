"""`TournamentLog` on Redis: the side log (`services.adapters.redis.sidelog`) of tournament
streams, under the tournament keys of the tournament id."""

from __future__ import annotations

from contracts.tournament import TournamentEnvelope
from services.adapters.redis.connect import RedisClient
from services.adapters.redis.keys import Keys
from services.adapters.redis.sidelog import RedisSideLog
from services.tournaments.ports.log import TOURNAMENTS


class RedisTournamentLog(RedisSideLog[TournamentEnvelope]):
    """`TournamentLog` on Redis; `replicas`, `wait_ms` as `RedisSideLog`'s."""

    def __init__(
        self, client: RedisClient, keys: Keys, replicas: int = 0, wait_ms: int = 1000
    ) -> None:
        super().__init__(client, keys, TOURNAMENTS, replicas=replicas, wait_ms=wait_ms)
