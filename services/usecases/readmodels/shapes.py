"""Response bodies of the query service (they are the OpenAPI schema in contracts/openapi.json).

Units: `total`, `points` and `amount` are in the game's score unit (`score_unit`: Fame for
Trickerion, VP for Penumbra) unless a ledger entry names another `resource` (Coins, Shards, Arcana).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from domain.details import CardLine
from domain.standings import Label


class View(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class GameSummary(View):
    """One game in `GET /games`. `status` is `pending` while the projector has not built it."""

    game_id: str
    game: str | None
    status: Literal["in_progress", "final", "pending"]
    seq: int = Field(description="the projection's seq (0 when pending)")
    version: int = Field(description="events stored for the game (the log's version)")
    updated_at: str | None = Field(description="when the projection last changed (ISO 8601)")


MAX_GAMES_PAGE = 500
"""Most games one page of `GET /games` (or the first `/games/live` frame) holds."""


class GamesResponse(View):
    """`GET /games`: live games first, then finished ones, most recently updated first; one
    page (`page`, 1-based, of `limit` games) of `total`, `next_page` null on the last."""

    games: list[GameSummary]
    page: int = Field(default=1, ge=1)
    limit: int = Field(default=100, ge=1, le=MAX_GAMES_PAGE)
    total: int = Field(default=0, ge=0, description="games stored")
    next_page: int | None = Field(default=None, description="the next page, null on the last")

    @classmethod
    def paged(cls, games: list[GameSummary], page: int, limit: int) -> GamesResponse:
        """Page `page` (1-based) of `limit` games out of the whole ordered list `games`."""
        return cls.of_page(games[(page - 1) * limit : page * limit], page, limit, len(games))

    @classmethod
    def of_page(cls, chosen: list[GameSummary], page: int, limit: int, total: int) -> GamesResponse:
        """The response for page `page` holding `chosen`, of `total` games in all."""
        more = page * limit < total
        return cls(
            games=chosen,
            page=page,
            limit=limit,
            total=total,
            next_page=page + 1 if more else None,
        )


class CategoryPoints(View):
    """Points of one breakdown category with its English and Russian labels."""

    key: str
    en: str
    ru: str
    endgame: bool
    points: int


class ProvisionalView(View):
    """ "If the game ended now": end-game categories from the current state (not final)."""

    categories: list[CategoryPoints]
    total: int


class PlayerLine(View):
    """One player's line: shared rank, total and breakdown (score units)."""

    player_id: str
    name: str
    seat: int
    rank: int
    total: int
    breakdown: list[CategoryPoints]
    provisional: ProvisionalView | None
    resources: dict[str, int] = Field(default_factory=dict, description="held besides the score")
    card_lines: list[CardLine] = Field(default_factory=list, description="one per scored card")


class StandingsResponse(View):
    """A game's standings.

    `source` is `projection` (read from the projector's HASH, with the shard `checkpoint` it was
    written at) or `replay` (the log folded up to `seq` with the pure domain, `at_seq`).
    `result` says the winner and the tie-break in words once the game is final.
    """

    game_id: str
    game: str
    status: Literal["in_progress", "final"]
    seq: int
    score_unit: str
    players: list[PlayerLine]
    winner: str | None
    winners: list[str]
    tie_break: str | None
    result: str | None
    source: Literal["projection", "replay"]
    checkpoint: str | None = Field(description="the shard's projector checkpoint (feed entry id)")
    updated_at: str | None
    title: Label | None = Field(None, description="the game's name, EN/RU (game registry)")
    score_unit_label: Label | None = Field(
        None, description="the score unit's display name, EN/RU (Fame/Слава, VP/ПО)"
    )


class AuditEvent(View):
    """One stored event of the audit log; `voided_by_seq` is the seq of the void, if any."""

    seq: int
    event_id: str
    type: str
    occurred_at: str
    recorded_at: str | None
    actor: str
    voided: bool
    voided_by_seq: int | None
    event: dict[str, Any] = Field(description="the full envelope in its wire format (upcast)")


class EventsPage(View):
    """`GET /games/{id}/events`: one page of the log; `next_from_seq` is null on the last page."""

    game_id: str
    version: int
    from_seq: int
    limit: int
    next_from_seq: int | None
    events: list[AuditEvent]


class LedgerLine(View):
    """One ledger entry with the event that caused it."""

    seq: int
    event_id: str
    event_type: str
    occurred_at: str
    resource: str
    category: str
    amount: int
    rule: str
    note: str


class LedgerResponse(View):
    """`GET /games/{id}/players/{pid}/ledger`: every change of the player, in order, and the
    sum per resource (`fame`, `vp`, `coins`, `shards`, `arcana`)."""

    game_id: str
    player_id: str
    seq: int
    entries: list[LedgerLine]
    totals: dict[str, int]


class ErrorBody(View):
    """A 4xx/5xx body: a stable `error` code and a readable `message`."""

    error: str
    message: str
    field: str | None = None


class Health(View):
    """`/healthz` and `/readyz`; `checks` names each dependency's state (`degraded`: ready,
    but the projector holds games, listed in `checks.held`)."""

    status: Literal["ok", "degraded", "unavailable"]
    checks: dict[str, Any] = {}
