"""Tournament standings against hand-computed examples: every tie-break's value for every
player worked out on paper (the sums are written beside each figure), and the orders the
configured tie-breaks give.

Example A (6 players, tables of 3, placement 7/4/1):
  R1 T1: a 1st 30, b 2nd 25, c 3rd 20      R1 T2: d 1st 40, e 2nd 22, f 3rd 10
  R2 T1: e 1st 33, a 2nd 30, f 3rd 12      R2 T2: c 1st 24, d 2nd 20, b 3rd 18
  points: a 7+4=11, b 4+1=5, c 1+7=8, d 7+4=11, e 4+7=11, f 1+1=2

Example B (same players and round 1; round 2 different):
  R2 T1: d 1st 35, a 2nd 28, f 3rd 15      R2 T2: e 1st 30, b 2nd 26, c 3rd 21
  points: a 11, b 8, c 2, d 14, e 11, f 2
"""

from __future__ import annotations

from fractions import Fraction

from domain.tournament.fold import fold
from domain.tournament.standings import Standings, standings
from tests.domain.tournament.stream import Stream

R1 = [(("a", 1, 30), ("b", 2, 25), ("c", 3, 20)), (("d", 1, 40), ("e", 2, 22), ("f", 3, 10))]


R2_A = [(("e", 1, 33), ("a", 2, 30), ("f", 3, 12)), (("c", 1, 24), ("d", 2, 20), ("b", 3, 18))]
R2_B = [(("d", 1, 35), ("a", 2, 28), ("f", 3, 15)), (("e", 1, 30), ("b", 2, 26), ("c", 3, 21))]


def _two_rounds(round_2: list[tuple[tuple[str, int, int], ...]], **settings: object) -> Standings:
    """Round 1 as both examples play it, then round 2's two tables as `round_2` lists them (in
    finishing order), each round closed; the standings."""
    s = Stream().create(rounds=2, **settings).register("a", "b", "c", "d", "e", "f")
    s.seat(1, ("a", "b", "c"), ("d", "e", "f")).result(1, 1, *R1[0]).result(1, 2, *R1[1]).close(1)
    s.seat(2, *(tuple(sorted(pid for pid, _, _ in table)) for table in round_2))
    s.result(2, 1, *round_2[0]).result(2, 2, *round_2[1]).close(2)
    return standings(fold(s.events))


def _example_a(**settings: object) -> Standings:
    return _two_rounds(R2_A, **settings)


def _example_b(**settings: object) -> Standings:
    return _two_rounds(R2_B, **settings)


def _values(table: Standings, name: str) -> dict[str, Fraction]:
    return {
        line.player_id: (line.points if name == "points" else line.tie_breaks[name]).value
        for line in table.lines
    }


def test_example_a_every_figure_by_hand() -> None:
    table = _example_a()
    assert _values(table, "points") == {"a": 11, "b": 5, "c": 8, "d": 11, "e": 11, "f": 2}
    # opponents' points: a: (b 5 + c 8) + (e 11 + f 2) = 26; b: (a 11 + c 8) + (c 8 + d 11)
    # = 38; c: (a 11 + b 5) + (b 5 + d 11) = 32; d: (e 11 + f 2) + (b 5 + c 8) = 26;
    # e: (d 11 + f 2) + (a 11 + f 2) = 26; f: (d 11 + e 11) + (a 11 + e 11) = 44.
    assert _values(table, "opponents_points") == {
        "a": 26,
        "b": 38,
        "c": 32,
        "d": 26,
        "e": 26,
        "f": 44,
    }
    # opponents' average: the above over 4 opponents each.
    assert _values(table, "opponents_average") == {
        "a": Fraction(13, 2), "b": Fraction(19, 2), "c": 8, "d": Fraction(13, 2),
        "e": Fraction(13, 2), "f": 11,
    }  # fmt: skip
    # Buchholz: per game the opponents' mean: a 13/2 + 13/2 = 13, b 19/2 + 19/2 = 19, ...
    assert _values(table, "buchholz") == {"a": 13, "b": 19, "c": 16, "d": 13, "e": 13, "f": 22}
    # median-Buchholz: with 2 games nothing is cut, equal to Buchholz.
    assert _values(table, "median_buchholz") == _values(table, "buchholz")
    # score difference: a (30 - 45/2) + (30 - 45/2) = 15; b (25 - 25) + (18 - 22) = -4;
    # c (20 - 55/2) + (24 - 19) = -5/2; d (40 - 16) + (20 - 21) = 23;
    # e (22 - 25) + (33 - 21) = 9; f (10 - 31) + (12 - 63/2) = -81/2.
    assert _values(table, "score_difference") == {
        "a": 15, "b": -4, "c": Fraction(-5, 2), "d": 23, "e": 9, "f": Fraction(-81, 2),
    }  # fmt: skip
    # head-to-head is computed in the tied group only: {a, d, e} on 11 points, tied on
    # opponents' points, average, Buchholz and median-Buchholz; score difference splits them
    # first, so each is alone by then: 0 for all.
    assert [line.player_id for line in table.lines] == ["d", "a", "e", "c", "b", "f"]
    assert [line.decided_by for line in table.lines] == [
        None, "score_difference", "score_difference", "points", "points", "points",
    ]  # fmt: skip


def test_example_a_head_to_head_and_seed_decide_when_ordered_first() -> None:
    # Among {a, d, e}: R1 T2 d 1st over e 2nd (d +1, e -1); R2 T1 e 1st over a 2nd (e +1,
    # a -1); a and d never met. a -1, d +1, e 0.
    by_h2h = _example_a(tie_breaks=["head_to_head"])
    assert [line.player_id for line in by_h2h.lines][:3] == ["d", "e", "a"]
    h2h = {line.player_id: line.tie_breaks["head_to_head"].value for line in by_h2h.lines}
    assert (h2h["a"], h2h["d"], h2h["e"]) == (-1, 1, 0)
    assert by_h2h.lines[1].decided_by == "head_to_head"
    # Opponents' points tie a, d, e at 26: the seed (registration order a 1, d 4, e 5) decides.
    by_op = _example_a(tie_breaks=["opponents_points"])
    assert [line.player_id for line in by_op.lines][:3] == ["a", "d", "e"]
    assert [line.decided_by for line in by_op.lines][1:3] == ["seed", "seed"]


def test_example_b_opponents_points_decides_the_tie_on_two_points() -> None:
    table = _example_b()
    assert _values(table, "points") == {"a": 11, "b": 8, "c": 2, "d": 14, "e": 11, "f": 2}
    # c: (a 11 + b 8) + (b 8 + e 11) = 38; f: (d 14 + e 11) + (a 11 + d 14) = 50.
    op = _values(table, "opponents_points")
    assert (op["c"], op["f"]) == (38, 50)
    # a and e: both 26 = (b 8 + c 2) + (d 14 + f 2) and (d 14 + f 2) + (b 8 + c 2); Buchholz
    # 5 + 8 = 13 both; score difference a (30 - 45/2) + (28 - 25) = 21/2, e (22 - 25) +
    # (30 - 47/2) = 7/2.
    assert (op["a"], op["e"]) == (26, 26)
    sd = _values(table, "score_difference")
    assert (sd["a"], sd["e"]) == (Fraction(21, 2), Fraction(7, 2))
    assert [line.player_id for line in table.lines] == ["d", "a", "e", "b", "f", "c"]
    assert [line.decided_by for line in table.lines] == [
        None, "points", "score_difference", "points", "points", "opponents_points",
    ]  # fmt: skip
    line_f = table.lines[4]
    assert line_f.explain() == "F is 5th on points 2: R1 T2, R2 T1"
    assert table.lines[5].explain() == "C is 6th on opponents' points 38: R1 T1, R2 T2"


def test_every_figure_names_its_tables_and_opponents() -> None:
    table = _example_a()
    a = next(line for line in table.lines if line.player_id == "a")
    parts = a.tie_breaks["opponents_points"].sources
    assert [(s.round, s.table, s.player_id, s.amount) for s in parts] == [
        (1, 1, "b", 5), (1, 1, "c", 8), (2, 1, "e", 11), (2, 1, "f", 2),
    ]  # fmt: skip
    assert [(s.round, s.table, s.amount) for s in a.points.sources] == [(1, 1, 7), (2, 1, 4)]


def test_median_buchholz_cuts_the_best_and_worst_game_from_three() -> None:
    s = Stream().create(rounds=3).register("a", "b", "c", "d", "e", "f")
    s.seat(1, ("a", "b", "c"), ("d", "e", "f")).result(1, 1, *R1[0]).result(1, 2, *R1[1]).close(1)
    s.seat(2, ("a", "e", "f"), ("b", "c", "d"))
    s.result(2, 1, ("e", 1, 33), ("a", 2, 30), ("f", 3, 12))
    s.result(2, 2, ("c", 1, 24), ("d", 2, 20), ("b", 3, 18)).close(2)
    s.seat(3, ("a", "d", "f"), ("b", "c", "e"))
    s.result(3, 1, ("a", 1, 31), ("d", 2, 30), ("f", 3, 1))
    s.result(3, 2, ("b", 1, 22), ("c", 2, 21), ("e", 3, 20)).close(3)
    table = standings(fold(s.events))
    # points: a 11+7=18, b 5+7=12, c 8+4=12, d 11+4=15, e 11+1=12, f 2+1=3.
    assert _values(table, "points") == {"a": 18, "b": 12, "c": 12, "d": 15, "e": 12, "f": 3}
    # a's games: R1 (b 12 + c 12)/2 = 12, R2 (e 12 + f 3)/2 = 15/2, R3 (d 15 + f 3)/2 = 9:
    # Buchholz 12 + 15/2 + 9 = 57/2; median-Buchholz keeps only the middle game, 9.
    a = next(line for line in table.lines if line.player_id == "a")
    assert a.tie_breaks["buchholz"].value == Fraction(57, 2)
    assert a.tie_breaks["median_buchholz"].value == 9
    assert [s.round for s in a.tie_breaks["median_buchholz"].sources] == [3]


def test_decided_by_names_the_first_criterion_that_differs_from_the_player_above() -> None:
    # 400 seeded random 6-player, 2-round tournaments with small scores (many ties) and random
    # tie-break orders: each line's `decided_by` is the first of points, the configured
    # tie-breaks, seed, on which it differs from the line above (head-to-head excluded: it
    # is computed within the tied group only).
    import random

    names = ["opponents_points", "opponents_average", "buchholz", "median_buchholz"]
    checked = 0
    for seed in range(400):
        rnd = random.Random(seed)
        ids = ["a", "b", "c", "d", "e", "f"]
        order = rnd.sample([*names, "score_difference"], rnd.randint(0, 5))
        s = Stream().create(rounds=2, tie_breaks=order).register(*ids)
        for number in (1, 2):
            rnd.shuffle(ids)
            s.seat(number, tuple(ids[:3]), tuple(ids[3:]))
            for t, table in enumerate((ids[:3], ids[3:]), 1):
                scores = [rnd.randint(0, 2) for _ in table]
                ranked = sorted(range(3), key=lambda i: -scores[i])
                places = {i: ranked.index(i) + 1 for i in range(3)}
                s.result(number, t, *[(table[i], places[i], scores[i]) for i in range(3)])
            s.close(number)
        table = standings(fold(s.events))
        for above, line in zip(table.lines, table.lines[1:], strict=False):
            expected = "seed"
            for name in ["points", *order]:
                mine = line.points if name == "points" else line.tie_breaks[name]
                theirs = above.points if name == "points" else above.tie_breaks[name]
                if mine.value != theirs.value:
                    expected = name
                    break
            assert line.decided_by == expected, (seed, order, above.player_id, line.player_id)
            checked += 1
    assert checked == 400 * 5


def test_every_figure_links_to_its_games_and_prints_fixed_decimals() -> None:
    s = Stream().create(rounds=1).register("a", "b", "c")
    s.seat(1, ("a", "b", "c"))
    s.events[-1] = s.events[-1].model_copy(
        update={
            "payload": s.events[-1].payload.model_copy(
                update={
                    "tables": (
                        s.events[-1].payload.tables[0].model_copy(update={"game_id": "g1"}),  # type: ignore[attr-defined]
                    )
                }
            )
        }
    )
    s.result(1, 1, ("a", 1, 30), ("b", 2, 20), ("c", 3, 19)).close(1)
    line = standings(fold(s.events)).lines[0].to_dict()
    # a: placement 7 (3-player table: 7/4/1); score difference 30 - (20 + 19)/2 = 21/2.
    assert (line["player_id"], line["points"]["text"], line["points"]["tables"]) == (
        "a",
        "7",
        "R1 T1",
    )
    source = line["points"]["sources"][0]
    assert source["links"] == {
        "standings": "/games/g1/standings",
        "ledger": "/games/g1/players/a/ledger",
    }
    opponent = line["tie_breaks"]["opponents_points"]["sources"][0]
    assert opponent["links"]["ledger"] == "/games/g1/players/b/ledger"
    assert line["tie_breaks"]["score_difference"]["text"] == "10.50"
    # b: opponents' average (a 7 + c 1) / 2 = 4; Buchholz 4; score difference 20 - 49/2.
    b = standings(fold(s.events)).lines[1].to_dict()
    assert b["tie_breaks"]["score_difference"]["text"] == "-4.50"
    assert b["tie_breaks"]["score_difference"]["value"] == -4.5


def test_fixed_decimals_round_half_away_from_zero_without_tails() -> None:
    from domain.tournament.standings import fixed

    assert [fixed(Fraction(n, d)) for n, d in [(59, 3), (-81, 2), (0, 1), (1, 200), (41, 1)]] == [
        "19.67", "-40.50", "0.00", "0.01", "41.00",
    ]  # fmt: skip
    assert fixed(Fraction(-1, 1000)) == "0.00"  # no "-0.00"


def test_csv_of_example_a_has_fixed_decimals() -> None:
    from services.tournaments.doors.query import standings_csv

    rows = standings_csv(_example_a(), ("opponents_average", "score_difference")).splitlines()
    assert rows[0] == (
        "place,player_id,name,points,games,byes,opponents_average,score_difference,"
        "decided_by,dropped,explain"
    )
    # d: 11 points, average 13/2, score difference 23; c: 8, 8, -5/2; f: 2, 11, -81/2.
    assert rows[1].startswith("1,d,D,11.00,2,0,6.50,23.00,,False,")
    assert rows[4].startswith("4,c,C,8.00,2,0,8.00,-2.50,points,False,")
    assert rows[6].startswith("6,f,F,2.00,2,0,11.00,-40.50,points,False,")


def test_a_tournament_nobody_has_registered_for_has_empty_standings() -> None:
    # the room screen and GET /tournaments/{id}/standings ask right after creation
    table = standings(fold(Stream().create().events))
    assert table.lines == ()
