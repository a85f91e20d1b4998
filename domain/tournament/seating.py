"""The seating engine: tables of 3 and 4 for one round, deterministic from a seed.

Steps (each table gets a written reason):

1. Who plays: every entrant not dropped; a bye (only with `remainder="byes"`) goes to the player
   with the fewest byes, then the fewest points, then the largest effective seed number (the
   standings' tie-breaks are not consulted; docs/tournament-rules.md).
2. The order: round 1 is a random draw (`first_round="random"`) or by seeding (`"seeded"`:
   seeds dealt over the tables in a snake, so the top seeds meet late); later rounds are
   ordered by standings points (`pairing="swiss"`) or drawn at random (`"balanced"`).
3. Constructive start: fill the tables in that order, 4-player tables first (the greedy method).
4. Local search: a fixed budget of swaps of two players between two tables, drawn from the
   seeded generator; a swap is kept when it does not worsen the cost, compared in order: the
   repeat cost, then the seat excess (how far the best seat order would push players' seat
   spreads past 1) plus, in Swiss, the tables' spread of standings places (Swiss means
   playing your score group), one unit of seat excess worth `SEAT_WEIGHT` places. The repeat cost of a table
   is the growth of the sum over pairs of meetings squared, sum of (2m + 1) over its pairs
   (m: earlier meetings), so minimising it minimises the tournament's sum of squares given
   the past. The start is the greedy fill and no kept swap raises the repeat cost, so a round
   never has a larger sum of squares than the greedy round on the same past.
5. Seats: each table's seat order is the permutation (of at most 5! = 120) with the smallest
   sum of the players' squared seat counts over the seats this table has (each player to the
   seat they held least), then, in Swiss after round 1, the table's top player in the last
   seat, ties broken by standings order. (Ordering by the players' spreads first was tried and
   measured worse: one player's spread could grow to 4 to save two others'.)

Source: docs/rules/tournaments.md#seating (Match Play's balanced pairing and seat
order, the squared repeat-opponent penalty of pairings_edh / EDH_matchmaker, the top seed last).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations, permutations
from typing import Literal

from domain.tournament.history import History, Tables
from domain.tournament.prng import SplitMix64
from domain.tournament.tables import Layout, Remainder, SeatingError, layout

Pairing = Literal["swiss", "balanced"]
FirstRound = Literal["random", "seeded"]


@dataclass(frozen=True, slots=True)
class Entrant:
    """A registered player as seating sees them.

    `seed`: 1 = the top seed (registration order unless the organiser seeds);
    `points`: standings points so far (Swiss ordering; any unit, larger is better);
    `dropped`: never seated.
    """

    player_id: str
    seed: int
    points: float = 0.0
    dropped: bool = False


@dataclass(frozen=True, slots=True)
class SeatingRules:
    """How rounds are seated (see the module doc); `iterations`: the local-search budget."""

    pairing: Pairing = "swiss"
    first_round: FirstRound = "random"
    remainder: Remainder = "threes"
    top_seed_last: bool = True
    iterations: int = 3000


@dataclass(frozen=True, slots=True)
class SeatedTable:
    """One table: its number (1 = the top of the standings in Swiss), players in seat order
    (seat 1 first), and why it is so."""

    number: int
    players: tuple[str, ...]
    reason: str


@dataclass(frozen=True, slots=True)
class Seating:
    """A seated round: its tables, the players with a bye, and reasons for the layout and byes."""

    round: int
    tables: tuple[SeatedTable, ...]
    byes: tuple[str, ...]
    reason: str

    @property
    def table_players(self) -> Tables:
        """The tables as tuples of player ids in seat order."""
        return tuple(t.players for t in self.tables)


def _active(entrants: Sequence[Entrant]) -> list[Entrant]:
    ids = [e.player_id for e in entrants]
    if len(set(ids)) != len(ids):
        raise SeatingError("seating.duplicate_player", "a player id is registered twice")
    return sorted((e for e in entrants if not e.dropped), key=lambda e: (e.seed, e.player_id))


def _standing_order(active: list[Entrant]) -> list[Entrant]:
    return sorted(active, key=lambda e: (-e.points, e.seed, e.player_id))


def _order(
    active: list[Entrant], round_number: int, rules: SeatingRules, rng: SplitMix64
) -> tuple[list[Entrant], str]:
    """The players in the order the constructive fill takes them, and the words for it."""
    if round_number == 1 and rules.first_round == "seeded":
        return list(active), "round 1 by seeding"
    if round_number == 1 or rules.pairing == "balanced":
        drawn = list(active)
        rng.shuffle(drawn)
        return drawn, ("round 1 random draw" if round_number == 1 else "balanced draw")
    return _standing_order(active), "Swiss: grouped by standings"


def _byes(ordered: list[Entrant], count: int, history: History) -> list[Entrant]:
    """The `count` players who sit out: fewest byes, then fewest points, then the largest seed
    number (then the larger player id); the tie-breaks are not consulted."""
    if count == 0:
        return []
    ranked = _standing_order(ordered)
    place = {e.player_id: i for i, e in enumerate(ranked)}
    pool = sorted(ordered, key=lambda e: (history.byes[e.player_id], -place[e.player_id]))
    return pool[:count]


def _fill(order: list[Entrant], plan: Layout, snake: bool) -> list[list[Entrant]]:
    tables: list[list[Entrant]] = [[] for _ in plan.sizes]
    if not snake:
        at = 0
        for i, size in enumerate(plan.sizes):
            tables[i] = order[at : at + size]
            at += size
        return tables
    # Seeds dealt 1..T then T..1 over tables that still have room (seed 1 and seed 2 apart).
    lanes = list(range(len(plan.sizes)))
    forward = True
    queue = list(order)
    while queue:
        for i in lanes if forward else reversed(lanes):
            if queue and len(tables[i]) < plan.sizes[i]:
                tables[i].append(queue.pop(0))
        forward = not forward
    return tables


def _seat_rows(pid: str, size: int, history: History) -> tuple[tuple[int, int], ...]:
    """Per seat 1..size, what giving `pid` that seat costs: (excess, squares). `excess` is the
    square of how far the player's seat spread would exceed 1 over the seats every table of
    theirs had (seats 1..3 once they sat at a 3-player table: what `measures.seat_spread`
    counts), `squares` the growth of the sum of their squared seat counts."""
    counts = history.seats.get(pid)
    values = [counts[s] if counts else 0 for s in range(1, size + 1)]
    common = min([size, *history.sizes.get(pid, ())])
    rows = []
    for seat in range(size):
        after = values[:common]
        if seat < common:
            after = [*after[:seat], after[seat] + 1, *after[seat + 1 :]]
        rows.append((max(0, max(after) - min(after) - 1) ** 2, 2 * values[seat] + 1))
    return tuple(rows)


SEAT_WEIGHT = 4
"""How many standings places of Swiss table spread one unit of seat excess is worth."""


def _places(active: list[Entrant]) -> dict[str, int]:
    """Each player's standings place, 0-based, tied points sharing the better place."""
    ranked = sorted((e.points for e in active), reverse=True)
    first: dict[float, int] = {}
    for i, points in enumerate(ranked):
        first.setdefault(points, i)
    return {e.player_id: first[e.points] for e in active}


class _Cost:
    """The cost of a table: (repeat growth, Swiss place spread), then its seat excess (the best
    seat order's, see `_seat_rows`); see the module doc for how they are compared."""

    def __init__(self, history: History, swiss: bool, places: dict[str, int]) -> None:
        self.history = history
        self.swiss = swiss
        self.places = places
        self.rows: dict[tuple[str, int], tuple[tuple[int, int], ...]] = {}

    def seat_rows(self, pid: str, size: int) -> tuple[tuple[int, int], ...]:
        key = (pid, size)
        if key not in self.rows:
            self.rows[key] = _seat_rows(pid, size, self.history)
        return self.rows[key]

    def primary(self, table: list[Entrant]) -> tuple[int, int]:
        """(repeat growth, Swiss spread of standings places; 0 when not Swiss) of a table."""
        met = self.history.met
        growth = sum(2 * met(a.player_id, b.player_id) + 1 for a, b in combinations(table, 2))
        if not self.swiss:
            return growth, 0
        places = [self.places[e.player_id] for e in table]
        return growth, max(places) - min(places)

    def excess(self, table: list[Entrant]) -> int:
        """The seat excess of the table's best seat order."""
        rows = [self.seat_rows(e.player_id, len(table)) for e in table]
        return min(
            sum(rows[k][seat][0] for seat, k in enumerate(perm))
            for perm in permutations(range(len(table)))
        )


def _improve(tables: list[list[Entrant]], cost: _Cost, rng: SplitMix64, budget: int) -> None:
    """Swap players between two tables while the total cost does not grow (fixed budget).
    The seat excess (120 orders at most per table) is computed only to settle a tie of the
    first two parts."""
    if len(tables) < 2:
        return
    primary = [cost.primary(t) for t in tables]
    excess: list[int | None] = [None] * len(tables)

    def excess_of(k: int) -> int:
        value = excess[k]
        if value is None:
            value = excess[k] = cost.excess(tables[k])
        return value

    for _ in range(budget):
        a = rng.below(len(tables))
        b = rng.below(len(tables) - 1)
        b += b >= a
        i, j = rng.below(len(tables[a])), rng.below(len(tables[b]))
        ta, tb = tables[a], tables[b]
        before = primary[a][0] + primary[b][0]
        old_excess = excess_of(a) + excess_of(b)
        ta[i], tb[j] = tb[j], ta[i]
        pa, pb = cost.primary(ta), cost.primary(tb)
        after = pa[0] + pb[0]
        keep = after < before
        if after == before:
            ea, eb = cost.excess(ta), cost.excess(tb)
            new_key = pa[1] + pb[1] + SEAT_WEIGHT * (ea + eb)
            old_key = primary[a][1] + primary[b][1] + SEAT_WEIGHT * old_excess
            keep = new_key <= old_key
        if keep:
            primary[a], primary[b] = pa, pb
            excess[a] = excess[b] = None
        else:
            ta[i], tb[j] = tb[j], ta[i]


def _seat_order(
    table: list[Entrant], cost: _Cost, top_last: bool, place: dict[str, int]
) -> tuple[tuple[str, ...], bool]:
    """The seat order balancing seat counts; True when the table's top player sits last."""
    size = len(table)
    by_place = sorted(table, key=lambda e: place[e.player_id])
    top = by_place[0].player_id
    rows = [cost.seat_rows(e.player_id, size) for e in by_place]
    best: tuple[tuple[int, int, int, tuple[int, ...]], tuple[str, ...]] | None = None
    for perm in permutations(range(size)):  # perm[seat] = index into by_place
        excess = sum(rows[k][seat][0] for seat, k in enumerate(perm))
        squares = sum(rows[k][seat][1] for seat, k in enumerate(perm))
        ids = tuple(by_place[k].player_id for k in perm)
        key = (excess, squares, int(top_last and ids[-1] != top), perm)
        if best is None or key < best[0]:
            best = (key, ids)
    assert best is not None
    return best[1], top_last and best[1][-1] == top


def _reason(
    table: list[Entrant], seats: tuple[str, ...], how: str, history: History, top_last: bool
) -> str:
    words = [how]
    if how.startswith("Swiss"):
        points = sorted((e.points for e in table), reverse=True)
        words.append(f"points {points[0]:g} to {points[-1]:g}")
    if how == "round 1 by seeding":
        words.append("seeds " + ", ".join(str(e.seed) for e in sorted(table, key=lambda e: e.seed)))
    met = [
        f"{a} & {b} met {history.met(a, b)}x before"
        for a, b in combinations(sorted(seats), 2)
        if history.met(a, b)
    ]
    words.append(
        "repeats: " + "; ".join(met) + " (fewest found)" if met else "no two players met before"
    )
    words.append(
        "seats balance earlier seats" + (f"; top player {seats[-1]} sits last" if top_last else "")
    )
    return "; ".join(words)


def _split(
    entrants: Sequence[Entrant],
    round_number: int,
    history: History,
    rules: SeatingRules,
    seed: str | int,
) -> tuple[SplitMix64, list[Entrant], str, Layout, list[Entrant], list[Entrant]]:
    """The part `seat_round` and `greedy_round` share: the round's generator, the active
    players, how they are ordered, the table layout, the byes and the players to seat (in
    order). Both methods must order and give byes alike, so they compare table for table."""
    rng = SplitMix64(f"{seed}:{round_number}")
    active = _active(entrants)
    ordered, how = _order(active, round_number, rules, rng)
    plan = layout(len(active), rules.remainder)
    byes = _byes(ordered, plan.byes, history)
    return rng, active, how, plan, byes, [e for e in ordered if e not in byes]


def seat_round(
    entrants: Sequence[Entrant],
    round_number: int,
    history: History,
    rules: SeatingRules = SeatingRules(),
    seed: str | int = 0,
) -> Seating:
    """Seat round `round_number` (1-based) of the active `entrants` after `history`.

    Deterministic: the same entrants, history, rules and seed give the same seating. Every
    active player is seated exactly once (or given a bye), dropped players never.

    Raises:
        SeatingError: fewer than 3 active players, 5 without fives or byes, a duplicate id.
    """
    rng, active, how, plan, byes, playing = _split(entrants, round_number, history, rules, seed)
    tables = _fill(playing, plan, snake=how == "round 1 by seeding")
    swiss = how.startswith("Swiss")
    places = _places(active)
    cost = _Cost(history, swiss, places)
    if history.meetings:
        _improve(tables, cost, rng, rules.iterations)
    place = {e.player_id: i for i, e in enumerate(_standing_order(active))}
    if swiss:  # table 1 holds the leaders
        tables.sort(key=lambda t: min(place[e.player_id] for e in t))
    top_last = swiss and rules.top_seed_last
    seated = []
    for number, table in enumerate(tables, start=1):
        seats, last = _seat_order(table, cost, top_last, place)
        seated.append(SeatedTable(number, seats, _reason(table, seats, how, history, last)))
    reason = plan.describe() + " (as many 4-player tables as possible)"
    if byes:
        reason += "; bye: " + ", ".join(
            f"{e.player_id} ({history.byes[e.player_id]} byes before, lowest standing)"
            for e in byes
        )
    return Seating(round_number, tuple(seated), tuple(e.player_id for e in byes), reason)


def greedy_round(
    entrants: Sequence[Entrant],
    round_number: int,
    history: History,
    rules: SeatingRules = SeatingRules(),
    seed: str | int = 0,
) -> Seating:
    """The greedy method the anchors use, for comparison: the same order and table sizes as
    `seat_round`, tables filled in that order (Swiss: sort by points, fill table 1 first), seats
    in that order, no search. Board Game Arena's multiplayer Swiss works this way
    (docs/rules/tournaments.md: it "does not avoid repeated opponents")."""
    _, _, how, plan, byes, playing = _split(entrants, round_number, history, rules, seed)
    tables = _fill(playing, plan, snake=False)
    seated = tuple(
        SeatedTable(n, tuple(e.player_id for e in t), f"greedy: {how}, filled in order")
        for n, t in enumerate(tables, start=1)
    )
    return Seating(round_number, seated, tuple(e.player_id for e in byes), plan.describe())
