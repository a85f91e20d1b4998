"""A hostile or clumsy integrator against the HTTP ingest and query (black box, raw JSON):
malformed bodies, all-or-nothing batches, tokens, racing writers, retries, replay bounds,
voids and corrections. Each test states what the docs promise (docs/integrating/http.md).
"""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

import httpx
import pytest

from tests.adversarial.conftest import PENUMBRA, Stack, correction, example_game, void

pytestmark = pytest.mark.redis


async def create(stack: Stack, game_id: str, upto: int = 1) -> tuple[list[dict[str, Any]], str]:
    """Post the example Penumbra game's first `upto` events; return the log and write token."""
    log = example_game(game_id)
    first = await stack.client.post(f"/games/{game_id}/events", json=log[0])
    assert first.status_code == 201, first.text
    token = first.json()["write_token"]
    if upto > 1:
        rest = await post(stack, game_id, log[1:upto], token)
        assert rest.status_code == 201, rest.text
    return log, token


async def post(stack: Stack, game_id: str, body: Any, token: str | None) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return await stack.client.post(f"/games/{game_id}/events", json=body, headers=headers)


async def version(stack: Stack, game_id: str) -> int:
    return int((await stack.client.get(f"/games/{game_id}/events?limit=1")).json()["version"])


def changed(event: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {**event, **fields}


@pytest.mark.parametrize(
    ("label", "mutate", "status"),
    [
        ("unknown type", lambda e: changed(e, type="chess.moved"), 422),
        ("extra envelope field", lambda e: changed(e, extra=1), 422),
        ("extra payload field", lambda e: changed(e, payload={**e["payload"], "x": 1}), 422),
        ("seq 0", lambda e: changed(e, seq=0), 422),
        ("seq negative", lambda e: changed(e, seq=-1), 422),
        ("seq gap", lambda e: changed(e, seq=7), 409),
        (
            "timestamp without timezone",
            lambda e: changed(e, occurred_at="2026-11-28T19:02:20"),
            422,
        ),
        ("game_id not the path's", lambda e: changed(e, game_id="other-game"), 422),
        ("event_id not a UUID", lambda e: changed(e, event_id="42"), 422),
        ("schema_version from the future", lambda e: changed(e, schema_version=99), 422),
        ("blank actor", lambda e: changed(e, actor="   "), 422),
    ],
)
async def test_malformed_event_is_refused_and_nothing_is_stored(
    stack: Stack, label: str, mutate: Any, status: int
) -> None:
    """docs/integrating/http.md: 409 on a version conflict, 422 naming the field or rule; the log only holds
    events the rules accept."""
    log, token = await create(stack, "hostile-1")
    response = await post(stack, "hostile-1", mutate(log[1]), token)
    assert response.status_code == status, (label, response.text)
    assert await version(stack, "hostile-1") == 1


@pytest.mark.parametrize(
    "raw", [b"{not json", b"", b"null", b"42", b"[]", b"[1]", b"[" * 100_000 + b"]" * 100_000]
)
async def test_body_that_is_not_events_is_refused(stack: Stack, raw: bytes) -> None:
    _, token = await create(stack, "hostile-2")
    response = await stack.client.post(
        "/games/hostile-2/events",
        content=raw,
        headers={"Authorization": f"Bearer {token}", "content-type": "application/json"},
    )
    assert 400 <= response.status_code < 500, response.text
    assert await version(stack, "hostile-2") == 1


async def test_batch_over_the_limit_is_refused(stack: Stack) -> None:
    log, token = await create(stack, "hostile-3")
    response = await post(stack, "hostile-3", [log[1]] * 1001, token)
    assert response.status_code == 422
    assert await version(stack, "hostile-3") == 1


@pytest.mark.parametrize("bad_index", [0, 3, 7])
async def test_batch_with_one_bad_event_stores_nothing(stack: Stack, bad_index: int) -> None:
    """docs/architecture/index.md: the append writes 'all or nothing'; here event `bad_index` of 8 breaks a rule."""
    log, token = await create(stack, "hostile-4")
    batch = [dict(e) for e in log[1:9]]
    batch[bad_index] = correction("hostile-4", batch[bad_index]["seq"], "nobody", 1)
    response = await post(stack, "hostile-4", batch, token)
    assert response.status_code == 422, response.text
    assert response.json()["rule"] == "correction.unknown_player"
    assert await version(stack, "hostile-4") == 1


async def test_same_event_twice_in_one_batch_is_stored_once(stack: Stack) -> None:
    log, token = await create(stack, "hostile-5")
    response = await post(stack, "hostile-5", [log[1], log[1], log[2]], token)
    assert response.status_code == 201, response.text
    assert [a["duplicate"] for a in response.json()["appended"]] == [False, True, False]
    assert await version(stack, "hostile-5") == 3


async def test_write_tokens_missing_wrong_or_of_another_game(stack: Stack) -> None:
    """docs/integrating/http.md: '401/403 without the game's token'; nothing is stored."""
    log_a, token_a = await create(stack, "tok-a")
    _, token_b = await create(stack, "tok-b")
    assert (await post(stack, "tok-a", log_a[1], None)).status_code == 401
    assert (await post(stack, "tok-a", log_a[1], "x" * 43)).status_code == 403
    assert (await post(stack, "tok-a", log_a[1], token_b)).status_code == 403
    assert await version(stack, "tok-a") == 1
    assert (await post(stack, "tok-a", log_a[1], token_a)).status_code == 201


async def test_game_created_without_http_accepts_no_token(stack: Stack) -> None:
    """services/auth.py: a game created through the (trusted) inbox has no write token, so no
    HTTP writer can claim it, whatever token it sends."""
    from contracts.events import parse_event

    log = example_game("tok-inbox")
    await stack.append([parse_event(log[0])])
    _, other_token = await create(stack, "tok-other")
    for token in (None, other_token):
        response = await post(stack, "tok-inbox", log[1], token)
        assert response.status_code in (401, 403), response.text
    assert await version(stack, "tok-inbox") == 1


async def test_racing_writers_with_the_same_expected_version_exactly_one_wins(
    stack: Stack,
) -> None:
    log, token = await create(stack, "race-1")
    rivals = [changed(log[1], event_id=str(uuid.uuid4())) for _ in range(12)]
    answers = await asyncio.gather(*(post(stack, "race-1", e, token) for e in rivals))
    assert sorted(a.status_code for a in answers) == [201] + [409] * 11
    assert all(a.json()["version"] == 2 for a in answers if a.status_code == 409)
    assert await version(stack, "race-1") == 2


async def test_concurrent_retries_of_one_event_count_it_once(stack: Stack) -> None:
    log, token = await create(stack, "retry-1", upto=10)
    await stack.wait_projected("retry-1", 10)
    before = (await stack.client.get("/games/retry-1/standings?at_seq=10")).json()
    answers = await asyncio.gather(*(post(stack, "retry-1", log[10], token) for _ in range(12)))
    assert {a.status_code for a in answers} == {201}
    assert [a.json()["appended"][0]["duplicate"] for a in answers].count(False) == 1
    assert {a.json()["appended"][0]["seq"] for a in answers} == {11}
    assert await version(stack, "retry-1") == 11
    await stack.wait_projected("retry-1", 11)
    live = (await stack.client.get("/games/retry-1/standings")).json()
    replay = (await stack.client.get("/games/retry-1/standings?at_seq=11")).json()
    assert live["players"] == replay["players"]
    assert live["seq"] == 11
    assert before["seq"] == 10


async def test_racing_creators_of_one_game_one_token(stack: Stack) -> None:
    log = example_game("race-create")
    starts = [changed(log[0], event_id=str(uuid.uuid4())) for _ in range(10)]
    answers = await asyncio.gather(*(post(stack, "race-create", e, None) for e in starts))
    assert [a.status_code for a in answers].count(201) == 1
    assert sum("write_token" in a.json() for a in answers if a.status_code == 201) == 1
    assert await version(stack, "race-create") == 1


@pytest.mark.parametrize(
    ("at_seq", "status"),
    [("0", 422), ("-1", 422), ("abc", 422), ("1.5", 422), ("", 422), ("6", 404), ("9" * 30, 404)],
)
async def test_at_seq_out_of_range(stack: Stack, at_seq: str, status: int) -> None:
    await create(stack, "replay-1", upto=5)
    response = await stack.client.get(f"/games/replay-1/standings?at_seq={at_seq}")
    assert response.status_code == status, response.text


async def test_at_seq_bounds_and_live_equal_replay_at_n(stack: Stack) -> None:
    log, _ = await create(stack, "replay-2", upto=len(example_game("x")))
    n = len(log)
    await stack.wait_projected("replay-2", n)
    first = await stack.client.get("/games/replay-2/standings?at_seq=1")
    assert first.status_code == 200
    assert first.json()["seq"] == 1
    assert {p["total"] for p in first.json()["players"]} == {0}
    live = (await stack.client.get("/games/replay-2/standings")).json()
    replay = (await stack.client.get(f"/games/replay-2/standings?at_seq={n}")).json()
    assert live["players"] == replay["players"]
    assert live["status"] == replay["status"] == "final"
    expected = json.loads(PENUMBRA.with_name("penumbra-3p.expected.json").read_text())
    assert {p["player_id"]: p["total"] for p in live["players"]} == {
        pid: v["total"] for pid, v in expected["players"].items()
    }


async def test_referee_voids_that_must_be_refused(stack: Stack) -> None:
    """fold.py / docs/integrating/events.md: the game start cannot be voided, nor a void, nor an event twice, nor
    an event of another game."""
    log, token = await create(stack, "void-1", upto=12)
    other, _ = await create(stack, "void-2", upto=3)
    turn = next(e for e in log[2:12] if e["type"] == "game.turn_started")
    done = await post(stack, "void-1", void("void-1", 13, turn["event_id"]), token)
    assert done.status_code == 201, done.text
    the_void = done.json()["appended"][0]["event_id"]
    for target, rule in [
        (log[0]["event_id"], "void.game_started"),
        (the_void, "void.of_void"),
        (turn["event_id"], "void.already_void"),
        (other[2]["event_id"], "void.unknown_event"),
        (str(uuid.uuid4()), "void.unknown_event"),
    ]:
        response = await post(stack, "void-1", void("void-1", 14, target), token)
        assert response.status_code == 422, (rule, response.text)
        assert response.json()["rule"] == rule
    assert await version(stack, "void-1") == 13


async def test_after_game_ended_only_corrections_and_voids(stack: Stack) -> None:
    log, token = await create(stack, "end-1", upto=len(example_game("x")))
    n = len(log)
    play = changed(log[2], event_id=str(uuid.uuid4()), seq=n + 1)
    refused = await post(stack, "end-1", play, token)
    assert refused.status_code == 422
    assert refused.json()["rule"] == "log.after_game_ended"
    again = changed(log[-1], event_id=str(uuid.uuid4()), seq=n + 1)
    assert (await post(stack, "end-1", again, token)).status_code == 422
    fixed = await post(stack, "end-1", correction("end-1", n + 1, "oren", 1), token)
    assert fixed.status_code == 201, fixed.text
    await stack.wait_projected("end-1", n + 1)
    live = (await stack.client.get("/games/end-1/standings")).json()
    assert live["status"] == "final"
    assert {p["player_id"]: p["total"] for p in live["players"]}["oren"] == 47


async def test_correction_to_unknown_player_or_category_is_refused(stack: Stack) -> None:
    _, token = await create(stack, "corr-1", upto=3)
    unknown = correction("corr-1", 4, "zed", 5)
    assert (await post(stack, "corr-1", unknown, token)).json()["rule"] == (
        "correction.unknown_player"
    )
    odd = correction("corr-1", 4, "mira", 5)
    odd["payload"]["category"] = "nope"
    assert (await post(stack, "corr-1", odd, token)).json()["rule"] == (
        "correction.unknown_category"
    )
    assert await version(stack, "corr-1") == 3
