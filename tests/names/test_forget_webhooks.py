"""A forget scrubs the webhook deliveries kept for the game (queued and in the delivery log):
their bodies show the pseudonym, so `scoreledger webhooks replay` never sends the name again
(docs/forget.md)."""

from __future__ import annotations

from datetime import UTC, datetime

from domain.fold import fold
from domain.standings import standings
from services.webhooks.ports import Delivery, Endpoint, Secret
from services.webhooks.usecases.admin import WebhookAdmin
from services.webhooks.usecases.dispatch import Bounds
from services.webhooks.usecases.messages import (
    event_messages,
    standings_message,
    standings_summary,
)
from tests.names import test_forget
from tests.names.helpers import GAME, PLAYER, holds_name
from tests.names.test_forget import App

app = test_forget.app
"""The memory service with the example game projected final (`test_forget.app`)."""

OTHER = "other-game"


async def _kept(app: App) -> list[Delivery]:
    """Deliveries of the game (and one of another game naming the same person) kept by the
    store as the dispatcher keeps them: one delivered (logged), the rest pending."""
    store = app.service.ports.webhooks
    endpoint = Endpoint("ep-1", "https://hooks.example/in", None, (), (Secret("whsec_x"),), 0)
    await store.put_endpoint(endpoint)
    events = await app.service.ports.named_log().read(GAME)
    summary = standings_summary(standings(fold(events)))
    now = datetime(2026, 12, 6, tzinfo=UTC)
    bodies = [b for _, _, b in event_messages(events, summary)]
    bodies.append(standings_message(GAME, summary, now))
    out = [Delivery(f"msg_{i}", endpoint.id, "x", GAME, body, 0) for i, body in enumerate(bodies)]
    out.append(Delivery("msg_other", endpoint.id, "x", OTHER, bodies[0].replace(GAME, OTHER), 0))
    for delivery in out:
        await store.enqueue(delivery, 100, 100)
    await store.settle(out[0], "delivered", 200, 100)
    return out


async def test_a_forget_scrubs_kept_webhook_bodies_and_a_replay_sends_no_name(app: App) -> None:
    store = app.service.ports.webhooks
    kept = await _kept(app)
    logged = await store.log("ep-1", 100)
    assert [e.delivery.id for e in logged if holds_name(e.delivery.body.encode())]  # can fail
    await app.forget()
    logged = await store.log("ep-1", 100)
    assert len(logged) == len(kept)
    named = {e.delivery.id for e in logged if holds_name(e.delivery.body.encode())}
    assert named == {"msg_other"}  # another game's body is not this game's to change
    first = next(e for e in logged if e.delivery.id == "msg_0")
    assert '"player_id":"oren","name":"player-2","seat":2' in first.delivery.body
    admin = WebhookAdmin(store, None, Bounds(100, 100))  # type: ignore[arg-type]
    again = await admin.replay("msg_0")
    assert not holds_name(again.body.encode())
    assert PLAYER in again.body
