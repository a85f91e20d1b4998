"""`python seating.py OUT.json [SEEDS] [PLAYERS]`: the seating engine against the greedy method
on simulated tournaments of 12, 13, 24, 30 and 60 players (or the comma-separated `PLAYERS`)
over 5, 6 and 7 rounds (Penumbra tables from the game simulator, folded by the domain; `SEEDS`
seeds each, default 1), and the time to seat round 7 of a 60-player Swiss tournament (CPU ms,
median of 5).

Writes {"sizes": [{"players", "rounds", "seed", "engine": {...}, "greedy": {...}}],
"seat_60_ms": float} to OUT.json; each method's measures are `repeats` (extra meetings of the
same pair), `worst_repeats`, `seat_spread`, `lower_bound` (see domain.tournament.measures),
`sum_of_squares`, `seating_seconds`.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import time

SIZES = (12, 13, 24, 30, 60)
ROUNDS = (5, 6, 7)


def main() -> None:
    out = sys.argv[1]
    seeds = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    players_list = tuple(int(p) for p in sys.argv[3].split(",")) if len(sys.argv) > 3 else SIZES
    from domain.tournament.history import History
    from domain.tournament.seating import Entrant, greedy_round, seat_round
    from services.bootstrap import memory_tournaments
    from services.tournaments.simulator import run_tournament

    sizes = []
    for players in players_list:
        for rounds in ROUNDS:
            for seed in range(1, seeds + 1):
                row: dict[str, object] = {"players": players, "rounds": rounds, "seed": seed}
                for name, method in (("engine", seat_round), ("greedy", greedy_round)):
                    run = asyncio.run(
                        run_tournament(
                            players, rounds, seed, "penumbra", method, cases=memory_tournaments()
                        )
                    )
                    row[name] = {**run.measures, "seating_seconds": run.seating_seconds}
                sizes.append(row)
    # Seating round 7 of 60 players in Swiss after six seated rounds (points spread 0..30).
    history = History()
    timings = []
    entrants = [Entrant(f"p{i:02d}", i + 1, float((i * 7) % 31)) for i in range(60)]
    for number in range(1, 7):
        history.add(seat_round(entrants, number, history, seed=1).table_players)
    for _ in range(5):
        started = time.process_time()
        seat_round(entrants, 7, history, seed=1)
        timings.append((time.process_time() - started) * 1000)
    with open(out, "w", encoding="utf-8") as fh:
        json.dump({"sizes": sizes, "seat_60_ms": statistics.median(timings)}, fh)


if __name__ == "__main__":
    main()
