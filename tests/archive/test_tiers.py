"""After the example games are sealed, Redis holds none of their keys and every read route
answers exactly as before (exports byte for byte); a write to an archived game is authorized
as before and brings it back."""

from __future__ import annotations

import collections
import json

import pytest

from contracts.events import parse_event_json
from domain.fold import fold
from domain.standings import standings
from services.cli.remote import export_game
from services.platform.settings import CommonSettings
from tests.archive.conftest import TOKEN, Stack, example_logs, new_event_id, start_stack
from tests.archive.reads import list_routes, live_first_frame, read_routes

pytestmark = pytest.mark.redis


async def test_every_read_answers_the_same_after_sealing(stack: Stack, archive_url: str) -> None:
    games = example_logs()
    before = {g: await read_routes(stack.http, g) for g in games}
    lists_before = await list_routes(stack.http)
    live_before = {g: await live_first_frame(stack.assembled.hub, g) for g in games}
    assert all(live_before.values())
    exports_before = {
        g: await export_game(CommonSettings(redis_url=stack.redis_url), g) for g in games
    }
    assert all(stack.redis_keys_of(g) for g in games)
    statuses = collections.Counter(s for answers in before.values() for s, _ in answers.values())
    assert statuses[200] >= 40, statuses
    assert set(statuses) == {200, 404}, statuses

    counts = await stack.seal()
    assert counts == {"sealed": len(games)}
    for game_id in games:
        assert stack.redis_keys_of(game_id) == []
    after = {g: await read_routes(stack.http, g) for g in games}
    for game_id in games:
        for path, answer in before[game_id].items():
            assert after[game_id][path] == answer, path
    assert await list_routes(stack.http) == lists_before
    for game_id, frame in live_before.items():
        assert await live_first_frame(stack.assembled.hub, game_id) == frame
    settings = CommonSettings(redis_url=stack.redis_url, archive_url=archive_url)  # type: ignore[arg-type]
    for game_id, text in exports_before.items():
        assert await export_game(settings, game_id) == text
        assert text.encode().splitlines() != []
    assert await stack.seal() == {}  # nothing left in Redis to look at


async def test_a_reopened_archived_game_comes_back_and_scores_as_its_log(stack: Stack) -> None:
    games = example_logs()
    game_id = next(g for g in games if g.startswith("pen"))
    lines = games[game_id]
    ended = next(json.loads(line) for line in lines if b'"game.ended"' in line)
    stored_before = (await stack.http.get(f"/games/{game_id}/export/events.jsonl")).content
    assert await stack.seal() == {"sealed": len(games)}
    void = {
        "event_id": new_event_id(),
        "game_id": game_id,
        "seq": len(lines) + 1,
        "type": "game.event_voided",
        "occurred_at": "2026-12-01T10:00:00Z",
        "actor": "referee",
        "payload": {
            "voided_event_id": ended["event_id"],
            "reason": "ended too early",
            "referee": "olga",
            "reopens_game": True,
        },
    }
    path = f"/games/{game_id}/events"
    body = json.dumps(void)
    json_type = {"Content-Type": "application/json"}
    refused = await stack.http.post(path, content=body, headers=json_type)
    assert refused.status_code == 401
    wrong = await stack.http.post(
        path, content=body, headers={**json_type, "Authorization": "Bearer " + "x" * 40}
    )
    assert wrong.status_code == 403
    assert stack.redis_keys_of(game_id) == []  # refused writes bring nothing back
    creating = json.loads(lines[0])
    again = await stack.http.post(  # the creation sent again: a duplicate, not a new game
        path, content=json.dumps(creating), headers={**json_type, **auth()}
    )
    assert again.status_code == 201, again.text
    assert again.json()["appended"][0]["duplicate"] is True
    accepted = await stack.http.post(path, content=body, headers={**json_type, **auth()})
    assert accepted.status_code == 201, accepted.text
    assert accepted.json()["version"] == len(lines) + 1
    assert stack.redis_keys_of(game_id) != []
    await stack.wait_final(game_id, len(lines) + 1)
    live = (await stack.http.get(f"/games/{game_id}/standings")).json()
    exported = (await stack.http.get(f"/games/{game_id}/export/events.jsonl")).content
    offline = standings(fold([parse_event_json(line) for line in exported.splitlines()]))
    assert live["status"] == "in_progress" == offline.status
    assert [(p["player_id"], p["total"]) for p in live["players"]] == [
        (p.player_id, p.total) for p in offline.players
    ]
    assert exported.splitlines()[: len(lines)] == stored_before.splitlines()  # as stored
    assert (await stack.seal()).get("sealed", 0) == 0  # live again: it stays in Redis


def auth() -> dict[str, str]:
    return {"Authorization": f"Bearer {TOKEN}"}


@pytest.mark.postgres
async def test_an_unreachable_archive_is_a_503_not_a_500(
    clean_redis_url: str, postgres_server_url: str
) -> None:
    import psycopg

    from tests.postgres_fixture import fresh_database

    with fresh_database(postgres_server_url) as url:
        stack = await start_stack(clean_redis_url, url, archive_every_s=3600)
        app = stack.assembled.app
        async with app.router.lifespan_context(app), stack.http:
            name = url.rpartition("/")[2]
            with psycopg.connect(postgres_server_url, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
            answer = await stack.http.get("/games/not-in-redis/standings")
            assert answer.status_code == 503, answer.text
            assert answer.json()["rule"] == "service.storage_unavailable"
            assert answer.headers["Retry-After"] == "1"
