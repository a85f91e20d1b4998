"""The organiser's desk: the tournament writes the doors offer, each authorized first.

Authorization is the games' (`services.usecases.authorize`): the request that creates a
tournament may choose its organiser token (32+ URL-safe characters) or gets a generated one
back; only the creation is subject to the deployment's creator key. Every later write needs
that token: none sent is `unauthorized` / `auth.token_required`, a wrong one `forbidden` /
`auth.token_rejected`, both checked against the stored digest before anything else is read,
and the append itself carries the digest again (the store refuses a mismatch atomically).
Judges: the organiser appoints them (`tournament.judge_appointed`); a judge's token is derived
from the organiser digest (`tournament_keys.judge_token`, never stored) and checked by the same
`authorize_as`. While a tournament has a judge in office only a judge approves or disputes
(the organiser token is `forbidden` / `auth.judge_required`) and the ruling names the judge
from the token, not from the body; with no judge appointed the organiser rules. Reports and
confirmations take either token. Seating a round creates each table's game
(`tournament_tables.TableGames.open_round`); auto-approval runs before every table write and
seating (`Tournaments.approve_due`). Other refusals: `rule` with the fold's or
seating's rule id, `conflict` / `log.expected_version` after the record retries, and
`UnknownTournament` for a tournament with no stream.
Every write that appends takes an optional request `key` (the HTTP `Idempotency-Key`): its
events get ids derived from the key, and a retry of a stored request is answered from the
state right after it (`services.usecases.idempotency`); the same key with another request is
`rule` / `idempotency.key_reused`.
"""

from __future__ import annotations

import hmac
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from pydantic import ValidationError

from contracts.envelope import Payload
from contracts.tournament import (
    JudgeAppointed,
    JudgeDismissed,
    PlayerDropped,
    PlayerJoinedLate,
    PlayerRegistered,
    ResultLine,
    RoundClosed,
    RoundSeated,
    TableResultApproved,
    TableResultConfirmed,
    TableResultDisputed,
    TableResultReported,
    TournamentCreated,
    TournamentEnvelope,
)
from domain.errors import RuleViolation
from domain.rulesets import RULESET_BY_GAME
from domain.tournament.fold import fold
from domain.tournament.seating import SeatedTable, Seating
from domain.tournament.state import TournamentState
from domain.tournament.tables import SeatingError
from services.ports.credentials import CredentialLookup
from services.ports.errors import CredentialMismatch, ReplicasUnconfirmed, VersionConflict
from services.usecases.authorize import Authorizer, Grant, WriteProof, digest
from services.usecases.idempotency import Found, find_request, key_reused, request_ids, same_request
from services.usecases.refusal import Refusal
from services.usecases.tournament_keys import judge_of, judge_token, table_game_id, table_token
from services.usecases.tournament_tables import OpenedTable, TableGames
from services.usecases.tournaments import Tournaments, UnknownTournament

ORGANISER = "organiser"
"""The actor of the desk's events."""

TableAction = Literal["report", "confirm", "dispute", "approve"]
Role = Literal["organiser", "judge", "table"]


@dataclass(frozen=True, slots=True)
class Caller:
    """Who passed `authorize_as`: the digest to append with (the organiser's, which the store
    checks), the role, the judge's id (None for the others) and, for a table's token, its
    `(round, table)`."""

    credential: str
    role: Role
    judge_id: str | None = None
    table: tuple[int, int] | None = None


@dataclass(frozen=True, slots=True)
class Seated:
    """A seated round and its tables' games (empty when the desk creates no games)."""

    seating: Seating
    games: tuple[OpenedTable, ...]


@dataclass(frozen=True, slots=True)
class Created:
    """A created tournament: its state and the organiser token when it was generated."""

    state: TournamentState
    organiser_token: str | None


@dataclass(frozen=True, slots=True)
class TableRuling:
    """What a table write asks: `report` (`results`, `by`), `confirm` (`player_id`),
    `dispute` (`by`, `reason`) or `approve` (`by` the judge, `results` optional: a ruling)."""

    action: TableAction
    round: int
    results: tuple[ResultLine, ...] | None = None
    by: str = ORGANISER
    player_id: str | None = None
    reason: str | None = None


class TournamentDesk:
    """Create, register, drop, seat and rule on tables, over `Tournaments`."""

    def __init__(
        self, cases: Tournaments, authorizer: Authorizer, tables: TableGames | None = None
    ) -> None:
        self.cases = cases
        self.authorizer = authorizer
        self.tables = tables

    def may_create(self, proof: WriteProof) -> Grant:
        """Check a creation's proof before its body is read: the creator key (when the
        deployment sets one) and a chosen token's format; generates a token when none is sent.

        Raises:
            Refusal: `auth.creator_key_required` / `_rejected`, `auth.token_format`.
        """
        found = CredentialLookup(digest=None, version=0)
        return self.authorizer.check("", found, proof, generate=True, token_field="authorization")

    async def create(
        self, tournament_id: str, settings: TournamentCreated, grant: Grant, key: str | None = None
    ) -> Created:
        """Create the tournament's stream with `settings` (its first event), under the token
        of `grant` (from `may_create`). The retry of a creation stored under `key` answers
        the state after it (without the organiser token when it was generated: the 503
        handed it back), when it chose the same token.

        Raises:
            Refusal: `conflict` / `tournament.already_created` when it exists (also when a
                concurrent request created it first).
            ReplicasUnconfirmed: stored, but too few replicas confirmed it in time (its
                `write_token` set to the generated organiser token, as a 201 would give it).
        """
        taken = Refusal(
            "conflict",
            "tournament.already_created",
            f"tournament {tournament_id!r} exists",
            "tournament_id",
        )
        if await self.cases.log.version(tournament_id) > 0:
            return await self._created_before(tournament_id, settings, grant, key, taken)
        check_fives_seat(settings)
        if not grant.creating or grant.token is None:
            raise ValueError("grant: not a creation's grant (use may_create)")
        try:
            state = await self._record(tournament_id, [settings], digest(grant.token), key=key)
        except Refusal as refusal:
            if refusal.rule not in ("tournament.already_created", "auth.token_rejected"):
                raise
            if await self.cases.log.version(tournament_id) == 0:
                raise taken from None
            # Created by another request since the version was read: once more, now that it
            # exists (this request's own keyed retry is answered as stored, any other `taken`).
            return await self.create(tournament_id, settings, grant, key)
        except ReplicasUnconfirmed as unconfirmed:
            if grant.generated:  # the tournament exists under this token now: hand it back
                unconfirmed.write_token = grant.token
            raise
        return Created(state, grant.token if grant.generated else None)

    async def _created_before(
        self,
        tournament_id: str,
        settings: TournamentCreated,
        grant: Grant,
        key: str | None,
        taken: Refusal,
    ) -> Created:
        """The answer to a creation of an existing tournament: the state after the batch
        stored under `key` when it was this request with the same token (read after the
        version, so a concurrent retry's batch is seen), else raises `taken`."""
        replay = await self._replayed(tournament_id, key)
        if replay is None:
            raise taken
        found, state = replay
        same_request(found.first, settings)
        if grant.generated:  # nothing to prove: the answer holds no token
            return Created(state, None)
        stored = await self.cases.log.digest(tournament_id)
        mine = grant.token is not None and stored is not None
        if mine and hmac.compare_digest(stored or "", digest(grant.token or "")):
            return Created(state, None)
        raise taken

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
        if token is None:
            raise Refusal(
                "unauthorized",
                "auth.token_required",
                f"writes to tournament {tournament_id!r} need its organiser token",
                "authorization",
            )
        if not hmac.compare_digest(stored, digest(token)):
            raise Refusal(
                "forbidden",
                "auth.token_rejected",
                f"the token is not the organiser token of tournament {tournament_id!r}",
                "authorization",
            )
        return stored

    async def authorize_as(
        self, tournament_id: str, token: str | None, roles: tuple[Role, ...]
    ) -> Caller:
        """Who `token` is, when one of `roles` may make this write: the organiser token, the
        token of a judge in office, or (role `table`) the write token of a seated table's game,
        handed to that table (`tournament_keys.table_token`). The one check of every
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

    async def appoint_judge(
        self, tournament_id: str, credential: str, judge_id: str, name: str, key: str | None = None
    ) -> tuple[TournamentState, str]:
        """Appoint a judge (organiser): the state and the judge's token (hand it over once;
        the organiser can recompute it, `tournament_keys.judge_token`).

        Raises:
            Refusal: `rule` / `tournament.judge_id_reused` for the id of a dismissed judge (the
                token depends on the id alone: the dismissed judge's would work again).
        """
        payload = JudgeAppointed(judge_id=judge_id, name=name)
        replay = await self._replayed(tournament_id, key)
        if replay is not None:
            same_request(replay[0].first, payload)
            return replay[1], judge_token(credential, tournament_id, judge_id)
        if judge_id in (await self.cases.state(tournament_id)).dismissed_judges:
            raise Refusal(
                "rule",
                "tournament.judge_id_reused",
                f"{judge_id} was dismissed: appoint the judge under a new id",
                "judge_id",
            )
        state = await self._record(tournament_id, [payload], credential, key=key)
        return state, judge_token(credential, tournament_id, judge_id)

    async def dismiss_judge(
        self, tournament_id: str, credential: str, judge_id: str, key: str | None = None
    ) -> TournamentState:
        """Dismiss a judge (organiser): their token stops working."""
        return await self._once(tournament_id, [JudgeDismissed(judge_id=judge_id)], credential, key)

    async def open_games(
        self, tournament_id: str, credential: str, round_number: int | None = None
    ) -> tuple[OpenedTable, ...]:
        """Create (or find) the games of a round's tables and give their write tokens
        (organiser). Empty when this desk creates no games."""
        if self.tables is None:
            return ()
        return tuple(await self.tables.open_round(tournament_id, credential, round_number))

    async def sync_table(
        self, tournament_id: str, caller: Caller, round_number: int, table: int
    ) -> tuple[str, TournamentState]:
        """Take the table's result from its game now (organiser or judge), then approve what
        is due: `Tournaments.result_from_game`'s answer and the state after.

        Raises:
            Refusal: `rule` (`tournament.no_game`, `tournament.game_players`, ...).
        """
        if self.tables is None:
            raise Refusal("rule", "tournament.no_game", "this service creates no games", "table")
        try:
            outcome = await self.tables.sync_table(
                tournament_id, round_number, table, caller.credential
            )
            await self.cases.approve_due(tournament_id, caller.credential)
        except (RuleViolation, VersionConflict, CredentialMismatch) as error:
            raise _refusal(error) from None
        return outcome, await self.cases.state(tournament_id)

    async def approve_due(
        self, tournament_id: str, caller: Caller
    ) -> tuple[list[tuple[int, int]], TournamentState]:
        """Auto-approve the tables whose time is up (`Tournaments.approve_due`)."""
        try:
            due = await self.cases.approve_due(tournament_id, caller.credential)
        except (RuleViolation, VersionConflict, CredentialMismatch) as error:
            raise _refusal(error) from None
        return due, await self.cases.state(tournament_id)

    async def add_player(
        self,
        tournament_id: str,
        credential: str,
        player_id: str,
        name: str,
        seed: int | None,
        key: str | None = None,
    ) -> TournamentState:
        """Register the player before round 1 is seated, else a late join (seated from the
        next round; a late joiner is seeded after everyone, docs/tournament-rules.md).
        `credential`: what `authorize` returned (the append checks it again).

        Raises:
            Refusal: `rule` with `tournament.late_seed` (a `seed` with a late join: it would
                not count, so it is refused rather than dropped), `tournament.player_exists`.
        """
        replay = await self._replayed(tournament_id, key)
        if replay is not None:
            late = isinstance(replay[0].first, PlayerJoinedLate)
            same_request(
                replay[0].first,
                PlayerJoinedLate(player_id=player_id, name=name)
                if late
                else PlayerRegistered(player_id=player_id, name=name, seed=seed),
            )
            return replay[1]
        state = await self.cases.state(tournament_id)
        if state.rounds and seed is not None:
            raise Refusal(
                "rule",
                "tournament.late_seed",
                "round 1 is seated: a late joiner is seeded after every registered player; "
                "send the join without a seed",
                "seed",
            )
        payload: Payload = (
            PlayerJoinedLate(player_id=player_id, name=name)
            if state.rounds
            else PlayerRegistered(player_id=player_id, name=name, seed=seed)
        )
        return await self._record(tournament_id, [payload], credential, key=key)

    async def drop_player(
        self,
        tournament_id: str,
        credential: str,
        player_id: str,
        reason: str,
        key: str | None = None,
    ) -> TournamentState:
        """Drop the player (never seated again; results so far stay)."""
        payload = PlayerDropped(player_id=player_id, reason=reason)
        return await self._once(tournament_id, [payload], credential, key)

    async def seat_next_round(
        self, tournament_id: str, credential: str, key: str | None = None
    ) -> Seated:
        """Approve what is due, seat the next round with the seating engine
        (`Tournaments.seat_next_round`), each table played by a new scoreledger game (when the
        desk has `tables`), and create those games. The retry of a seating stored under `key`
        answers that seating and creates its games when missing.

        Raises:
            Refusal: `rule` with `tournament.round_open`, `tournament.rounds_done`,
                `seating.*` (the active players cannot be seated), ...
        """

        def game_ids(round_number: int, table: int) -> str | None:
            if self.tables is None:
                return None
            return table_game_id(credential, tournament_id, round_number, table)

        replay = await self._replayed(tournament_id, key)
        if replay is not None:
            stored = replay[0].first
            if not isinstance(stored, RoundSeated):
                raise key_reused()
            return Seated(
                _seating_of(stored), await self.open_games(tournament_id, credential, stored.round)
            )
        ids = None if key is None else request_ids("tournament", tournament_id, key, 1)
        try:
            await self.cases.approve_due(tournament_id, credential)
            seating = await self.cases.seat_next_round(
                tournament_id, ORGANISER, credential, game_ids=game_ids, event_ids=ids
            )
        except SeatingError as error:
            raise Refusal("rule", error.rule, str(error), error.field) from None
        except (RuleViolation, VersionConflict, CredentialMismatch) as error:
            raise _refusal(error) from None
        return Seated(seating, await self.open_games(tournament_id, credential, seating.round))

    async def rule_on_table(
        self,
        tournament_id: str,
        caller: str | Caller,
        table: int,
        ruling: TableRuling,
        key: str | None = None,
    ) -> TournamentState:
        """Append the table's report, confirmation, dispute or approval (after approving
        what is due). An approval that leaves every table of the open round approved also
        closes the round (same append), so the next round can be seated. `caller`: from
        `authorize_as` (a bare credential is the organiser).

        Raises:
            Refusal: `forbidden` / `auth.judge_required` (an approval or dispute by the
                organiser while the tournament has a judge); the fold's rules.
        """
        if isinstance(caller, str):
            caller = Caller(caller, "organiser")
        credential = caller.credential
        if caller.table is not None:
            _table_may(caller.table, ruling, table)
        if ruling.action in ("approve", "dispute"):
            ruling = await self._judged(tournament_id, caller, ruling)
        replay = await self._replayed(tournament_id, key)
        if replay is not None:
            same_request(replay[0].first, _asked_payload(table, ruling))
            return replay[1]
        try:
            await self.cases.approve_due(tournament_id, credential)
        except (RuleViolation, VersionConflict, CredentialMismatch) as error:
            raise _refusal(error) from None
        batch: list[Payload] = [_asked_payload(table, ruling)]
        if ruling.action == "approve":
            state = await self.cases.state(tournament_id)
            if _closes(state, ruling.round, table):
                batch.append(RoundClosed(round=ruling.round))
        actor = f"judge {caller.judge_id}" if caller.judge_id else ORGANISER
        return await self._record(tournament_id, batch, credential, actor, key)

    async def _judged(self, tournament_id: str, caller: Caller, ruling: TableRuling) -> TableRuling:
        """`ruling` (an approval or dispute) as the caller may make it: named after the
        caller's judge. Raises: Refusal `auth.judge_required` (the tournament has judges and
        the caller is not one)."""
        judges = (await self.cases.state(tournament_id)).judges
        if judges and caller.role != "judge":
            raise Refusal(
                "forbidden",
                "auth.judge_required",
                "this tournament has judges: only a judge's token approves or disputes",
                "authorization",
            )
        if caller.judge_id is not None:  # the ruling names the judge of the token
            ruling = replace(ruling, by=caller.judge_id)
        return ruling

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
            refusal = _refusal(error)
        else:
            return state
        # Refused on a stream this key's concurrent request (a retry) extended since the
        # caller looked for it: answered as that stored request (a creation's answer also
        # checks the token: `create`).
        creating = isinstance(payloads[0], TournamentCreated)
        replay = None if creating else await self._replayed(tournament_id, key)
        if replay is None:
            raise refusal
        same_request(replay[0].first, payloads[0])
        return replay[1]


def _table_may(own: tuple[int, int], ruling: TableRuling, table: int) -> None:
    """A table's token reports or confirms its own table's result, nothing else."""
    if ruling.action not in ("report", "confirm"):
        raise Refusal(
            "forbidden",
            "auth.table_reports_only",
            "a table's token reports or confirms its result; the organiser or a judge approves",
            "action",
        )
    if (ruling.round, table) != own:
        raise Refusal(
            "forbidden",
            "auth.table_token_other_table",
            f"this token is table {own[1]}'s of round {own[0]}",
            "authorization",
        )


def table_of_token(stored: str, state: TournamentState, token: str) -> tuple[int, int] | None:
    """The `(round, table)` whose game's write token `token` is (None: no seated table's);
    constant-time per table, open rounds and closed alike (a late confirmation)."""
    found = None
    for seated in state.rounds:
        for t in seated.tables.values():
            if t.game_id is not None and hmac.compare_digest(table_token(stored, t.game_id), token):
                found = (seated.number, t.number)
    return found


def check_fives_seat(settings: TournamentCreated) -> None:
    """Refuse `remainder: fives` for a game whose ruleset seats fewer than 5 (its optional
    `max_players`): the 5-player table's game could not be created (Penumbra and Trickerion
    seat at most 4). Checked at creation only, so stored streams still fold.

    Raises:
        Refusal: `rule` / `tournament.remainder_fives`.
    """
    ruleset = RULESET_BY_GAME.get(settings.game)
    seats = getattr(ruleset, "max_players", None)
    if settings.remainder == "fives" and isinstance(seats, int) and seats < 5:
        raise Refusal(
            "rule",
            "tournament.remainder_fives",
            f"{settings.game} seats at most {seats} players: no table of 5 (use threes or byes)",
            "remainder",
        )


def _seating_of(seated: RoundSeated) -> Seating:
    """The seating a stored `round_seated` event records (a retried seating's answer)."""
    tables = tuple(SeatedTable(t.number, t.players, t.reason) for t in seated.tables)
    return Seating(seated.round, tables, seated.byes, seated.reason)


def _asked_payload(table: int, r: TableRuling) -> Payload:
    """What a table write appends first (its retry's check), a bad one refused as the write
    itself is."""
    try:
        return _table_payload(table, r)
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        field = ".".join(str(p) for p in first["loc"]) or "body"
        raise Refusal("invalid", "schema.field", first["msg"], field) from None


def _table_payload(table: int, r: TableRuling) -> Payload:
    missing = "results" if r.action == "report" and r.results is None else None
    if r.action == "confirm" and r.player_id is None:
        missing = "player_id"
    if r.action == "dispute" and not r.reason:
        missing = "reason"
    if missing is not None:
        raise Refusal("invalid", "request.invalid", f"{r.action} needs {missing}", missing)
    if r.action == "report":
        assert r.results is not None
        return TableResultReported(round=r.round, table=table, results=r.results, reported_by=r.by)
    if r.action == "confirm":
        assert r.player_id is not None
        return TableResultConfirmed(round=r.round, table=table, player_id=r.player_id)
    if r.action == "dispute":
        assert r.reason is not None
        return TableResultDisputed(round=r.round, table=table, by=r.by, reason=r.reason)
    return TableResultApproved(round=r.round, table=table, judge=r.by, results=r.results)


def _closes(state: TournamentState, round_number: int, table: int) -> bool:
    """True when approving `table` leaves every table of the open round `round_number`
    approved (the round is the last seated and not closed yet)."""
    if not state.rounds or state.rounds[-1].number != round_number or state.rounds[-1].closed:
        return False
    tables = state.rounds[-1].tables
    return table in tables and all(t.status == "approved" for n, t in tables.items() if n != table)


def _refusal(error: RuleViolation | VersionConflict | CredentialMismatch) -> Refusal:
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
