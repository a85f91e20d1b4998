"""Write credentials on Redis (`services.ports.credentials.Credentials`): read-only lookups.

The digest of a game's write token lives in `Keys.write_token(game_id)` (STRING, the game's
shard hash tag, so it shares the game's Cluster slot); the append Lua sets it together with the
game's first event. A lookup is one Lua call returning the digest and the stream length.
"""

from __future__ import annotations

from collections.abc import Sequence

from services.adapters.redis.cancelsafe import run_script
from services.adapters.redis.connect import RedisClient
from services.adapters.redis.fanout import script_calls
from services.adapters.redis.keynames import KeyNames
from services.adapters.redis.keys import Keys
from services.ports.credentials import CredentialLookup

_LOOKUP_LUA = """
return {redis.call('GET', KEYS[1]) or '', redis.call('XLEN', KEYS[2])}
"""


class RedisCredentials:
    """`client`: `redis.asyncio.Redis` without `decode_responses`."""

    def __init__(self, client: RedisClient, keys: Keys) -> None:
        self.client = client
        self.keys = keys
        self._lookup = client.register_script(_LOOKUP_LUA)
        self._names: KeyNames[tuple[str, str]] = KeyNames()

    def _keys(self, game_id: str) -> tuple[str, str]:
        """The lookup's KEYS: the game's write-token digest and its stream."""
        named = self._names.get(game_id)
        if named is None:
            named = self._names.put(
                game_id, (self.keys.write_token(game_id), self.keys.game_stream(game_id))
            )
        return named

    async def lookup(self, game_id: str) -> CredentialLookup:
        """The game's digest and version in one round trip."""
        digest, version = await run_script(self._lookup, self._keys(game_id), ())
        return CredentialLookup(digest.decode() or None, int(version))

    async def lookup_many(self, game_ids: Sequence[str]) -> list[CredentialLookup]:
        """`lookup` of several games: one pipeline, fanned out per slot on a cluster."""
        replies = await script_calls(
            self.client, self._lookup, [(self._keys(g), []) for g in game_ids]
        )
        for reply in replies:
            if isinstance(reply, Exception):
                raise reply
        return [CredentialLookup(d.decode() or None, int(v)) for d, v in replies]
