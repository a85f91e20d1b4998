"""The standings view built by hand from the pydantic models, field by field: the reference the
one renderer (`services.usecases.readmodels.render`) is held to. Written independently of it (it
was the query service's own builder before the renderer), so a test comparing the two can fail.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from domain.standings import CategoryLabel, PlayerStanding, Standings
from services.usecases.readmodels.labels import category_labels, outcome_text
from services.usecases.readmodels.shapes import (
    CategoryPoints,
    PlayerLine,
    ProvisionalView,
    StandingsResponse,
)


def standings_view(
    result: Standings,
    source: Literal["projection", "replay"],
    checkpoint: str | None = None,
    updated_at: str | None = None,
) -> StandingsResponse:
    """The HTTP body of `result`: each player's breakdown labelled EN/RU (every category shown,
    0 where none), the provisional part during play, and the outcome in words."""
    labels = category_labels(result)
    return StandingsResponse(
        title=result.title,
        score_unit_label=result.score_unit_label,
        game_id=result.game_id,
        game=result.game,
        status=result.status,
        seq=result.seq,
        score_unit=result.score_unit,
        players=[_player_line(p, labels) for p in result.players],
        winner=result.winner,
        winners=result.winners,
        tie_break=result.tie_break,
        result=outcome_text(result) or None,
        source=source,
        checkpoint=checkpoint,
        updated_at=updated_at,
    )


def _player_line(player: PlayerStanding, labels: Sequence[CategoryLabel]) -> PlayerLine:
    """One player's line of `standings_view`, with every category of `labels`."""
    provisional = None
    if player.provisional is not None:
        provisional = ProvisionalView(
            categories=[
                CategoryPoints(
                    key=c.key,
                    en=c.en,
                    ru=c.ru,
                    endgame=c.endgame,
                    points=player.provisional.categories[c.key],
                )
                for c in labels
                if c.key in player.provisional.categories
            ],
            total=player.provisional.total,
        )
    return PlayerLine(
        player_id=player.player_id,
        name=player.name,
        seat=player.seat,
        rank=player.rank,
        total=player.total,
        breakdown=[
            CategoryPoints(
                key=c.key,
                en=c.en,
                ru=c.ru,
                endgame=c.endgame,
                points=player.categories.get(c.key, 0),
            )
            for c in labels
        ],
        provisional=provisional,
        resources=player.resources,
        card_lines=player.card_lines,
    )
