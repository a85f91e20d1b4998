"""The live frames (server-sent events) the service sends, as pydantic v2 models: the `data`
of each SSE event of `GET /games/{game_id}/live` and `GET /games/live`, published in
`contracts/openapi.json` (each stream's `x-itemSchema`) and checked against frames a running
service sends (`tests/web/test_frames.py`). How a client resumes (`Last-Event-ID`) is on
docs/integrating/live.md.

`GET /games/{game_id}/live`, event `standings`, `id` = the change's `entry_id`:

* `StandingsFrame` first (and after a resume that missed a change): `change` null and the
  whole standings, the body of `GET /games/{game_id}/standings`;
* `CompactStandingsFrame` for every later change: `compact: true` and the standings with
  each player a `CompactLine` (no labels; the first frame's labels stand).

`GET /games/live`: event `games` first, the body of `GET /games?limit=` (`GamesResponse`),
then event `game` per change, a `GameFrame`.

`GET /tournaments/{tournament_id}/live`: event `tournament`, `id` = the tournament's seq, each
frame the whole state, a `TournamentFrame` (`contracts.tournament_frames`).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema

from contracts.tournament_frames import TournamentFrame


class _Frame(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Change(_Frame):
    """The change a frame reports: the game's shard, the entry id in that shard's change
    stream (the SSE `id`, what `Last-Event-ID` resumes from), the game and its seq."""

    shard: int = Field(ge=0)
    entry_id: str = Field(pattern=r"^[0-9]+-[0-9]+$")
    game_id: str
    seq: int = Field(ge=0)


StandingsBody = Annotated[
    dict[str, Any],
    WithJsonSchema(
        {
            "type": "object",
            "description": "the body of `GET /games/{game_id}/standings` (`StandingsResponse`)",
        }
    ),
]
"""The body of `GET /games/{game_id}/standings`; the HTTP contract refers it to its
`StandingsResponse` schema (`REFERS`): that model is the query service's, not a contract's."""


class StandingsFrame(_Frame):
    """A whole frame of `GET /games/{game_id}/live` (event `standings`): the first, and the
    first after a resume that missed a change. `change` is null: the frame is the game's
    standings as they stand, and its SSE `id` (absent while the game's shard has no change
    yet) the change-stream position they reflect."""

    change: None
    standings: StandingsBody


class CompactProvisional(_Frame):
    """A compact frame's provisional part: the total and `{category key: points}` (non-zero)."""

    total: int
    points: dict[str, int]


class CompactLine(_Frame):
    """One player in a compact frame: the `PlayerLine` of the standings without labels,
    `points` `{category key: points}` of the non-zero categories (a missing one is 0)."""

    player_id: str
    name: str
    seat: int
    rank: int
    total: int
    points: dict[str, int]
    provisional: CompactProvisional | None


class CompactStandings(BaseModel):
    """The standings of a compact frame: every member of `StandingsResponse` as the whole frame
    has it, except `players`, each a `CompactLine`."""

    model_config = ConfigDict(extra="allow", frozen=True)

    game_id: str
    seq: int
    status: Literal["in_progress", "final"]
    players: list[CompactLine]


class CompactStandingsFrame(_Frame):
    """A later frame of `GET /games/{game_id}/live` (event `standings`, `compact: true`)."""

    change: Change
    compact: Literal[True]
    standings: CompactStandings


class GameLine(_Frame):
    """A changed game in a `game` frame of `GET /games/live`: as `GameSummary` of `GET /games`
    without `version`; `status` is `pending` while the projector has not built the game."""

    game_id: str
    game: str | None
    status: Literal["in_progress", "final", "pending"]
    seq: int = Field(ge=0)
    updated_at: str | None


class GameFrame(_Frame):
    """A change of `GET /games/live` (event `game`, `id` = the change's `entry_id`)."""

    change: Change
    summary: GameLine


REFERS: dict[str, dict[str, str]] = {"StandingsFrame": {"standings": "StandingsResponse"}}
"""model -> field -> the HTTP contract's schema that field's value is (by `$ref` there)."""

GAMES_LIST = "#/components/schemas/GamesResponse"
"""The `games` event of `GET /games/live`: the first page of `GET /games`."""

SSE_EVENTS: dict[str, dict[str, list[type[BaseModel] | str]]] = {
    "/games/{game_id}/live": {"standings": [StandingsFrame, CompactStandingsFrame]},
    "/games/live": {"games": [GAMES_LIST], "game": [GameFrame]},
    "/tournaments/{tournament_id}/live": {"tournament": [TournamentFrame]},
}
"""Per SSE route, per event name, the shapes its `data` takes (a model, or a `$ref`)."""
