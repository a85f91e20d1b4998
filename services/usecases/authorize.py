"""Write authorization, the same for every door: the game's write token, checked first.

* A write to an existing game carries the game's write token (HTTP `Authorization: Bearer`,
  inbox entry field `token`); the game's stored SHA-256 digest must match
  (`hmac.compare_digest`). None sent: `unauthorized` / `auth.token_required`; a wrong one, or a
  game stored before write tokens existed (no digest): `forbidden` / `auth.token_rejected`.
* The append that creates a game (no events yet) stores the digest of the game's token in the
  same atomic step. The creator may choose the token (at least `MIN_TOKEN_CHARS` URL-safe
  characters, else `invalid` / `auth.token_format`); the inbox must (it has no reply channel);
  HTTP generates one when none is sent and returns it in the 201. A creator whose answer was
  lost retries with the token it chose and gets its original positions (`duplicate: true`).
* Optionally (`creator_key` setting) only holders of an integration key may create games
  (HTTP header `X-Creator-Key`, inbox field `creator_key`): `auth.creator_key_required` /
  `auth.creator_key_rejected`.
Reads need no token. Source: docs/decisions/0009-one-authorization-on-every-write.md (one authorization on every write path).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from services.ports.credentials import CredentialLookup
from services.ports.errors import ReplicasUnconfirmed
from services.usecases.refusal import Refusal

MIN_TOKEN_CHARS = 32
"""Shortest write token a creator may choose (32 URL-safe characters: 192 bits)."""

MAX_TOKEN_CHARS = 256
_TOKEN = re.compile(r"[A-Za-z0-9_-]+")


def digest(token: str) -> str:
    """SHA-256 hex digest of a token (what is stored; the token itself never is)."""
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    """A fresh write token: 32 random bytes, URL-safe base64 (43 characters)."""
    return secrets.token_urlsafe(32)


def check_token_format(token: str, field: str) -> None:
    """Raises `Refusal` (`invalid` / `auth.token_format`) unless `token` is 32..256 URL-safe
    characters (`A-Z a-z 0-9 _ -`)."""
    if not (MIN_TOKEN_CHARS <= len(token) <= MAX_TOKEN_CHARS) or not _TOKEN.fullmatch(token):
        raise Refusal(
            "invalid",
            "auth.token_format",
            f"a chosen write token must be {MIN_TOKEN_CHARS} to {MAX_TOKEN_CHARS} URL-safe "
            "characters (A-Z a-z 0-9 _ -)",
            field,
        )


def check_organiser_token(stored: str, token: str | None, stream: str) -> None:
    """Raises `Refusal` unless `token` is the organiser token whose digest is `stored`:
    `unauthorized` / `auth.token_required` when none is sent, `forbidden` /
    `auth.token_rejected` when it does not match. `stream` names it, e.g. "league 'x'"."""
    if token is None:
        raise Refusal(
            "unauthorized",
            "auth.token_required",
            f"writes to {stream} need its organiser token",
            "authorization",
        )
    if not hmac.compare_digest(stored, digest(token)):
        raise Refusal(
            "forbidden",
            "auth.token_rejected",
            f"the token is not the organiser token of {stream}",
            "authorization",
        )


@dataclass(frozen=True, slots=True)
class WriteProof:
    """What a write presents: the game's write token and, for a creation, the creator key."""

    token: str | None = None
    creator_key: str | None = None


@dataclass(frozen=True, slots=True)
class Grant:
    """A passed check. `creating`: the game has no events, so this write creates it with
    `token` (chosen by the writer, or generated: `generated`)."""

    game_id: str
    creating: bool
    token: str | None = None
    generated: bool = False

    @property
    def credential(self) -> str | None:
        """The digest the creating append stores (None when not creating)."""
        return digest(self.token) if self.creating and self.token is not None else None


S = TypeVar("S")


async def first_write(
    write: Awaitable[S], grant: Grant, taken: Refusal, version: Callable[[], Awaitable[int]]
) -> S | None:
    """Await `write`, the append of a stream's first event under `grant`'s token (a league's
    or a tournament's creation); the state it returns.

    Returns None when a concurrent request created the stream first (`write` refused with
    `taken.rule` or `auth.token_rejected` while `version()` is above 0): the caller asks once
    more, now that it exists, so its own keyed retry is answered as stored.

    Raises:
        Refusal: `taken` when the refusal came with the stream still empty; any other refusal.
        ReplicasUnconfirmed: stored, but too few replicas confirmed it in time; its
            `write_token` set to the generated token (the one a 201 would have handed back).
    """
    try:
        return await write
    except Refusal as refusal:
        if refusal.rule not in (taken.rule, "auth.token_rejected"):
            raise
        if await version() == 0:
            raise taken from None
        return None
    except ReplicasUnconfirmed as unconfirmed:
        if grant.generated:  # the stream exists under this token now: hand it back
            unconfirmed.write_token = grant.token
        raise


@dataclass(frozen=True, slots=True)
class Authorizer:
    """The token rules above. `creator_key_digest`: SHA-256 of the integration key that may
    create games (None: anyone may); `token_field`: how the door names the token (`token` on
    the inbox, `authorization` on HTTP), for refusals."""

    creator_key_digest: str | None = None

    def check(
        self,
        game_id: str,
        found: CredentialLookup,
        proof: WriteProof,
        *,
        generate: bool,
        token_field: str,
    ) -> Grant:
        """The grant for a write of `proof` to a game whose stored state is `found`.

        Args:
            generate: make a token when a creation sends none (HTTP), else refuse it (inbox).

        Raises:
            Refusal: as in the module docstring.
        """
        if found.version > 0:
            if found.digest is None:
                raise Refusal(
                    "forbidden",
                    "auth.token_rejected",
                    f"game {game_id!r} was stored without a write token; it takes no writes",
                    token_field,
                )
            if proof.token is None:
                raise Refusal(
                    "unauthorized",
                    "auth.token_required",
                    f"writes to game {game_id!r} need its write token",
                    token_field,
                )
            if not hmac.compare_digest(found.digest, digest(proof.token)):
                raise Refusal(
                    "forbidden",
                    "auth.token_rejected",
                    f"the token is not the write token of game {game_id!r}",
                    token_field,
                )
            return Grant(game_id, creating=False)
        self._check_creator(proof)
        if proof.token is not None:
            check_token_format(proof.token, token_field)
            return Grant(game_id, creating=True, token=proof.token)
        if not generate:
            raise Refusal(
                "unauthorized",
                "auth.token_required",
                f"an entry creating game {game_id!r} must carry its chosen write token "
                f"({MIN_TOKEN_CHARS}+ URL-safe characters)",
                token_field,
            )
        return Grant(game_id, creating=True, token=new_token(), generated=True)

    def _check_creator(self, proof: WriteProof) -> None:
        if self.creator_key_digest is None:
            return
        if proof.creator_key is None:
            raise Refusal(
                "unauthorized",
                "auth.creator_key_required",
                "creating a game needs the creator key",
                "creator_key",
            )
        if not hmac.compare_digest(self.creator_key_digest, digest(proof.creator_key)):
            raise Refusal(
                "forbidden",
                "auth.creator_key_rejected",
                "the creator key is not this deployment's",
                "creator_key",
            )
