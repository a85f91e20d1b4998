"""The organiser's desk: the tournament writes the doors offer, each authorized first.

Authorization is the games' (`services.usecases.authorize`): the request that creates a
tournament may choose its organiser token (32+ URL-safe characters) or gets a generated one
back; only the creation is subject to the deployment's creator key. Every later write needs
that token: none sent is `unauthorized` / `auth.token_required`, a wrong one `forbidden` /
`auth.token_rejected`, both checked against the stored digest before anything else is read,
and the append itself carries the digest again (the store refuses a mismatch atomically).
Judges: the organiser appoints them (`tournament.judge_appointed`); a judge's token is derived
from the organiser digest (`keys.judge_token`, never stored) and checked by the same
`authorize_as`. While a tournament has a judge in office only a judge approves or disputes
(the organiser token is `forbidden` / `auth.judge_required`, checked after a keyed retry's
lookup: a ruling stored before is answered as stored) and the ruling names the judge
from the token, not from the body; with no judge appointed the organiser rules. Reports and
confirmations take either token. Seating a round creates each table's game
(`tables.TableGames.open_round`); auto-approval runs before every table write and
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
from dataclasses import dataclass

from pydantic import ValidationError

from contracts.envelope import Payload
from contracts.tournament import (
    JudgeAppointed,
    JudgeDismissed,
    PlayerCheckedIn,
    PlayerDropped,
    PlayerJoinedLate,
    PlayerRegistered,
    RoundSeated,
    RoundTimerStarted,
    TournamentCreated,
)
from domain.errors import RuleViolation
from domain.rulesets import RULESET_BY_GAME
from domain.tournament.seating import SeatedTable, Seating
from domain.tournament.state import TournamentState
from domain.tournament.tables import SeatingError
from services.ports.errors import CredentialMismatch, VersionConflict
from services.tournaments.usecases.access import (
    ORGANISER,
    Caller,
    Role,
    refusal_of,
    table_of_token,
)
from services.tournaments.usecases.keys import judge_token, table_game_id
from services.tournaments.usecases.rulings import TableRuling, TableRulings
from services.tournaments.usecases.stream import Tournaments
from services.tournaments.usecases.tables import OpenedTable, TableGames
from services.usecases.authorize import Authorizer, Grant, digest, first_write
from services.usecases.idempotency import key_reused, request_ids, same_request
from services.usecases.refusal import Refusal

__all__ = [
    "ORGANISER",
    "Caller",
    "Created",
    "Role",
    "Seated",
    "TableRuling",
    "TournamentDesk",
    "check_fives_seat",
    "table_of_token",
]


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


class TournamentDesk(TableRulings):
    """Create, register, drop, seat and rule on tables, over `Tournaments`."""

    def __init__(
        self, cases: Tournaments, authorizer: Authorizer, tables: TableGames | None = None
    ) -> None:
        super().__init__(cases, authorizer)
        self.tables = tables

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
        write = self._record(tournament_id, [settings], digest(grant.token), key=key)
        state = await first_write(
            write, grant, taken, lambda: self.cases.log.version(tournament_id)
        )
        if state is None:  # created by another request since the version was read
            return await self.create(tournament_id, settings, grant, key)
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

    async def appoint_judge(
        self, tournament_id: str, credential: str, judge_id: str, name: str, key: str | None = None
    ) -> tuple[TournamentState, str]:
        """Appoint a judge (organiser): the state and the judge's token (hand it over once;
        the organiser can recompute it, `keys.judge_token`).

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
            raise refusal_of(error) from None
        return outcome, await self.cases.state(tournament_id)

    async def approve_due(
        self, tournament_id: str, caller: Caller
    ) -> tuple[list[tuple[int, int]], TournamentState]:
        """Auto-approve the tables whose time is up (`Tournaments.approve_due`)."""
        try:
            due = await self.cases.approve_due(tournament_id, caller.credential)
        except (RuleViolation, VersionConflict, CredentialMismatch) as error:
            raise refusal_of(error) from None
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

    async def check_in(
        self, tournament_id: str, credential: str, player_id: str, key: str | None = None
    ) -> TournamentState:
        """Check the player in (organiser): from the first check-in on, a round seats only
        the checked-in players and late joiners (docs/rules/tournaments.md#check-in).

        Raises:
            Refusal: `rule` / `tournament.unknown_player`, `tournament.player_dropped`,
                `tournament.checked_in`.
        """
        return await self._once(
            tournament_id, [PlayerCheckedIn(player_id=player_id)], credential, key
        )

    async def start_timer(
        self,
        tournament_id: str,
        credential: str,
        round_number: int,
        minutes: int,
        key: str | None = None,
    ) -> TournamentState:
        """Start (or restart) the open round's clock for `minutes` (organiser); the room
        screen counts it down (docs/rules/tournaments.md#round-timer).

        Raises:
            Refusal: `rule` / `tournament.timer_round`; `invalid` / `schema.field` (minutes
                outside 1..600).
        """
        payload = timer_payload(round_number, minutes)
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
            raise refusal_of(error) from None
        return Seated(seating, await self.open_games(tournament_id, credential, seating.round))


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


def timer_payload(round_number: int, minutes: int) -> RoundTimerStarted:
    """The timer's event, a bad value refused as the request (`invalid` / `schema.field`)."""
    try:
        return RoundTimerStarted(round=round_number, minutes=minutes)
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        field = ".".join(str(p) for p in first["loc"]) or "body"
        raise Refusal("invalid", "schema.field", first["msg"], field) from None


def _seating_of(seated: RoundSeated) -> Seating:
    """The seating a stored `round_seated` event records (a retried seating's answer)."""
    tables = tuple(SeatedTable(t.number, t.players, t.reason) for t in seated.tables)
    return Seating(seated.round, tables, seated.byes, seated.reason)
