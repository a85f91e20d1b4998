"""The pure replays behind the chart, the history and the dispute view (no Redis)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from contracts.envelope import Envelope
from domain.fold import fold
from domain.standings import standings
from services.usecases.readmodels import replay
from tests.web.builders import example, referee

NOW = datetime(2026, 12, 1, tzinfo=UTC)


@pytest.fixture(scope="module")
def penumbra() -> list[Envelope]:
    return list(example())


def test_series_point_n_equals_the_replay_at_seq_n(penumbra: list[Envelope]) -> None:
    result = replay.series(penumbra)
    assert [p["seq"] for p in result["per_event"]] == list(range(1, len(penumbra) + 1))
    for n in (1, 17, 50, len(penumbra)):
        at_n = standings(fold(penumbra, upto_seq=n))
        assert result["per_event"][n - 1]["totals"] == {p.player_id: p.total for p in at_n.players}


def test_series_per_turn_takes_the_last_event_of_each_turn(penumbra: list[Envelope]) -> None:
    result = replay.series(penumbra)
    turns = [p["turn"] for p in result["per_turn"]]
    assert turns == sorted(set(turns))
    assert turns[0] == 0
    starts = [e.seq for e in penumbra if e.type == "game.turn_started"]
    # each turn's point is the event just before the next turn starts (or the last event)
    assert [p["seq"] for p in result["per_turn"][:-1]] == [s - 1 for s in starts]
    assert result["per_turn"][-1]["seq"] == len(penumbra)
    assert result["per_turn"][-1]["totals"] == result["per_event"][-1]["totals"]
    assert result["score_unit"] == "vp"


def test_series_counts_a_voided_event_until_its_void(penumbra: list[Envelope]) -> None:
    log = list(penumbra[:20])
    log.append(referee(log, {"player_id": "mira", "amount": 5}))  # seq 21
    log.append(referee(log, {"voided_event_id": str(log[20].event_id)}))  # seq 22 voids 21
    log += [e.model_copy(update={"seq": 23 + i}) for i, e in enumerate(penumbra[20:30])]
    points = replay.series(log)["per_event"]
    assert points[20]["totals"]["mira"] == points[19]["totals"]["mira"] + 5
    assert points[21]["totals"] == points[19]["totals"]
    for n in (20, 21, 22, len(log)):  # the folder's running sums, read per event, as a replay
        at_n = standings(fold(log, upto_seq=n))
        assert points[n - 1]["totals"] == {p.player_id: p.total for p in at_n.players}


def test_timeline_deltas_add_up_to_the_totals(penumbra: list[Envelope]) -> None:
    rows = replay.timeline(penumbra)["events"]
    sums: dict[str, int] = {}
    for row in rows:
        for pid, n in row["delta"].items():
            sums[pid] = sums.get(pid, 0) + n
    final = standings(fold(penumbra))
    assert sums == {p.player_id: p.total for p in final.players if p.total}


def test_timeline_marks_voids_and_corrections(penumbra: list[Envelope]) -> None:
    log = list(penumbra[:20])
    log.append(referee(log, {"player_id": "mira", "amount": 5}))  # seq 21
    log.append(referee(log, {"voided_event_id": str(log[20].event_id)}))  # seq 22 voids 21
    rows = {r["seq"]: r for r in replay.timeline(log)["events"]}
    assert rows[21]["voided"]
    assert rows[21]["voided_by_seq"] == 22
    assert rows[21]["correction"]
    assert rows[21]["delta"] == {"mira": 5}
    assert rows[21]["entries"] == [
        {
            "player_id": "mira",
            "category": "correction",
            "amount": 5,
            "rule": "correction",
            "note": "ref-test: test",
        }
    ]
    assert rows[22]["void_of_seq"] == 21
    assert not rows[22]["voided"]
    assert rows[22]["delta"] == {"mira": -5}  # taking the voided +5 out
    assert not any(rows[s]["voided"] for s in range(1, 21))


def test_timeline_links_a_correction_to_the_disputed_event(penumbra: list[Envelope]) -> None:
    log = list(penumbra[:20])
    log.append(referee(log, {"player_id": "oren", "amount": -1}, causation=log[9]))
    rows = replay.timeline(log)["events"]
    assert rows[9]["disputed_by_seq"] == [21]
    assert all(r["disputed_by_seq"] == [] for r in rows if r["seq"] != 10)


def test_compare_without_matches_a_real_void(penumbra: list[Envelope]) -> None:
    target = next(e for e in penumbra if e.seq == 10)
    result = replay.compare_without(penumbra, str(target.event_id), NOW)
    assert result["error"] is None
    with_totals = {p["player_id"]: p["total"] for p in result["with"]["players"]}
    without_totals = {p["player_id"]: p["total"] for p in result["without"]["players"]}
    assert result["delta"] == {pid: without_totals[pid] - with_totals[pid] for pid in with_totals}
    assert any(result["delta"].values())


def test_compare_without_explains_an_event_that_cannot_be_voided(penumbra: list[Envelope]) -> None:
    result = replay.compare_without(penumbra, str(penumbra[0].event_id), NOW)
    assert result["without"] is None
    assert result["error"]["rule"] == "void.game_started"
    with pytest.raises(LookupError):
        replay.compare_without(penumbra, "00000000-0000-4000-8000-000000000000", NOW)


def test_compare_without_the_end_of_the_game_reopens_it(penumbra: list[Envelope]) -> None:
    ended = penumbra[-1]
    assert ended.type == "game.ended"
    result = replay.compare_without(penumbra, str(ended.event_id), NOW)
    assert result["error"] is None  # the hypothetical void says reopens_game, as a real one must
    assert result["reopens_game"] is True
    assert result["with"]["status"] == "final"
    assert result["without"]["status"] == "in_progress"
    other = replay.compare_without(penumbra, str(penumbra[9].event_id), NOW)
    assert other["reopens_game"] is False
