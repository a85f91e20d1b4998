"""Who may write to a tournament, and how the desk records a write: the one authorization
check of every tournament write, then an idempotent append under the organiser's digest.

The organiser token's digest is stored with the stream; a judge's token is derived from it
(`keys.judge_token`, never stored) and a table's token is its game's write token
(`keys.table_token`). `DeskAccess.authorize_as` tells which of them a token is:
none sent is `unauthorized` / `auth.token_required`, a wrong one `forbidden` /
`auth.token_rejected`, both checked against the stored digest before anything else is read.
Source: docs/decisions/0009-one-authorization-on-every-write.md.
"""

from __future__ import annotations

import hmac
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from contracts.envelope import Payload
from contracts.tournament import TournamentCreated, TournamentEnvelope
from domain.errors import RuleViolation
from domain.tournament.fold import fold
from domain.tournament.state import TournamentState
from services.ports.credentials import CredentialLookup
from services.ports.errors import CredentialMismatch, VersionConflict
from services.tournaments.usecases.keys import judge_of, table_token
from services.tournaments.usecases.stream import Tournaments, UnknownTournament
from services.usecases.authorize import (
    Authorizer,
    Grant,
    WriteProof,
    check_organiser_token,
    digest,
)
from services.usecases.idempotency import Found, find_request, request_ids, same_request
from services.usecases.refusal import Refusal

Role = Literal["organiser", "judge", "table"]
ORGANISER = "organiser"
"""The actor of the desk's events."""


@dataclass(frozen=True, slots=True)
class Caller:
    """Who passed `authorize_as`: the digest to append with (the organiser's, which the store
    checks), the role, the judge's id (None for the others) and, for a table's token, its
    `(round, table)`."""

    credential: str
    role: Role
    judge_id: str | None = None
    table: tuple[int, int] | None = None


class DeskAccess:
    """The desk's authorization over `Tournaments` (the organiser's, a judge's or a table's
    token); `TournamentDesk` builds its writes on it."""

    def __init__(self, cases: Tournaments, authorizer: Authorizer) -> None:
        self.cases = cases
        self.authorizer = authorizer

    async def _replayed(
        self, tournament_id: str, key: str | None
    ) -> tuple[Found[TournamentEnvelope], TournamentState] | None:
        """The batch a request under `key` stored and the state right after it; None when
        there is no key or nothing stored under it."""
        if key is None:
            return None
        events = await self.cases.log.read(tournament_id)
        found = find_request(events, "tournament", tournament_id, key)
        return None if found is None else (found, fold(events[: found.upto]))

    async def _once(
        self, tournament_id: str, payloads: Sequence[Payload], credential: str, key: str | None
    ) -> TournamentState:
        """`_record` under `key`, or the state after the batch `key` stored already (the
        same request: else `idempotency.key_reused`)."""
        replay = await self._replayed(tournament_id, key)
        if replay is not None:
            same_request(replay[0].first, payloads[0])
            return replay[1]
        return await self._record(tournament_id, payloads, credential, key=key)

    async def _record(
        self,
        tournament_id: str,
        payloads: Sequence[Payload],
        credential: str,
        actor: str = ORGANISER,
        key: str | None = None,
    ) -> TournamentState:
        if not credential:  # an empty credential would skip the store's token check
            raise Refusal("unauthorized", "auth.token_required", "no organiser token", "token")
        ids = None if key is None else request_ids("tournament", tournament_id, key, len(payloads))
        try:
            state, _ = await self.cases.record(tournament_id, payloads, actor, credential, ids)
        except (RuleViolation, VersionConflict, CredentialMismatch) as error:
            refusal = refusal_of(error)
        else:
            return state
        # Refused on a stream this key's concurrent request (a retry) extended since the
        # caller looked for it: answered as that stored request (a creation's answer also
        # checks the token: `TournamentDesk.create`).
        creating = isinstance(payloads[0], TournamentCreated)
        replay = None if creating else await self._replayed(tournament_id, key)
        if replay is None:
            raise refusal
        same_request(replay[0].first, payloads[0])
        return replay[1]

    def may_create(self, proof: WriteProof) -> Grant:
        """Check a creation's proof before its body is read: the creator key (when the
        deployment sets one) and a chosen token's format; generates a token when none is sent.

        Raises:
            Refusal: `auth.creator_key_required` / `_rejected`, `auth.token_format`.
        """
        found = CredentialLookup(digest=None, version=0)
        return self.authorizer.check("", found, proof, generate=True, token_field="authorization")

    async def authorize(self, tournament_id: str, token: str | None) -> str:
        """The digest to append with, once `token` is the tournament's organiser token
        (`authorize_as` with the organiser alone: a judge's token is `forbidden` /
        `auth.organiser_required`).

        Raises:
            UnknownTournament, Refusal: as `authorize_as`.
        """
        return (await self.authorize_as(tournament_id, token, ("organiser",))).credential

    async def _organiser(self, tournament_id: str, token: str | None) -> str:
        """The digest to append with, once `token` is the tournament's organiser token.

        Raises:
            UnknownTournament: no such tournament (checked first: 404 before 401).
            Refusal: `unauthorized` / `auth.token_required`, `forbidden` / `auth.token_rejected`.
        """
        stored = await self.cases.log.digest(tournament_id)
        if stored is None:
            if await self.cases.log.version(tournament_id) == 0:
                raise UnknownTournament(tournament_id)
            raise Refusal(
                "forbidden",
                "auth.token_rejected",
                "the tournament takes no writes",
                "authorization",
            )
        check_organiser_token(stored, token, f"tournament {tournament_id!r}")
        return stored

    async def authorize_as(
        self, tournament_id: str, token: str | None, roles: tuple[Role, ...]
    ) -> Caller:
        """Who `token` is, when one of `roles` may make this write: the organiser token, the
        token of a judge in office, or (role `table`) the write token of a seated table's game,
        handed to that table (`keys.table_token`). The one check of every
        tournament write.

        Raises:
            UnknownTournament: no such tournament (404 before 401).
            Refusal: `unauthorized` / `auth.token_required`; `forbidden` /
                `auth.token_rejected` (none of the tokens `roles` allow) or
                `auth.organiser_required` (a judge's token where only the organiser may write).
        """
        stored = await self.cases.log.digest(tournament_id)
        if stored is None or token is None or hmac.compare_digest(stored, digest(token)):
            credential = await self._organiser(tournament_id, token)
            return Caller(credential, "organiser")
        state = await self.cases.state(tournament_id)
        judge_id = judge_of(stored, tournament_id, state.judges, token)
        table = table_of_token(stored, state, token) if "table" in roles else None
        if table is not None:
            return Caller(stored, "table", table=table)
        if judge_id is None:
            raise Refusal(
                "forbidden",
                "auth.token_rejected",
                f"the token is neither the organiser's nor a judge's of tournament {tournament_id!r}",
                "authorization",
            )
        if "judge" not in roles:
            raise Refusal(
                "forbidden",
                "auth.organiser_required",
                "this write needs the organiser token, not a judge's",
                "authorization",
            )
        return Caller(stored, "judge", judge_id)


def table_of_token(stored: str, state: TournamentState, token: str) -> tuple[int, int] | None:
    """The `(round, table)` whose game's write token `token` is (None: no seated table's);
    constant-time per table, open rounds and closed alike (a late confirmation)."""
    found = None
    for seated in state.rounds:
        for t in seated.tables.values():
            if t.game_id is not None and hmac.compare_digest(table_token(stored, t.game_id), token):
                found = (seated.number, t.number)
    return found


def refusal_of(error: RuleViolation | VersionConflict | CredentialMismatch) -> Refusal:
    if isinstance(error, RuleViolation):
        return Refusal("rule", error.rule, error.message, error.field)
    if isinstance(error, VersionConflict):
        return Refusal(
            "conflict",
            "log.expected_version",
            "the tournament changed during the write; retry",
            "seq",
            {"expected": error.expected, "actual": error.actual},
        )
    return Refusal(
        "forbidden", "auth.token_rejected", "the organiser token does not match", "authorization"
    )
