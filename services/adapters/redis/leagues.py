"""`LeagueLog` on Redis: the tournament log's layout and append script, under tournament
keys whose id is `@league/<league id>` (no tournament id can start with `@`, so a league never
shares a tournament's keys; the ACL's tournament key patterns cover leagues)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from redis.exceptions import ResponseError

from contracts.league import LeagueEnvelope, parse_league_event_json
from services.adapters.redis.connect import RedisClient
from services.adapters.redis.durable import DurableWait
from services.adapters.redis.keys import Keys
from services.adapters.redis.tournaments import _WRONGVERSION, APPEND_TOURNAMENT_LUA
from services.ports.errors import CredentialMismatch, VersionConflict
from services.ports.eventlog import AppendedEvent, AppendResult

LEAGUE = "@league/"
"""The prefix of a league's id in the tournament keys."""


class RedisLeagueLog:
    """`LeagueLog` on Redis (a client created without `decode_responses`); `replicas`,
    `wait_ms` as `RedisTournamentLog`'s (durable acknowledgements)."""

    def __init__(
        self, client: RedisClient, keys: Keys, replicas: int = 0, wait_ms: int = 1000
    ) -> None:
        self.client = client
        self.keys = keys
        self.durable = DurableWait(client, replicas, wait_ms)
        self._append = client.register_script(APPEND_TOURNAMENT_LUA)

    async def append(
        self,
        league_id: str,
        events: Sequence[LeagueEnvelope],
        credential: str | None = None,
    ) -> AppendResult:
        """See `LeagueLog.append` (one Lua call, all or nothing, then `WAIT` with `replicas`).
        Raises also ReplicasUnconfirmed (stored, too few replicas confirmed)."""
        now = datetime.now(UTC)
        args: list[str | int] = [credential or ""]
        for event in events:
            if event.league_id != league_id:
                raise ValueError(f"league_id: event {event.event_id} is for {event.league_id}")
            data = event.with_recorded_at(now).model_dump_json()
            args += [str(event.event_id), event.seq, event.type, data]
        keys = [
            self.keys.tournament_stream(LEAGUE + league_id),
            self.keys.tournament_ids(LEAGUE + league_id),
            self.keys.tournament_token(LEAGUE + league_id),
        ]
        try:
            out: Any = await self.durable.call(self._append, keys, args)
        except ResponseError as error:
            if "WRONGTOKEN" in str(error):
                raise CredentialMismatch(league_id) from None
            match = _WRONGVERSION.search(str(error))
            if match is None:
                raise
            raise VersionConflict(int(match[1]), int(match[2])) from None
        positions = tuple(
            AppendedEvent(str(event.event_id), int(out[1 + 2 * i]), None, bool(out[2 + 2 * i]))
            for i, event in enumerate(events)
        )
        return AppendResult(positions, int(out[0]))

    async def digest(self, league_id: str) -> str | None:
        """GET of the league organiser token digest key."""
        stored: Any = await self.client.get(self.keys.tournament_token(LEAGUE + league_id))
        return None if stored is None else bytes(stored).decode()

    async def version(self, league_id: str) -> int:
        """XLEN of the league stream."""
        return int(await self.client.xlen(self.keys.tournament_stream(LEAGUE + league_id)))

    async def read(
        self, league_id: str, from_seq: int = 1, to_seq: int | None = None
    ) -> list[LeagueEnvelope]:
        """Events `from_seq..to_seq` (inclusive), parsed."""
        end = f"{to_seq}-1" if to_seq is not None else "+"
        entries: Any = await self.client.xrange(
            self.keys.tournament_stream(LEAGUE + league_id), f"{from_seq}-1", end
        )
        return [parse_league_event_json(fields[b"data"]) for _, fields in entries]
