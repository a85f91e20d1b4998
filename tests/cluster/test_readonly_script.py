"""A read-only script (`EVALSHA_RO`, services/adapters/redis/readonly.py) is routed by its first
key on a cluster. A fresh cluster client has no slot map yet: its first call must discover it
(it raised SlotNotCoveredError, so the query role's first `/metrics` scrape after a start
answered 503)."""

from __future__ import annotations

import pytest

from services.adapters.redis.connect import connect
from services.adapters.redis.readonly import ReadOnlyScript

pytestmark = pytest.mark.redis


async def test_a_fresh_clients_first_read_only_script_answers(any_url: str) -> None:
    for _ in range(3):  # each a fresh client: its first command is the script
        client = connect(any_url)
        try:
            script = ReadOnlyScript(client, "return redis.call('GET', KEYS[1])")
            assert await script(["sl:ro:{s1}"]) is None
        finally:
            await client.aclose()
