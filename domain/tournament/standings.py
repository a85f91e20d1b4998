"""Tournament standings: points, then the configured tie-breaks in order, then the seed; every
number carries the tables behind it.

Only approved table results count (a reported, unapproved or disputed table is held out and
listed in `held`; a seated table with no report yet is not listed). Definitions (a "game" is one approved table a player sat at; opponents are
the other players at it; "total" is a player's points now):

- points: placement points (`domain.tournament.points`) or, with `scoring="game_score"`, the
  game's own score summed; a bye earns `bye_points` with placement scoring, nothing otherwise,
  counted once every table of the bye's round has an approved result (for good once the round
  closed).
- opponents_points: the sum, over every game and every opponent in it, of that opponent's
  total (an opponent met twice counts twice). BGA's "opponents points".
- opponents_average: opponents_points divided by the number of opponents counted.
- buchholz: the sum, over games, of the mean total of that game's opponents (each game weighs
  the same whatever its table size: the multiplayer reading of Buchholz's sum of opponents).
- median_buchholz: buchholz without its highest and lowest game (with 3 games or more).
- score_difference: the sum, over games, of the player's game score minus the mean game score
  of their opponents there.
- head_to_head: among the players still tied, the sum over games between them of the tied
  opponents placed below minus those placed above.
- seed: the better (lower) effective seed; always last, so the order is total.

Source: docs/rules/tournaments.md#tie-breaks (BGA: opponents points / average; Match
Play: Median-Buchholz; TopDeck "score based"; pairings_edh on opponent win % with pods).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from contracts.tournament import ResultLine, TieBreak
from domain.tournament.points import placement_points
from domain.tournament.state import TournamentState
from domain.values import fields_dict

NAMES = {
    "points": "points",
    "opponents_points": "opponents' points",
    "opponents_average": "opponents' average",
    "buchholz": "Buchholz",
    "median_buchholz": "median-Buchholz",
    "score_difference": "score difference",
    "head_to_head": "head-to-head",
    "seed": "seed",
}


@dataclass(frozen=True, slots=True)
class Source:
    """One part of a number: the round and table (None: a bye), the game that played it, the
    other player it is about (None: the player's own result), how much it adds, in words."""

    round: int
    table: int | None
    game_id: str | None
    player_id: str | None
    amount: Fraction
    note: str

    def to_dict(self, owner: str | None = None) -> dict[str, Any]:
        """JSON-ready: `amount` as a float rounded to 4 decimals, `links` to the game behind
        it (its standings, and the ledger of the player the amount is about: the opponent,
        else `owner`; none for a table reported by hand or a bye)."""
        links: dict[str, str] = {}
        if self.game_id is not None:
            links["standings"] = f"/games/{self.game_id}/standings"
            about = self.player_id or owner
            if about is not None:
                links["ledger"] = f"/games/{self.game_id}/players/{about}/ledger"
        return {
            "round": self.round,
            "table": self.table,
            "game_id": self.game_id,
            "player_id": self.player_id,
            "amount": round(float(self.amount), 4),
            "note": self.note,
            "links": links,
        }


@dataclass(frozen=True, slots=True)
class Figure:
    """A number and the sources it adds up from."""

    value: Fraction
    sources: tuple[Source, ...]

    def to_dict(self, owner: str | None = None) -> dict[str, Any]:
        """`{"value": float (4 decimals), "text": "41" or "19.69", "tables": "R1 T3, R2 T7",
        "sources": [...]}` (`owner`: whose figure it is, for the sources' ledger links)."""
        return {
            "value": round(float(self.value), 4),
            "text": _num(self.value),
            "tables": self.tables(),
            "sources": [s.to_dict(owner) for s in self.sources],
        }

    def tables(self) -> str:
        """The tables behind the number in words: `R1 T3, R2 T7`."""
        seen = dict.fromkeys(
            f"R{s.round} T{s.table}" if s.table else f"R{s.round} bye" for s in self.sources
        )
        return ", ".join(seen) or "none"


@dataclass(frozen=True, slots=True)
class Line:
    """One player's standing: place (1 = first), points, games and byes counted, each
    configured tie-break's figure, the criterion that put them below the player above
    (`decided_by`, None for first), and whether they dropped."""

    place: int
    player_id: str
    name: str
    seed: int
    points: Figure
    games: int
    byes: int
    tie_breaks: dict[str, Figure]
    decided_by: str | None
    dropped: bool

    def explain(self) -> str:
        """E.g. `alma is 2nd on opponents' points 41: R1 T3, R2 T7`."""
        if self.decided_by is None:
            return f"{self.name} is 1st on points {_num(self.points.value)}: {self.points.tables()}"
        if self.decided_by == "seed":
            return f"{self.name} is {_ordinal(self.place)} on seed {self.seed} (tied on everything else)"
        figure = self.points if self.decided_by == "points" else self.tie_breaks[self.decided_by]
        return (
            f"{self.name} is {_ordinal(self.place)} on {NAMES[self.decided_by]} "
            f"{_num(figure.value)}: {figure.tables()}"
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready line."""
        owner = self.player_id
        return {
            **fields_dict(
                self,
                points=self.points.to_dict(owner),
                tie_breaks={k: v.to_dict(owner) for k, v in self.tie_breaks.items()},
            ),
            "explain": self.explain(),
        }


@dataclass(frozen=True, slots=True)
class Standings:
    """A tournament's standings after `seq`: lines in place order and the tables held out
    (reported but unapproved, or disputed) as `(round, table, status)`; a seated table with
    no report is not held (docs/tournament-rules.md)."""

    tournament_id: str
    seq: int
    rounds_seated: int
    lines: tuple[Line, ...]
    held: tuple[tuple[int, int, str], ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready standings."""
        return {
            "tournament_id": self.tournament_id,
            "seq": self.seq,
            "rounds_seated": self.rounds_seated,
            "players": [line.to_dict() for line in self.lines],
            "held": [{"round": r, "table": t, "status": s} for r, t, s in self.held],
        }


def _num(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else fixed(value)


def fixed(value: Fraction, places: int = 2) -> str:
    """`value` with exactly `places` decimals, rounded half away from zero (no float tails:
    `Fraction(59, 3)` is `19.67`)."""
    scaled = abs(value) * 10**places
    whole = int(scaled + Fraction(1, 2))
    sign = "-" if value < 0 and whole else ""
    text = str(whole).rjust(places + 1, "0")
    return f"{sign}{text[:-places]}.{text[-places:]}" if places else f"{sign}{text}"


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


@dataclass(frozen=True, slots=True)
class _Game:
    round: int
    table: int
    game_id: str | None
    results: tuple[ResultLine, ...]


def _games(state: TournamentState) -> tuple[list[_Game], list[tuple[int, int, str]]]:
    games: list[_Game] = []
    held: list[tuple[int, int, str]] = []
    for rnd in state.rounds:
        for table in rnd.tables.values():
            if table.status == "approved" and table.approved is not None:
                games.append(_Game(rnd.number, table.number, table.game_id, table.approved))
            elif table.status != "seated":
                held.append((rnd.number, table.number, table.status))
    return games, held


def _points(state: TournamentState, games: list[_Game]) -> dict[str, Figure]:
    settings = state.settings
    parts: dict[str, list[Source]] = {pid: [] for pid in state.players}
    for g in games:
        earned = (
            placement_points(settings, g.results)
            if settings.scoring == "placement"
            else {r.player_id: Fraction(r.score) for r in g.results}
        )
        for r in g.results:
            note = f"place {r.place} of {len(g.results)}, score {r.score}"
            parts[r.player_id].append(
                Source(g.round, g.table, g.game_id, None, earned[r.player_id], note)
            )
    for rnd in state.rounds:
        counted = rnd.closed or all(t.status == "approved" for t in rnd.tables.values())
        for pid in rnd.byes if counted else ():
            amount = Fraction(settings.bye_points if settings.scoring == "placement" else 0)
            parts[pid].append(Source(rnd.number, None, None, None, amount, "bye"))
    return {
        pid: Figure(sum((s.amount for s in src), Fraction(0)), tuple(src))
        for pid, src in parts.items()
    }


def _tie_breaks(games: list[_Game], totals: dict[str, Fraction]) -> dict[str, dict[str, Figure]]:
    """The group-independent tie-breaks of every player."""
    op: dict[str, list[Source]] = {pid: [] for pid in totals}
    bu: dict[str, list[Source]] = {pid: [] for pid in totals}
    sd: dict[str, list[Source]] = {pid: [] for pid in totals}
    for g in games:
        for me in g.results:
            others = [r for r in g.results if r.player_id != me.player_id]
            for o in others:
                op[me.player_id].append(
                    Source(
                        g.round,
                        g.table,
                        g.game_id,
                        o.player_id,
                        totals[o.player_id],
                        f"{o.player_id}'s points",
                    )
                )
            mean = sum((totals[o.player_id] for o in others), Fraction(0)) / len(others)
            bu[me.player_id].append(
                Source(g.round, g.table, g.game_id, None, mean, "opponents' mean points")
            )
            diff = me.score - Fraction(sum(o.score for o in others), len(others))
            sd[me.player_id].append(
                Source(
                    g.round,
                    g.table,
                    g.game_id,
                    None,
                    diff,
                    f"score {me.score} minus opponents' mean score",
                )
            )
    out: dict[str, dict[str, Figure]] = {}
    for pid in totals:
        total_op = sum((s.amount for s in op[pid]), Fraction(0))
        average = total_op / len(op[pid]) if op[pid] else Fraction(0)
        games_bu = sorted(bu[pid], key=lambda s: (s.amount, s.round))
        median = games_bu[1:-1] if len(games_bu) >= 3 else games_bu
        out[pid] = {
            "opponents_points": Figure(total_op, tuple(op[pid])),
            "opponents_average": Figure(average, tuple(op[pid])),
            "buchholz": Figure(sum((s.amount for s in bu[pid]), Fraction(0)), tuple(bu[pid])),
            "median_buchholz": Figure(sum((s.amount for s in median), Fraction(0)), tuple(median)),
            "score_difference": Figure(
                sum((s.amount for s in sd[pid]), Fraction(0)), tuple(sd[pid])
            ),
        }
    return out


def _head_to_head(games: list[_Game], group: Sequence[str]) -> dict[str, Figure]:
    members = set(group)
    parts: dict[str, list[Source]] = {pid: [] for pid in group}
    for g in games:
        here = [r for r in g.results if r.player_id in members]
        for me in here:
            rivals = [r for r in here if r.player_id != me.player_id]
            if not rivals:
                continue
            net = sum(1 for r in rivals if r.place > me.place) - sum(
                1 for r in rivals if r.place < me.place
            )
            names = ", ".join(r.player_id for r in rivals)
            parts[me.player_id].append(
                Source(g.round, g.table, g.game_id, None, Fraction(net), f"against {names}")
            )
    return {
        pid: Figure(sum((s.amount for s in src), Fraction(0)), tuple(src))
        for pid, src in parts.items()
    }


def _descending(values: dict[str, Fraction]) -> Callable[[str], Fraction]:
    return lambda pid: -values[pid]


def _split(
    decided: dict[str, str | None], group: list[str], key: Callable[[str], Any], name: str
) -> list[list[str]]:
    """Split `group` into runs of equal `key`, recording in `decided` what set each run apart."""
    # The group's first player after the split keeps what set the group apart from the
    # player above; every later part's first player is set apart by `name`.
    if not group:  # a tournament nobody has registered for yet
        return []
    head = decided.pop(group[0], None)
    ranked = sorted(group, key=key)
    parts: list[list[str]] = []
    for pid in ranked:
        if parts and key(parts[-1][-1]) == key(pid):
            parts[-1].append(pid)
        else:
            if parts:
                decided[pid] = name
            parts.append([pid])
    if head is not None:
        decided[ranked[0]] = head
    return parts


def _break_ties(
    name: TieBreak,
    groups: list[list[str]],
    games: list[_Game],
    fixed: dict[str, dict[str, Figure]],
    figures: dict[str, dict[str, Figure]],
    decided: dict[str, str | None],
) -> list[list[str]]:
    """Split every tied group by the tie-break `name`, recording each player's figure."""
    next_groups: list[list[str]] = []
    for group in groups:
        source = _head_to_head(games, group) if name == "head_to_head" else None
        for pid in group:
            figures[pid][name] = source[pid] if source is not None else fixed[pid][name]
        values = {pid: figures[pid][name].value for pid in group}
        if len(group) > 1:
            next_groups.extend(_split(decided, group, _descending(values), name))
        else:
            next_groups.append(group)
    return next_groups


def standings(state: TournamentState) -> Standings:
    """The standings of `state` (pure; see the module doc for every definition)."""
    games, held = _games(state)
    points = _points(state, games)
    totals = {pid: f.value for pid, f in points.items()}
    fixed = _tie_breaks(games, totals)
    seeds = state.seed_rank()
    order: list[TieBreak] = list(state.settings.tie_breaks)
    figures: dict[str, dict[str, Figure]] = {pid: {} for pid in state.players}
    decided: dict[str, str | None] = {}
    groups = _split(decided, list(state.players), lambda p: -totals[p], "points")
    for name in order:
        groups = _break_ties(name, groups, games, fixed, figures, decided)
    final: list[str] = []
    for group in groups:
        final.extend(p for part in _split(decided, group, lambda p: seeds[p], "seed") for p in part)
    lines = []
    for place, pid in enumerate(final, start=1):
        player = state.players[pid]
        lines.append(
            Line(
                place,
                pid,
                player.name,
                seeds[pid],
                points[pid],
                sum(1 for s in points[pid].sources if s.table is not None),
                sum(1 for s in points[pid].sources if s.table is None),
                {name: figures[pid][name] for name in order},
                decided.get(pid) if place > 1 else None,
                player.dropped,
            )
        )
    return Standings(state.tournament_id, state.seq, len(state.rounds), tuple(lines), tuple(held))
