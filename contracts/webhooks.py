"""The outbound webhook messages (pydantic v2): what a receiver gets in the body of each
Standard Webhooks request, `{"type", "timestamp", "data"}`. Published as the `webhooks` of
`contracts/openapi.json`; `services/webhooks/usecases/messages.py` builds the bodies and a test
holds them to these models.

Totals are in the game's score unit (Trickerion: Fame; Penumbra: VP). Source: Standard Webhooks
1.0 (payload structure: type, timestamp, data; thin payloads).
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class _Shape(BaseModel):
    model_config = ConfigDict(extra="forbid")


class WebhookStandingsLine(_Shape):
    """One player's place: `rank` (shared places 1, 1, 3), `total` so far, and the total "if the
    game ended now" (`provisional_total`, the total once final)."""

    player_id: str
    name: str
    rank: int
    total: int
    provisional_total: int


class WebhookStandingsSummary(_Shape):
    """The standings as projected when the message was made: at `seq`; `winner` once final."""

    seq: int
    status: Literal["in_progress", "final"]
    winner: str | None
    players: list[WebhookStandingsLine]


class WebhookSeatLine(_Shape):
    """A seated player of a started game."""

    player_id: str
    name: str
    seat: int


class WebhookEventData(_Shape):
    """The log event a message reports: its game, position, id and table time."""

    game_id: str
    seq: int
    event_id: str
    occurred_at: datetime


class WebhookGameStartedData(WebhookEventData):
    """`game.started`: the game (`trickerion`, `penumbra`) and its players."""

    game: str
    players: list[WebhookSeatLine]


class WebhookGameEndedData(WebhookEventData):
    """`game.ended`: the final standings."""

    reason: str | None
    standings: WebhookStandingsSummary | None


class WebhookEventVoidedData(WebhookEventData):
    """`event.voided`: a referee voided `voided_event_id`; the standings without it."""

    voided_event_id: str
    reason: str
    referee: str
    reopens_game: bool
    standings: WebhookStandingsSummary | None


class WebhookScoreCorrectedData(WebhookEventData):
    """`score.corrected`: a referee's adjustment of `player_id` by `amount` in `category`."""

    player_id: str
    amount: int
    category: str
    reason: str
    referee: str
    standings: WebhookStandingsSummary | None


class WebhookStandingsChangedData(_Shape):
    """`standings.changed`: the game's newest standings (coalesced: at most one pending per
    game and endpoint)."""

    game_id: str
    standings: WebhookStandingsSummary


class WebhookProbeData(_Shape):
    """`webhook.test`: sent by `scoreledger webhooks test`."""

    message: str


class _Message(_Shape):
    timestamp: datetime = Field(description="when it happened (recorded), UTC")


class WebhookGameStarted(_Message):
    """A game started."""

    type: Literal["game.started"]
    data: WebhookGameStartedData


class WebhookGameEnded(_Message):
    """A game ended: the final standings."""

    type: Literal["game.ended"]
    data: WebhookGameEndedData


class WebhookEventVoided(_Message):
    """A referee voided an event."""

    type: Literal["event.voided"]
    data: WebhookEventVoidedData


class WebhookScoreCorrected(_Message):
    """A referee corrected a score."""

    type: Literal["score.corrected"]
    data: WebhookScoreCorrectedData


class WebhookStandingsChanged(_Message):
    """A game's standings changed (coalesced)."""

    type: Literal["standings.changed"]
    data: WebhookStandingsChangedData


class WebhookProbe(_Message):
    """A test event (`scoreledger webhooks test`)."""

    type: Literal["webhook.test"]
    data: WebhookProbeData


MESSAGES: dict[str, type[_Message]] = {
    "game.started": WebhookGameStarted,
    "standings.changed": WebhookStandingsChanged,
    "game.ended": WebhookGameEnded,
    "event.voided": WebhookEventVoided,
    "score.corrected": WebhookScoreCorrected,
    "webhook.test": WebhookProbe,
}
"""Each message type's model, by its `type`."""
