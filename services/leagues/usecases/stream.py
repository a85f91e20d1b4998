"""League use cases: create a league (organiser token, as a tournament's), add a tournament or
a single game (its results read now and carried in the event, so replays never re-read the
sources), and read the standings and the rating history at any seq.

Authorization is the tournaments': the creating request may choose its organiser token or gets
one back (subject to the deployment's creator key); every addition needs that token, checked
against the stored digest before anything else is read, and the append checks it again.
Refusals: `Refusal` (`unauthorized` / `forbidden` / `auth.*`, `rule` with `league.*`,
`conflict` / `log.expected_version`); `UnknownLeague` for a league with no stream.
"""

from __future__ import annotations

import contextlib
import hmac
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from contracts.envelope import Payload
from contracts.league import (
    LEAGUE_EVENTS,
    GameAdded,
    LeagueCreated,
    LeagueEnvelope,
    LeaguePlayer,
    LeagueTable,
    TournamentAdded,
    TournamentPoints,
)
from domain.errors import RuleViolation
from domain.fold import fold as fold_game
from domain.league.fold import LeagueState, apply, counted_once, fold
from domain.league.player import PlayerRecord, player_record
from domain.league.ratings import Rating, RatingModel, Step, rating_history
from domain.league.standings import LeagueLine, league_standings
from domain.standings import standings as game_standings
from domain.tournament.results import results_from_game
from domain.tournament.standings import standings as tournament_standings
from services.leagues.ports.index import LeagueIndex
from services.leagues.ports.log import LeagueLog
from services.leagues.usecases.links import leagues_of
from services.ports.credentials import CredentialLookup
from services.ports.errors import CredentialMismatch, VersionConflict
from services.ports.eventlog import EventLog
from services.tournaments.usecases.stream import Tournaments, UnknownTournament
from services.usecases.authorize import (
    Authorizer,
    Grant,
    WriteProof,
    check_organiser_token,
    digest,
    first_write,
)
from services.usecases.idempotency import find_request, key_reused, request_ids, same_request
from services.usecases.refusal import Refusal

ORGANISER = "organiser"


class UnknownLeague(LookupError):
    """No stream for the league id."""


@dataclass(eq=False, slots=True)
class Leagues:
    """The league use cases over a `LeagueLog`, reading tournaments and games to add them."""

    log: LeagueLog
    tournaments: Tournaments
    game_log: EventLog
    authorizer: Authorizer
    model: RatingModel
    now: Callable[[], datetime] = lambda: datetime.now(UTC)
    retries: int = 3
    # (league id, `tournament:<id>` / `game:<id>`) after an addition
    added: Callable[[str, str], Awaitable[None]] | None = None
    index: LeagueIndex | None = None  # tournament -> its leagues, kept at each addition

    async def state(self, league_id: str, at_seq: int | None = None) -> LeagueState:
        """The folded league (after `at_seq` when given).

        Raises:
            UnknownLeague: no such stream.
        """
        events = await self.log.read(league_id, 1, at_seq)
        if not events:
            raise UnknownLeague(league_id)
        return fold(events)

    async def standings(self, league_id: str, at_seq: int | None = None) -> list[LeagueLine]:
        """The league table now or after `at_seq`."""
        return league_standings(await self.state(league_id, at_seq))

    async def ratings(
        self, league_id: str, at_seq: int | None = None
    ) -> tuple[list[Step], dict[str, Rating]]:
        """The rating history (every rated game) and the ratings after it."""
        return rating_history(await self.state(league_id, at_seq), self.model)

    async def player(self, league_id: str, player_id: str) -> PlayerRecord | None:
        """The player's record in the league now (`domain.league.player`); None when the
        league names no such player. Raises UnknownLeague: no such stream."""
        state = await self.state(league_id)
        steps, _ = rating_history(state, self.model)
        return player_record(state, player_id, steps)

    def may_create(self, proof: WriteProof) -> Grant:
        """As `TournamentDesk.may_create` (creator key, a chosen token's format)."""
        found = CredentialLookup(digest=None, version=0)
        return self.authorizer.check("", found, proof, generate=True, token_field="authorization")

    async def create(
        self, league_id: str, settings: LeagueCreated, grant: Grant, key: str | None = None
    ) -> tuple[LeagueState, str | None]:
        """Create the league; the state and the organiser token when it was generated. The
        retry of a creation stored under `key` answers the state after it (as
        `TournamentDesk.create`: no token; a chosen one must be the league's).

        Raises:
            Refusal: `conflict` / `league.already_created`.
            ReplicasUnconfirmed: stored, but too few replicas confirmed it in time (its
                `write_token` set to the generated organiser token, as a 201 would give it).
        """
        if grant.token is None or not grant.creating:
            raise ValueError("grant: not a creation's grant (use may_create)")
        taken = Refusal(
            "conflict", "league.already_created", f"league {league_id!r} exists", "league_id"
        )
        # The version first: a keyed retry stored meanwhile is then in the read that follows.
        exists = await self.log.version(league_id) > 0
        replay = await self._replayed(league_id, key) if exists else None
        if replay is not None:
            first, state = replay
            same_request(first, settings)
            stored = await self.log.digest(league_id)
            if grant.generated or (
                stored is not None and hmac.compare_digest(stored, digest(grant.token))
            ):
                return state, None
            raise taken
        if exists:
            raise taken
        write = self._record(league_id, [settings], digest(grant.token), key)
        made = await first_write(write, grant, taken, lambda: self.log.version(league_id))
        if made is None:  # created by another request since the version was read
            return await self.create(league_id, settings, grant, key)
        return made, grant.token if grant.generated else None

    async def authorize(self, league_id: str, token: str | None) -> str:
        """The digest to append with, once `token` is the league's organiser token.

        Raises:
            UnknownLeague; Refusal: `auth.token_required`, `auth.token_rejected`.
        """
        stored = await self.log.digest(league_id)
        if stored is None:
            raise UnknownLeague(league_id)
        check_organiser_token(stored, token, f"league {league_id!r}")
        return stored

    async def add_tournament(
        self, league_id: str, credential: str, tournament_id: str, key: str | None = None
    ) -> LeagueState:
        """Add the tournament (again: replace its results): its standings points and its
        approved tables as they are now.

        Raises:
            Refusal: `league.unknown_tournament`, `league.wrong_game`, `league.nothing_played`,
                `idempotency.key_reused`.
        """
        replay = await self._replayed(league_id, key)
        if replay is not None:  # the tournament may have moved on: the same addition is its id
            first, done = replay
            if not isinstance(first, TournamentAdded) or first.tournament_id != tournament_id:
                raise key_reused()
            if self.index is not None:  # a retry after a crash between append and index
                await self.index.add(tournament_id, league_id)
            return done
        league = await self.state(league_id)
        try:
            state = await self.tournaments.state(tournament_id)
        except UnknownTournament:
            raise Refusal(
                "rule",
                "league.unknown_tournament",
                f"no tournament {tournament_id!r}",
                "tournament_id",
            ) from None
        self._same_game(league, state.settings.game, "tournament_id")
        table = tournament_standings(state)
        tables = tuple(
            LeagueTable(round=r.number, table=t.number, game_id=t.game_id, results=t.approved)
            for r in state.rounds
            for t in r.tables.values()
            if t.status == "approved" and t.approved is not None
        )
        if not tables:
            raise Refusal(
                "rule",
                "league.nothing_played",
                "the tournament has no approved table",
                "tournament_id",
            )
        payload = TournamentAdded(
            tournament_id=tournament_id,
            title=state.settings.title,
            at_seq=state.seq,
            players=tuple(
                LeaguePlayer(player_id=p.player_id, name=p.name) for p in state.players.values()
            ),
            points=tuple(
                TournamentPoints(
                    player_id=line.player_id, points=round(float(line.points.value), 4)
                )
                for line in table.lines
            ),
            tables=tables,
        )
        added = await self._added(
            league_id, payload, credential, f"tournament:{tournament_id}", key
        )
        if self.index is not None:  # after the append: an index entry always has its addition
            await self.index.add(tournament_id, league_id)
        return added

    async def of_tournament(self, tournament_id: str) -> list[tuple[str, str]]:
        """The leagues holding `tournament_id` as `(league id, title)` (`links`)."""
        return (
            [] if self.index is None else await leagues_of(self.index, tournament_id, self._title)
        )

    async def _title(self, league_id: str) -> str | None:
        """The league's title (its first event's); None: no such league."""
        with contextlib.suppress(UnknownLeague):
            return (await self.state(league_id, 1)).settings.title
        return None

    async def add_game(
        self, league_id: str, credential: str, game_id: str, key: str | None = None
    ) -> LeagueState:
        """Add a single game (again: replace its results): its final places, tie-break
        included, and scores as they are now.

        Raises:
            Refusal: `league.unknown_game_id`, `league.wrong_game`, `tournament.game_not_final`,
                `league.game_players` (not 2 to 5 players), `idempotency.key_reused`.
        """
        replay = await self._replayed(league_id, key)
        if replay is not None:
            first, done = replay
            if not isinstance(first, GameAdded) or first.game_id != game_id:
                raise key_reused()
            return done
        league = await self.state(league_id)
        events = await self.game_log.read(game_id)
        if not events:
            raise Refusal("rule", "league.unknown_game_id", f"no game {game_id!r}", "game_id")
        game = game_standings(fold_game(events))
        self._same_game(league, game.game, "game_id")
        if not 2 <= len(game.players) <= 5:  # a solo game rates nobody against anyone
            raise Refusal(
                "rule",
                "league.game_players",
                f"a league game has 2 to 5 players, game {game_id!r} has {len(game.players)}",
                "game_id",
            )
        players = tuple(p.player_id for p in sorted(game.players, key=lambda p: p.seat))
        try:
            results = results_from_game(game, players)
        except RuleViolation as error:
            raise Refusal("rule", error.rule, error.message, error.field) from None
        payload = GameAdded(
            game_id=game_id,
            at_seq=events[-1].seq,
            players=tuple(LeaguePlayer(player_id=p.player_id, name=p.name) for p in game.players),
            results=results,
        )
        return await self._added(league_id, payload, credential, f"game:{game_id}", key)

    async def _replayed(
        self, league_id: str, key: str | None
    ) -> tuple[Payload, LeagueState] | None:
        """The first payload a request under `key` stored and the state right after its
        batch (`services.usecases.idempotency`); None without a key or when none is stored."""
        if key is None:
            return None
        events = await self.log.read(league_id)
        found = find_request(events, "league", league_id, key)
        return None if found is None else (found.first, fold(events[: found.upto]))

    async def _added(
        self, league_id: str, payload: Payload, credential: str, source: str, key: str | None
    ) -> LeagueState:
        # A player forgotten in the source since it was read is hidden in the league too
        # (`SideForget.league_added`).
        state = await self._record(league_id, [payload], credential, key)
        if self.added is not None:
            await self.added(league_id, source)
        return state

    @staticmethod
    def _same_game(league: LeagueState, game: str, field: str) -> None:
        if game != league.settings.game:
            raise Refusal(
                "rule",
                "league.wrong_game",
                f"the league rates {league.settings.game}, not {game}",
                field,
            )

    async def _record(
        self,
        league_id: str,
        payloads: Sequence[Payload],
        credential: str,
        key: str | None = None,
    ) -> LeagueState:
        ids = None if key is None else request_ids("league", league_id, key, len(payloads))
        for attempt in range(self.retries + 1):
            events = await self.log.read(league_id)
            found = find_request(events, "league", league_id, key)
            if found is not None:  # stored by this key's concurrent request since looked for
                same_request(found.first, payloads[0])
                return fold(events[: found.upto])
            state = fold(events) if events else None
            batch: list[LeagueEnvelope] = []
            try:
                for i, payload in enumerate(payloads):
                    seq = len(events) + len(batch) + 1
                    event = self._envelope(league_id, seq, payload, ids[i] if ids else None)
                    if state is not None and isinstance(event.payload, TournamentAdded | GameAdded):
                        counted_once(state, event.payload)  # on the state this append extends
                    state = apply(state, event)
                    batch.append(event)
                await self.log.append(league_id, batch, credential)
            except RuleViolation as error:
                raise Refusal("rule", error.rule, error.message, error.field) from None
            except CredentialMismatch:
                raise Refusal(
                    "forbidden",
                    "auth.token_rejected",
                    "the organiser token does not match",
                    "authorization",
                ) from None
            except VersionConflict as error:
                if attempt == self.retries:
                    raise Refusal(
                        "conflict",
                        "log.expected_version",
                        "the league changed during the write; retry",
                        "seq",
                        {"expected": error.expected, "actual": error.actual},
                    ) from None
                continue
            assert state is not None
            return state
        raise AssertionError("unreachable")  # pragma: no cover

    def _envelope(
        self, league_id: str, seq: int, payload: Payload, event_id: str | None = None
    ) -> LeagueEnvelope:
        event_id = event_id or str(uuid.uuid4())
        return LEAGUE_EVENTS.new(league_id, seq, payload, self.now(), ORGANISER, event_id)
