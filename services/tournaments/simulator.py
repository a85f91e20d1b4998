"""A whole simulated tournament (`scoreledger tournament simulate`): players registered, each
round seated by the engine (and, for comparison, a second run seated by the greedy method),
every table played by the game simulator and folded by the real domain, its final standings
reported and approved as the table's result, the round closed; then the tournament's
standings and the seating measures.

A table's result: each simulated player's place and score from the game's final standings
(`domain.tournament.results`), mapped seat for seat to the tournament players seated there.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from contracts.tournament import (
    PlayerRegistered,
    ResultLine,
    RoundClosed,
    TableResultApproved,
    TableResultReported,
    TournamentCreated,
)
from domain.fold import fold as fold_game
from domain.standings import standings as game_standings
from domain.tournament.measures import (
    repeat_lower_bound,
    repeats,
    seat_spread,
    sum_of_squares,
    worst_repeats,
)
from domain.tournament.results import results_from_game
from domain.tournament.seating import greedy_round, seat_round
from domain.tournament.standings import Standings
from services.simulator.tables import simulate_game
from services.tournaments.usecases.desk import check_fives_seat
from services.tournaments.usecases.stream import SeatMethod, Tournaments, history_of


@dataclass(frozen=True)
class Run:
    """One simulated tournament: rounds (tables of player ids in seat order, byes), final
    standings, the seating measures, the CPU seconds spent seating, and the settings its
    stream was created with."""

    rounds: list[dict[str, Any]]
    standings: Standings
    measures: dict[str, int]
    seating_seconds: float
    settings: TournamentCreated


def table_result(
    game: str, seed: int, key: int, players: tuple[str, ...]
) -> tuple[ResultLine, ...]:
    """Play one table with the game simulator and read its final places and scores.

    `players` are in seat order; the simulated game's seat k is `players[k - 1]`.
    """
    events = list(simulate_game(game, seed, key, players=len(players)))
    return results_from_game(game_standings(fold_game(events)), players)


async def run_tournament(
    players: int,
    rounds: int,
    seed: int,
    game: str = "penumbra",
    method: SeatMethod = seat_round,
    *,
    cases: Tournaments,
    options: Mapping[str, Any] | None = None,
) -> Run:
    """Simulate a whole tournament `sim-<seed>` on `cases` (the caller builds them through the
    composition root: a fresh in-memory log, or one shared by a league's tournaments). `options`: more
    `tournament.created` settings, as `POST /tournaments` takes them (`scoring`, `points_4`,
    `points_3`, `points_5`, `bye_points`, `tie_breaks`, `pairing`, `first_round`,
    `remainder`); the service's defaults for the rest.

    Raises:
        domain.tournament.tables.SeatingError: the players cannot be seated (fewer than 3, 5).
        pydantic.ValidationError: an option the service refuses (names the field).
        services.usecases.refusal.Refusal: `tournament.remainder_fives` (the game seats 4).
    """
    tid = f"sim-{seed}"
    settings = TournamentCreated.model_validate(
        {
            "title": f"simulated {game} tournament",
            "game": game,
            "rounds": rounds,
            "seating_seed": seed,
            **(options or {}),
        }
    )
    check_fives_seat(settings)  # as POST /tournaments refuses it
    registrations = [
        PlayerRegistered(player_id=f"p{i:02d}", name=f"Player {i:02d}")
        for i in range(1, players + 1)
    ]
    await cases.record(tid, [settings, *registrations], "simulator")
    seated: list[dict[str, Any]] = []
    seating_seconds = 0.0
    for number in range(1, rounds + 1):
        started = time.process_time()
        seating = await cases.seat_next_round(tid, "simulator", method=method)
        seating_seconds += time.process_time() - started
        seated.append(
            {
                "round": number,
                "tables": [list(t.players) for t in seating.tables],
                "byes": list(seating.byes),
                "reasons": [t.reason for t in seating.tables],
                "results": [],
            }
        )
        for table in seating.tables:
            results = table_result(game, seed, number * 1000 + table.number, table.players)
            seated[-1]["results"].append([r.model_dump(mode="json") for r in results])
            await cases.record(
                tid,
                [
                    TableResultReported(
                        round=number, table=table.number, results=results, reported_by="simulator"
                    ),
                    TableResultApproved(round=number, table=table.number, judge="simulator"),
                ],
                "simulator",
            )
        await cases.record(tid, [RoundClosed(round=number)], "simulator")
    state = await cases.state(tid)
    history = history_of(state)
    measures = {
        "repeats": repeats(history),
        "worst_repeats": worst_repeats(history),
        "seat_spread": seat_spread(history),
        "lower_bound": repeat_lower_bound(tuple(r["tables"]) for r in seated),
        "sum_of_squares": sum_of_squares(history),
    }
    return Run(seated, await cases.standings(tid), measures, seating_seconds, state.settings)


def simulate(
    players: int,
    rounds: int,
    seed: int,
    game: str = "penumbra",
    options: Mapping[str, Any] | None = None,
    *,
    new_cases: Callable[[], Tournaments],
) -> dict[str, Any]:
    """The `tournament simulate --json` document: the settings, the engine's rounds (each
    table's `results` as reported and approved) and standings, and for `engine` and `greedy`
    the measures (`repeats`: extra meetings of the same pair; `seat_spread`: the largest
    difference in one player's seat counts; `worst_repeats`, `lower_bound`,
    `sum_of_squares`, `seating_seconds`). `options`: as `run_tournament` (same errors);
    `new_cases`: a fresh in-memory tournaments use case for each run."""
    engine = asyncio.run(
        run_tournament(players, rounds, seed, game, seat_round, cases=new_cases(), options=options)
    )
    greedy = asyncio.run(
        run_tournament(
            players, rounds, seed, game, greedy_round, cases=new_cases(), options=options
        )
    )
    return {
        "players": players,
        "rounds_played": rounds,
        "seed": seed,
        "game": game,
        "settings": engine.settings.model_dump(
            mode="json", exclude={"title", "game", "rounds", "seating_seed"}
        ),
        "rounds": engine.rounds,
        "standings": engine.standings.to_dict()["players"],
        "engine": {**engine.measures, "seating_seconds": round(engine.seating_seconds, 4)},
        "greedy": {**greedy.measures, "seating_seconds": round(greedy.seating_seconds, 4)},
    }
