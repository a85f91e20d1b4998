"""The record use case: the one write path of every door.

`record` (HTTP: one request) and `record_entries` (inbox: a batch of entries) do the same
four steps in the same order: authorize (the game's write token, one lookup, before the body
is parsed: `services.usecases.authorize`), parse (`services.usecases.parse`), check against
the game's rules and append (`services.usecases.check.CheckedAppend`; the token's digest is
checked again and, for a creation, stored inside the same atomic append). Every refusal is one
`Refusal`; nothing of a refused write is stored. No HTTP, FastStream or Redis here.
Source: docs/decisions/0009-one-authorization-on-every-write.md (one write path; the same authorization on both doors).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from contracts.envelope import Envelope
from domain.errors import RuleViolation
from services.ports.credentials import Credentials
from services.ports.errors import CredentialMismatch, ReplicasUnconfirmed, VersionConflict
from services.ports.eventlog import AppendRequest, AppendResult
from services.usecases.authorize import Authorizer, Grant, WriteProof
from services.usecases.check import CheckedAppend, Outcome
from services.usecases.parse import decode_json, game_of, parse_body, parse_events
from services.usecases.refusal import Refusal

BodySource = Callable[[], Awaitable[bytes]]
"""How a door hands over a body: called only after the write was authorized (HTTP reads the
request body then, so an unauthorized write costs no more than one lookup)."""


class AfterGameWrite(Protocol):
    """A follow-up of a recorded game write, run after the answer (a tournament table's game:
    `services.tournaments.usecases.tables.TableGames`)."""

    def wants(self, game_id: str, body: bytes | None) -> bool:
        """Cheap filter on the game id and the written body: whether to run `after_write`."""
        ...

    async def after_write(self, game_id: str, body: bytes | None) -> str | None:
        """The follow-up; never raises (the game's write stood). What it did, or None."""
        ...


@dataclass(frozen=True, slots=True)
class Recorded:
    """A write that was stored (or was an exact retry): positions and version, and the write
    token when this write created the game (`write_token`, for the door to hand back)."""

    result: AppendResult
    write_token: str | None = None


@dataclass(frozen=True, slots=True)
class Entry:
    """One inbox entry: its proof (fields `token`, `creator_key`) and its raw `data` (None:
    the entry has no such field)."""

    proof: WriteProof
    raw: bytes | None


def _refusal(error: RuleViolation | VersionConflict | CredentialMismatch, batch: bool) -> Refusal:
    """The refusal of `error`; `batch`: the body was a JSON array (its `index` is kept; one
    envelope is not a batch, as `parse_events` says)."""
    if isinstance(error, RuleViolation):
        return Refusal.of_rule(error, batch)
    if isinstance(error, VersionConflict):
        return Refusal.of_conflict(error, batch)
    return Refusal("forbidden", "auth.token_rejected", str(error), None)


def _recorded(grant: Grant, outcome: Outcome, batch: bool) -> Recorded:
    if not isinstance(outcome, AppendResult):
        raise _refusal(outcome, batch)
    created = grant.creating and any(e.seq == 1 and not e.duplicate for e in outcome.events)
    return Recorded(outcome, grant.token if created else None)


class Record:
    """Parse, authorize, check against the game's rules, append.

    Args:
        credentials: the write-credentials port (one lookup per write).
        checked: the domain-checked append on the event log.
        authorizer: the token rules (and the optional creator key).
    """

    def __init__(
        self, credentials: Credentials, checked: CheckedAppend, authorizer: Authorizer
    ) -> None:
        self.credentials = credentials
        self.checked = checked
        self.authorizer = authorizer

    async def record(
        self, game_id: str, proof: WriteProof, body: BodySource, *, dry_run: bool = False
    ) -> Recorded:
        """Record one write to `game_id` (HTTP): `body()` gives one envelope JSON or an array.

        A creation without a token gets a generated one (`Recorded.write_token`).
        `dry_run`: authorize, parse and check exactly as the write, answer what it would
        (`CheckedAppend.dry_run`), store nothing; a chosen token is echoed as the write
        echoes it, a generated one is not handed back (nothing stores it).

        Raises:
            Refusal: `unauthorized` / `forbidden` (checked first: the body is not parsed),
                `invalid` (JSON, shape, schema field), `rule`, `conflict`.
            ReplicasUnconfirmed: stored, but too few replicas confirmed it in time (its
                `write_token` set when this write created the game with a generated token).
        """
        found = await self.credentials.lookup(game_id)
        grant = self.authorizer.check(
            game_id, found, proof, generate=True, token_field="authorization"
        )
        raw = await body()
        events = parse_body(raw, "body")
        batch = raw.lstrip()[:1] == b"["
        try:
            if dry_run:
                tried = _recorded(
                    grant, await self.checked.dry_run(game_id, events, found.version), batch
                )
                return tried if not grant.generated else Recorded(tried.result)
            outcome: Outcome = await self.checked.append(
                game_id, events, grant.credential, found.version
            )
        except (RuleViolation, VersionConflict, CredentialMismatch) as error:
            raise _refusal(error, batch) from None
        except ReplicasUnconfirmed as unconfirmed:
            if grant.creating and grant.generated:
                unconfirmed.write_token = grant.token  # the game exists with this token now
            raise
        return _recorded(grant, outcome, batch)

    async def record_entries(self, entries: Sequence[Entry]) -> list[Recorded | Refusal]:
        """Record inbox entries in order; one outcome per entry. Each entry names its game
        in its events (`game_id`, one game per entry) and must carry the game's token; a
        creating entry must carry the token it chose (the inbox has no reply channel).

        Different games' appends share round trips; one game's entries stay in order. Raises
        only on storage errors (the caller retries the batch; appends are idempotent).
        """
        out: list[Recorded | Refusal | None] = [None] * len(entries)
        bodies: dict[int, object] = {}
        games: dict[int, str] = {}
        for i, entry in enumerate(entries):
            try:
                body = decode_json(entry.raw, "data")
                game_id = game_of(body)
                if game_id is None:
                    parse_events(body)  # names the field at fault
                    raise Refusal("invalid", "schema.field", "no game_id", "game_id")
            except Refusal as refusal:
                out[i] = refusal
                continue
            except Exception as error:  # a poison entry must not jam the inbox
                out[i] = Refusal("invalid", "body.unreadable", repr(error), "data")
                continue
            bodies[i], games[i] = body, game_id
        order = sorted(games)
        found = await self.credentials.lookup_many([games[i] for i in order])
        accepted: list[tuple[int, Grant, list[Envelope]]] = []
        for i, lookup in zip(order, found, strict=True):
            try:
                grant = self.authorizer.check(
                    games[i], lookup, entries[i].proof, generate=False, token_field="token"
                )
                events = parse_events(bodies[i])
                if {e.game_id for e in events} != {games[i]}:
                    raise Refusal(
                        "invalid",
                        "schema.field",
                        f"one entry, one game; got {sorted({e.game_id for e in events})}",
                        "game_id",
                    )
            except Refusal as refusal:
                out[i] = refusal
                continue
            accepted.append((i, grant, events))
        outcomes = await self.checked.append_many(
            [AppendRequest(games[i], events, grant.credential) for i, grant, events in accepted]
        )
        for (i, grant, _), outcome in zip(accepted, outcomes, strict=True):
            try:
                out[i] = _recorded(grant, outcome, isinstance(bodies[i], list))
            except Refusal as refusal:
                out[i] = refusal
        return [o for o in out if o is not None]
