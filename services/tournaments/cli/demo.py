"""The demo's small tournament: 8 players of Penumbra over 2 rounds, played over the real HTTP
doors beside the two example games, a step at a time as the games' events go out, so the
room screen (`/tv/tournaments/{id}`) changes while the games do.

Steps: create and register, seat round 1 (the service creates each table's game), play each
table's game with the game simulator (`services.simulator.tables.play_seated_table`, posted in
a few batches with the table's game token to `POST /games/{id}/events`, the tables taking
turns), so the game's end reports the table's result through the same use cases as any game
(`TableGames.after_write`); the organiser approves both tables; seat round 2, play both
tables, approve the first; the last table stays reported, so a newcomer opening the
organiser's page of a kept-running demo has a result to approve. The games are seeded from
the round and table, so every run is the same.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

from contracts.envelope import Envelope
from services.simulator.tables import play_seated_table

PLAYERS = ("Alma", "Boris", "Chen", "Dasha", "Emil", "Fatima", "Gleb", "Hana")
ROUNDS = 2
TITLE = "Demo cup"
BASE_ID = "demo-cup"
SEED = 7
"""The seating seed, and the table games' simulator seed."""
PARTS = 3
"""Batches each table's game is posted in (the tables take turns, so both play at once)."""
REPORT_WAIT_S = 30.0
"""Longest wait for a table's result after its game's end (reported right after the write)."""


PostBatch = Callable[[httpx.AsyncClient, dict[str, str], Sequence[Envelope]], Awaitable[object]]
"""POSTs one game's batch with the game tokens given (the command line's publisher,
`services.cli.remote.post_batch`); raises when the ingest refuses it."""


class TournamentStepFailed(RuntimeError):
    """A write of the demo tournament was refused (status and body in the message)."""


@dataclass
class DemoTournament:
    """The demo tournament's id, organiser token and the steps left to play; `post` sends the
    tables' games' batches."""

    post: PostBatch
    tournament_id: str = BASE_ID
    token: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    done: int = 0
    total: int = 0
    steps: list[Callable[[httpx.AsyncClient], Awaitable[None]]] = field(default_factory=list)
    tables: dict[tuple[int, int], list[str]] = field(default_factory=dict)
    """(round, table) -> players in seat order, as seated."""
    games: dict[tuple[int, int], list[Envelope]] = field(default_factory=dict)
    """(round, table) -> its game's simulated events not posted yet."""
    tokens: dict[str, str] = field(default_factory=dict)
    """Table game id -> its write token (from the seating's answer)."""
    posted: int = 0
    """Table game events posted so far."""

    def __post_init__(self) -> None:
        self.steps = [self._create, self._seat, *self._play_round(1)]
        self.steps += [self._rule(1, 1, "approve"), self._rule(1, 2, "approve")]
        self.steps += [self._seat, *self._play_round(2), self._rule(2, 1, "approve")]
        self.total = len(self.steps)

    def _play_round(self, round_: int) -> list[Callable[[httpx.AsyncClient], Awaitable[None]]]:
        """Each table's game in `PARTS` batches, the tables taking turns; then wait for both
        results."""
        plays = [self._play(round_, t, part) for part in range(PARTS) for t in (1, 2)]
        return [*plays, self._reported(round_)]

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
            key = (seated["round"], table["table"])
            self.tables[key] = table["players"]
            game_id = table.get("game_id")
            if game_id is None or table.get("game_refused") is not None:
                raise TournamentStepFailed(f"table {key} has no game: {table}")
            self.tokens[game_id] = table["game_token"]
            self.games[key] = play_seated_table(
                SEED, key[0] * 10 + key[1], game_id, table["players"]
            )

    def _play(
        self, round_: int, table: int, part: int
    ) -> Callable[[httpx.AsyncClient], Awaitable[None]]:
        async def play(client: httpx.AsyncClient) -> None:
            events = self.games[(round_, table)]
            size = -(-len(events) // (PARTS - part))  # what is left, over the parts left
            batch, self.games[(round_, table)] = events[:size], events[size:]
            if batch:
                await self.post(client, self.tokens, batch)
                self.posted += len(batch)

        return play

    def _reported(self, round_: int) -> Callable[[httpx.AsyncClient], Awaitable[None]]:
        """Wait until the round's tables are reported (the game door syncs a table after its
        game's end, once the answer is sent)."""

        async def reported(client: httpx.AsyncClient) -> None:
            try:
                async with asyncio.timeout(REPORT_WAIT_S):
                    while True:
                        state = (await client.get(f"/tournaments/{self.tournament_id}")).json()
                        tables = state["rounds"][round_ - 1]["tables"]
                        if all(t["status"] == "reported" for t in tables):
                            return
                        await asyncio.sleep(0.02)
            except TimeoutError:
                raise TournamentStepFailed(
                    f"round {round_}'s tables were not reported from their games"
                ) from None

        return reported

    def _rule(
        self, round_: int, table: int, action: str
    ) -> Callable[[httpx.AsyncClient], Awaitable[None]]:
        async def rule(client: httpx.AsyncClient) -> None:
            body: dict[str, Any] = {"action": action, "round": round_, "by": "demo judge"}
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
        reported = sum(t["status"] == "reported" for t in tables)
        top = table["players"][0]
        points = top["points"]["value"]
        return (
            f"tournament {tid} ({TITLE}, {len(PLAYERS)} players of Penumbra): "
            f"{len(state['rounds'])} of {ROUNDS} rounds seated, {len(tables)} table games "
            f"played by the simulator ({self.posted} events), {approved} of {len(tables)} "
            f"tables approved, {reported} awaiting approval; leader {top['name']} with "
            f"{points:g} points"
        )
