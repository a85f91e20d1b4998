"""The demo's small tournament: 8 players of Penumbra over 2 rounds, played over the real HTTP
doors beside the two example games, a step at a time as the games' events go out, so the
room screen (`/tv/tournaments/{id}`) changes while the games do.

Steps: create and register, seat round 1, report and approve each table, seat round 2, report
both tables and approve the first; the last table stays reported, so a newcomer opening the
organiser's page of a kept-running demo has a result to approve. Results are made up but
fixed (a place order from a hash of the round, table and seats), so every run is the same.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

PLAYERS = ("Alma", "Boris", "Chen", "Dasha", "Emil", "Fatima", "Gleb", "Hana")
ROUNDS = 2
TITLE = "Demo cup"
BASE_ID = "demo-cup"


class TournamentStepFailed(RuntimeError):
    """A write of the demo tournament was refused (status and body in the message)."""


def made_up_results(round_: int, table: int, players: list[str]) -> list[dict[str, Any]]:
    """Places 1..n in an order fixed by a hash of (round, table, player); scores 40, 34, ...
    (a 6-point step between places, so no tie-break is needed)."""

    def key(pid: str) -> bytes:
        return hashlib.sha256(f"{round_}:{table}:{pid}".encode()).digest()

    order = sorted(players, key=key)
    return [{"player_id": p, "place": i, "score": 46 - 6 * i} for i, p in enumerate(order, 1)]


@dataclass
class DemoTournament:
    """The demo tournament's id, organiser token and the steps left to play."""

    tournament_id: str = BASE_ID
    token: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    done: int = 0
    total: int = 0
    steps: list[Callable[[httpx.AsyncClient], Awaitable[None]]] = field(default_factory=list)
    tables: dict[tuple[int, int], list[str]] = field(default_factory=dict)
    """(round, table) -> players in seat order, as seated."""

    def __post_init__(self) -> None:
        self.steps = [self._create, self._seat]
        self.steps += [self._rule(1, t, a) for t in (1, 2) for a in ("report", "approve")]
        self.steps += [self._seat, self._rule(2, 1, "report"), self._rule(2, 1, "approve")]
        self.steps += [self._rule(2, 2, "report")]
        self.total = len(self.steps)

    def urls(self, base: str) -> dict[str, str]:
        """The tournament's pages under `base`: room screen, phone view, organiser's page."""
        path = f"{base}/tournaments/{self.tournament_id}"
        return {
            "room": f"{base}/tv/tournaments/{self.tournament_id}",
            "phone": f"{path}/me",
            "desk": f"{path}/desk",
        }

    async def pick_id(self, client: httpx.AsyncClient) -> None:
        """Keep `demo-cup` unless the service has one (a shared Redis that ran the demo
        before): then `demo-cup-<6 hex>`."""
        if (await client.get(f"/tournaments/{self.tournament_id}")).status_code != 404:
            self.tournament_id = f"{BASE_ID}-{secrets.token_hex(3)}"

    async def step_to(self, client: httpx.AsyncClient, fraction: float) -> None:
        """Play the steps due when `fraction` (0..1) of the games' events are out."""
        while self.done < self.total and self.done < fraction * self.total:
            await self.steps[self.done](client)
            self.done += 1

    async def _write(
        self, client: httpx.AsyncClient, path: str, body: dict[str, Any] | None = None
    ) -> httpx.Response:
        headers = {"Authorization": f"Bearer {self.token}"}
        response = await client.post(path, json=body, headers=headers)
        if response.status_code not in (200, 201):
            raise TournamentStepFailed(f"POST {path}: {response.status_code} {response.text[:300]}")
        return response

    async def _create(self, client: httpx.AsyncClient) -> None:
        new = {"title": TITLE, "game": "penumbra", "rounds": ROUNDS, "seating_seed": 7}
        await self._write(client, "/tournaments", {"tournament_id": self.tournament_id, **new})
        for n, name in enumerate(PLAYERS, 1):
            player = {"player_id": f"p{n}", "name": name}
            await self._write(client, f"/tournaments/{self.tournament_id}/players", player)

    async def _seat(self, client: httpx.AsyncClient) -> None:
        seated = (await self._write(client, f"/tournaments/{self.tournament_id}/rounds")).json()
        for table in seated["tables"]:
            self.tables[(seated["round"], table["table"])] = table["players"]

    def _rule(
        self, round_: int, table: int, action: str
    ) -> Callable[[httpx.AsyncClient], Awaitable[None]]:
        async def rule(client: httpx.AsyncClient) -> None:
            body: dict[str, Any] = {"action": action, "round": round_, "by": "demo judge"}
            if action == "report":
                players = self.tables[(round_, table)]
                body |= {"results": made_up_results(round_, table, players), "by": players[0]}
            path = f"/tournaments/{self.tournament_id}/tables/{table}/result"
            await self._write(client, path, body)

        return rule

    async def summary(self, client: httpx.AsyncClient) -> str:
        """One line: rounds seated, tables approved, the leader."""
        tid = self.tournament_id
        state = (await client.get(f"/tournaments/{tid}")).json()
        table = (await client.get(f"/tournaments/{tid}/standings")).json()
        tables = [t for r in state["rounds"] for t in r["tables"]]
        approved = sum(t["status"] == "approved" for t in tables)
        top = table["players"][0]
        points = top["points"]["value"]
        return (
            f"tournament {tid} ({TITLE}, {len(PLAYERS)} players of Penumbra): "
            f"{len(state['rounds'])} of {ROUNDS} rounds seated, {approved} of {len(tables)} "
            f"tables approved; leader {top['name']} with {points:g} points"
        )
