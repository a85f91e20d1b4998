"""Write tokens: creating a game issues a per-game bearer token; every later write needs it.

The token is returned once (in the 201 of the append that created the game) and stored only
as its SHA-256 hex digest under `sl:wtoken:{sK}:<game_id>` (the game's shard hash tag, so it
lives in the game's Cluster slot). Reads need no token.

HTTP rules (FastAPI dependency `authorize_write`):
    * game has a token, no `Authorization: Bearer` header      -> 401 `token_required`
    * game has a token, wrong bearer token                       -> 403 `token_rejected`
    * game has no events yet (the append creates it)             -> allowed; the caller issues
      the token with `WriteTokens.issue` once the append stored seq 1
    * game has events but no token (created through the Redis
      inbox, which is trusted and token-less)                    -> 403 `token_rejected`
Source: issue brief ("Writes need a key").
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import Annotated

import redis.asyncio as aioredis
from fastapi import Depends, HTTPException, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from services.keys import PREFIX, Keys


def token_key(keys: Keys, game_id: str) -> str:
    """The Redis key holding the digest of `game_id`'s write token (STRING)."""
    return f"{PREFIX}:wtoken:{keys.tag(game_id)}:{game_id}"


def digest(token: str) -> str:
    """SHA-256 hex digest of a token (what is stored; the token itself never is)."""
    return hashlib.sha256(token.encode()).hexdigest()


class TokenError(Exception):
    """A write was refused: `status` 401 (`token_required`) or 403 (`token_rejected`)."""

    def __init__(self, status: int, error: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.error = error
        self.message = message

    def to_http(self) -> HTTPException:
        """The matching `HTTPException` (401 carries `WWW-Authenticate: Bearer`)."""
        headers = {"WWW-Authenticate": "Bearer"} if self.status == 401 else None
        return HTTPException(
            self.status, {"error": self.error, "message": self.message}, headers=headers
        )


@dataclass(frozen=True, slots=True)
class WriteGrant:
    """The outcome of a passed check: `creating` is True when the game has no events yet, so
    the append may create it and the caller must then `issue` the token."""

    game_id: str
    creating: bool
    refusal: TokenError | None = None
    """Set by `authorize_write_or_retry` instead of raising: the route may still answer a pure
    retry (every event already stored, same body) with its original positions."""


class WriteTokens:
    """Issue and check per-game write tokens. `client`: `redis.asyncio.Redis` (bytes replies)."""

    def __init__(self, client: aioredis.Redis, keys: Keys) -> None:
        self.client = client
        self.keys = keys

    async def issue(self, game_id: str) -> str | None:
        """Create the game's token; return it, or None if the game already has one (SET NX).

        The token is 32 random bytes, URL-safe base64 (43 characters).
        """
        token = secrets.token_urlsafe(32)
        stored = await self.client.set(token_key(self.keys, game_id), digest(token), nx=True)
        return token if stored else None

    async def check(self, game_id: str, token: str | None) -> WriteGrant:
        """Check `token` (None when no bearer header was sent) for a write to `game_id`.

        Raises:
            TokenError: 401 no token sent to a game that has one; 403 a wrong token, or a
                game that has events but no token.
        """
        stored = await self.client.get(token_key(self.keys, game_id))
        if stored is None:
            if await self.client.exists(self.keys.game_stream(game_id)):
                raise TokenError(
                    403,
                    "token_rejected",
                    f"game {game_id!r} has no write token; write through the inbox",
                )
            return WriteGrant(game_id, creating=True)
        if token is None:
            raise TokenError(
                401,
                "token_required",
                f"writes to game {game_id!r} need 'Authorization: Bearer <token>'",
            )
        if not hmac.compare_digest(stored.decode(), digest(token)):
            raise TokenError(
                403, "token_rejected", f"the bearer token is not game {game_id!r}'s write token"
            )
        return WriteGrant(game_id, creating=False)


_bearer = HTTPBearer(
    auto_error=False, description="the game's write token, from the 201 that created it"
)


def write_tokens(request: Request) -> WriteTokens:
    """The app's `WriteTokens`, built on first use on the Redis client and key layout of the
    ingest store (`app.state.ingest_store`), else of the app (`app.state.redis`, settings)."""
    state = request.app.state
    tokens = getattr(state, "write_tokens", None)
    if tokens is None:
        store = getattr(state, "ingest_store", None)
        if store is not None:
            tokens = WriteTokens(store.store.client, store.store.keys)
        else:
            tokens = WriteTokens(state.redis, Keys(state.settings.shards))
        state.write_tokens = tokens
    return tokens  # type: ignore[no-any-return]


async def authorize_write(
    game_id: str,
    tokens: Annotated[WriteTokens, Depends(write_tokens)],
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> WriteGrant:
    """FastAPI dependency for routes with a `{game_id}` path parameter that write to the game.

    Raises:
        HTTPException: 401 / 403 as in the module docstring; the route body never runs.
    """
    try:
        return await tokens.check(game_id, credentials.credentials if credentials else None)
    except TokenError as error:
        raise error.to_http() from None


WriteAccess = Annotated[WriteGrant, Depends(authorize_write)]
"""Annotate a route parameter with this to require the game's write token."""


async def authorize_write_or_retry(
    game_id: str,
    tokens: Annotated[WriteTokens, Depends(write_tokens)],
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> WriteGrant:
    """Like `authorize_write`, but a refused check comes back as `WriteGrant.refusal` for the
    route to raise unless the request only repeats events already stored (an idempotent retry,
    e.g. of the event that created the game after its 201 was lost, changes nothing and
    reveals only positions the public audit log shows anyway)."""
    try:
        return await tokens.check(game_id, credentials.credentials if credentials else None)
    except TokenError as error:
        return WriteGrant(game_id, creating=False, refusal=error)


WriteOrRetryAccess = Annotated[WriteGrant, Depends(authorize_write_or_retry)]
"""A route parameter needing the game's write token, except for exact retries."""
