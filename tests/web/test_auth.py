"""Write tokens over HTTP: chosen by the creator or generated, stored as a digest with the
creating append, checked first on every later write (the rules: services/usecases/authorize.py;
the rules on in-memory adapters: tests/usecases/test_record.py)."""

from __future__ import annotations

import pytest

from services.usecases.authorize import digest
from tests.web.builders import example
from tests.web.conftest import Stack

pytestmark = pytest.mark.redis
CHOSEN = "table-7-chosen-write-token-0123456789"


async def test_ingest_over_http_needs_the_token_and_changes_nothing_without_it(
    stack: Stack,
) -> None:
    events = list(example())
    game_id = events[0].game_id
    created = await stack.post(events[:3])
    assert created.status_code == 201
    token = created.json()["write_token"]
    assert len(token) >= 43
    key = stack.store.keys.write_token(game_id)
    assert await stack.redis.get(key) == digest(token).encode()  # the digest, never the token
    missing = await stack.client.post(f"/games/{game_id}/events", json=[events[3].to_wire()])
    wrong = await stack.post(events[3:4], token="not-the-token")
    assert (missing.status_code, wrong.status_code) == (401, 403)
    assert missing.headers["www-authenticate"] == "Bearer"
    assert missing.json()["rule"] == "auth.token_required"
    assert wrong.json()["rule"] == "auth.token_rejected"
    assert await stack.store.version(game_id) == 3
    ok = await stack.post(events[3:5])
    assert ok.status_code == 201
    assert "write_token" not in ok.json()


async def test_a_creator_chooses_its_token_and_recovers_a_lost_201_with_it(
    stack: Stack,
) -> None:
    events = list(example())
    first = await stack.post(events[:2], token=CHOSEN)
    assert first.status_code == 201, first.text
    assert first.json()["write_token"] == CHOSEN
    # The 201 was lost: the same request again, with the same chosen token.
    retry = await stack.post(events[:2], token=CHOSEN)
    assert retry.status_code == 201
    assert [(a["seq"], a["duplicate"]) for a in retry.json()["appended"]] == [(1, True), (2, True)]
    assert "write_token" not in retry.json()
    assert (await stack.post(events[2:3], token=CHOSEN)).status_code == 201


async def test_a_tokenless_exact_retry_is_refused_now(stack: Stack) -> None:
    """Changed by docs/decisions/0009-one-authorization-on-every-write.md: the token is checked first, so a retry without it gets 401 (it used
    to be answered with positions); a creator recovers with the token it chose instead."""
    events = list(example())
    await stack.post(events[:2])
    retry = await stack.client.post(
        f"/games/{events[0].game_id}/events", json=[e.to_wire() for e in events[:2]]
    )
    assert retry.status_code == 401


async def test_a_short_chosen_token_creates_nothing(stack: Stack) -> None:
    events = list(example())
    short = await stack.post(events[:1], token="too-short")
    assert short.status_code == 422
    assert (short.json()["rule"], short.json()["field"]) == ("auth.token_format", "authorization")
    assert await stack.store.version(events[0].game_id) == 0


async def test_the_token_is_checked_before_the_body_is_read(stack: Stack) -> None:
    events = list(example())
    await stack.post(events[:1])
    garbage = await stack.client.post(
        f"/games/{events[0].game_id}/events",
        content=b"\xff not json at all",
        headers={"content-type": "application/json"},
    )
    assert garbage.status_code == 401  # not 422: the body was never parsed


async def test_a_game_stored_without_a_token_takes_no_http_write(stack: Stack) -> None:
    events = list(example())
    await stack.append(events[:2])  # raw log append: no credential
    refused = await stack.post(events[2:3], token=CHOSEN)
    assert refused.status_code == 403
    assert await stack.store.version(events[0].game_id) == 2
