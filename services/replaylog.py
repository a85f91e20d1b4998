"""The replay worker processes' own composition root: the event log a worker reads itself.

A replay worker (`services.usecases.readmodels.offloop`) is a spawned process with no client
of its parent's; `replay_log` builds it one, from the same settings (URL, cluster, ACL user,
TLS, retry policy), when the worker starts. It lives apart from `services.bootstrap` so that a
worker imports the Redis adapters only, not the web stack. Source: issue 9 (replays O(n) off
the event loop: the parent ships a game id, not the stored events).
"""

from __future__ import annotations

from services.adapters.redis.connect import connect_from
from services.adapters.redis.eventlog import RedisEventLog
from services.keys import Keys
from services.settings import ServiceSettings


def replay_log(settings: ServiceSettings) -> RedisEventLog:
    """The event log on a new client of `settings` (made in the calling process; no
    connection is opened until the first read)."""
    return RedisEventLog(connect_from(settings), Keys(settings.shards))
