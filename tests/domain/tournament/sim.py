"""Simulated tournaments for the seating tests: results drawn from a seeded generator (placement
points 7/5/3/1, 7/4/1 at 3-player tables), seated by the engine or the greedy method."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from domain.tournament.history import History, Tables
from domain.tournament.measures import repeat_lower_bound, repeats, seat_spread, worst_repeats
from domain.tournament.prng import SplitMix64
from domain.tournament.seating import Entrant, Seating, SeatingRules

Method = Callable[..., Seating]
POINTS = {4: (7, 5, 3, 1), 3: (7, 4, 1), 5: (7, 5, 3, 2, 1)}


@dataclass(frozen=True)
class Outcome:
    rounds: list[Tables]
    repeats: int
    worst: int
    spread: int
    bound: int


def run(
    method: Method, players: int, rounds: int, seed: int = 1, rules: SeatingRules | None = None
) -> Outcome:
    entrants = [Entrant(f"p{i:02d}", i + 1) for i in range(players)]
    points = {e.player_id: 0 for e in entrants}
    history, seated = History(), []
    results = SplitMix64(f"results:{seed}")
    for number in range(1, rounds + 1):
        now = [Entrant(e.player_id, e.seed, points[e.player_id]) for e in entrants]
        seating = method(now, number, history, rules or SeatingRules(), seed)
        history.add(seating.table_players, seating.byes)
        seated.append(seating.table_players)
        for table in seating.table_players:
            order = list(table)
            results.shuffle(order)
            for place, pid in enumerate(order):
                points[pid] += POINTS[len(table)][place]
    return Outcome(
        seated,
        repeats(history),
        worst_repeats(history),
        seat_spread(history),
        repeat_lower_bound(seated),
    )
