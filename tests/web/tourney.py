"""Test-side set-up of a tournament over the service's HTTP doors (organiser token kept):
create, register, seat, report and approve. Shared by the tournament SSE and page tests."""

from __future__ import annotations

from typing import Any

import httpx

TOKEN = "organiser-token-0123456789-abcdefghijkl"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


async def create(
    client: httpx.AsyncClient, tid: str, players: int, rounds: int = 3, game: str = "penumbra"
) -> list[str]:
    """Create tournament `tid` of `players` players `p01..pNN` (names `Player 1`...); their ids."""
    new = {"tournament_id": tid, "title": f"Cup {tid}", "game": game, "rounds": rounds}
    response = await client.post("/tournaments", json=new, headers=AUTH)
    assert response.status_code == 201, response.text
    ids = [f"p{i:02d}" for i in range(1, players + 1)]
    for n, pid in enumerate(ids, 1):
        body = {"player_id": pid, "name": f"Player {n}"}
        r = await client.post(f"/tournaments/{tid}/players", json=body, headers=AUTH)
        assert r.status_code == 201, r.text
    return ids


async def seat(client: httpx.AsyncClient, tid: str) -> list[list[str]]:
    """Seat the next round; each table's players in seat order."""
    response = await client.post(f"/tournaments/{tid}/rounds", headers=AUTH)
    assert response.status_code == 201, response.text
    return [t["players"] for t in response.json()["tables"]]


def results(players: list[str]) -> list[dict[str, Any]]:
    """Seat order as the finishing order: seat 1 first with 40 points, 3 fewer per place."""
    return [{"player_id": p, "place": i, "score": 43 - 3 * i} for i, p in enumerate(players, 1)]


async def report(
    client: httpx.AsyncClient, tid: str, round_: int, table: int, players: list[str]
) -> int:
    """Report table `table` of `round_` (seat order as the finishing order); the new version."""
    body = {"action": "report", "round": round_, "results": results(players), "by": players[0]}
    r = await client.post(f"/tournaments/{tid}/tables/{table}/result", json=body, headers=AUTH)
    assert r.status_code == 200, r.text
    return int(r.json()["version"])


async def approve(client: httpx.AsyncClient, tid: str, round_: int, table: int) -> int:
    """Approve table `table` of `round_` as reported; the new version."""
    body = {"action": "approve", "round": round_, "by": "judge"}
    r = await client.post(f"/tournaments/{tid}/tables/{table}/result", json=body, headers=AUTH)
    assert r.status_code == 200, r.text
    return int(r.json()["version"])
