"""`ApprovalSchedule` on Redis: one sorted set (`Keys.approval_schedule`), member
`<due_ms>:<tournament id>`, score the time it is due next (ms); a claim is one Lua call
(ZRANGE BYSCORE, then ZADD XX of the lease's end), so two processes never claim one entry
within a lease.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from services.adapters.redis.connect import RedisClient
from services.adapters.redis.keys import Keys
from services.tournaments.ports.approvals import DueEntry

CLAIM_LUA = """
local due = redis.call('ZRANGE', KEYS[1], '-inf', ARGV[1], 'BYSCORE', 'LIMIT', 0, ARGV[2])
for _, member in ipairs(due) do
  redis.call('ZADD', KEYS[1], 'XX', ARGV[3], member)
end
return due
"""


class RedisApprovalSchedule:
    """`ApprovalSchedule` on Redis (a client created without `decode_responses`)."""

    def __init__(self, client: RedisClient, keys: Keys) -> None:
        self.client = client
        self.key = keys.approval_schedule()
        self._claim = client.register_script(CLAIM_LUA)

    async def schedule(self, entry: DueEntry) -> None:
        """ZADD NX (a leased entry keeps its lease)."""
        await self.client.zadd(self.key, {entry.member: entry.due_ms}, nx=True)

    async def claim(self, now_ms: int, limit: int, lease_ms: int) -> list[DueEntry]:
        """See `ApprovalSchedule.claim` (one script call)."""
        out: Any = await self._claim(keys=[self.key], args=[now_ms, limit, now_ms + lease_ms])
        return [DueEntry.of(bytes(m).decode()) for m in out]

    async def done(self, entries: Sequence[DueEntry]) -> None:
        """ZREM of the entries."""
        if entries:
            await self.client.zrem(self.key, *(e.member for e in entries))
