"""Every read route of one game (and the games lists), as (path, status, body bytes)."""

from __future__ import annotations

import json

import httpx

from services.doors.push.hub import ChangeHub


async def read_routes(http: httpx.AsyncClient, game_id: str) -> dict[str, tuple[int, bytes]]:
    """The answer of every read route of `game_id`: standings (live and replayed at several
    seqs), the audit log, every player's ledger (live and replayed), series, timeline, a
    dispute, the three exports, the scoreboard and TV pages."""
    standings = (await http.get(f"/games/{game_id}/standings")).json()
    version = standings["seq"]
    players = [p["player_id"] for p in standings["players"]]
    events = (await http.get(f"/games/{game_id}/events?from_seq=1&limit=1000")).json()
    first_id = events["events"][1]["event"]["event_id"]
    paths = [
        f"/games/{game_id}/standings",
        f"/games/{game_id}/events?from_seq=1&limit=1000",
        f"/games/{game_id}/events?from_seq=5&limit=7",
        f"/games/{game_id}/series",
        f"/games/{game_id}/timeline",
        f"/games/{game_id}/dispute/{first_id}",
        f"/games/{game_id}/export/scoresheet.csv?lang=en&tz=UTC",
        f"/games/{game_id}/export/scoresheet.csv?lang=ru&tz=Europe/Moscow&bom=true",
        f"/games/{game_id}/export/bgstats.json?tz=UTC",
        f"/games/{game_id}/export/events.jsonl",
        f"/games/{game_id}",
        f"/tv/{game_id}",
        f"/games/{game_id}/standings?at_seq={version + 1}",
        "/games/no-such-game/standings",
    ]
    for seq in (1, 2, version // 2, version - 1, version):
        paths.append(f"/games/{game_id}/standings?at_seq={seq}")
    for player in players:
        paths.append(f"/games/{game_id}/players/{player}/ledger")
        paths.append(f"/games/{game_id}/replay/ledger/{player}?at_seq={version // 2}")
    out: dict[str, tuple[int, bytes]] = {}
    for path in paths:
        answer = await http.get(path)
        out[path] = (answer.status_code, answer.content)
    return out


async def live_first_frame(hub: ChangeHub | None, game_id: str) -> str | None:
    """The standings `/games/{id}/live` sends first (the hub's rendered projection)."""
    assert hub is not None
    rendered = await hub.current(game_id)
    return None if rendered is None else rendered.json


async def list_routes(http: httpx.AsyncClient) -> dict[str, tuple[int, bytes]]:
    """The games lists (API and board), in pages of one and of all."""
    out: dict[str, tuple[int, bytes]] = {}
    for path in ("/games", "/games?page=1&limit=1", "/games?page=2&limit=1", "/board/games"):
        answer = await http.get(path)
        out[path] = (answer.status_code, answer.content)
    return out


def board_without_clock(body: bytes) -> object:
    """The board page's JSON (its `stale` status depends on now: equal here since final)."""
    return json.loads(body)
