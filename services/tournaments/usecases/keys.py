"""Tokens and ids a tournament derives from its organiser token's stored digest.

Nothing here is stored: each value is an HMAC-SHA256 keyed by the organiser token's SHA-256
digest (what the tournament log keeps), so the service recomputes it whenever it checks one,
and the organiser (who holds the token, hence its digest) can too. None reveals the organiser
token. Values:

- a judge's token: `judge_token(digest, tournament_id, judge_id)`; it stops working when the
  judge is dismissed (the fold's `judges` no longer names them);
- a table game's id: `<tournament id, first 40 chars>.r<round>t<table>.<8 hex>`: the suffix
  is unguessable without the digest, so nobody can create the game before the tournament does
  (a squatted id would refuse the tournament's creating write);
- a table game's write token: `table_token(digest, game_id)`, handed to the table.

Anyone who can read the organiser digest from the store could mint these; that is the same
trust the store already holds (it checks the organiser's appends by that digest).
"""

from __future__ import annotations

import base64
import hashlib
import hmac


def _mac(digest: str, message: str) -> bytes:
    return hmac.new(digest.encode(), message.encode(), hashlib.sha256).digest()


def _token(raw: bytes) -> str:
    """43 URL-safe characters (32 bytes, base64url without padding): a valid write token."""
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def judge_token(digest: str, tournament_id: str, judge_id: str) -> str:
    """The bearer token of judge `judge_id` in tournament `tournament_id`."""
    return _token(_mac(digest, f"judge\x00{tournament_id}\x00{judge_id}"))


def table_game_id(digest: str, tournament_id: str, round_number: int, table: int) -> str:
    """The id of the scoreledger game that plays `table` of `round_number` (at most 60
    characters, a valid game id)."""
    suffix = _mac(digest, f"game\x00{tournament_id}\x00{round_number}\x00{table}").hex()[:8]
    return f"{tournament_id[:40]}.r{round_number}t{table}.{suffix}"


def table_token(digest: str, game_id: str) -> str:
    """The write token of a table's game (the tournament creates the game with it)."""
    return _token(_mac(digest, f"table\x00{game_id}"))


def judge_of(digest: str, tournament_id: str, judges: dict[str, str], token: str) -> str | None:
    """The judge whose token `token` is (None: no judge in office has it); constant-time per
    judge."""
    found = None
    for judge_id in judges:
        if hmac.compare_digest(judge_token(digest, tournament_id, judge_id), token):
            found = judge_id
    return found
