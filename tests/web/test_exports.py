"""Exports: the score sheet CSV and the BG Stats play record (pure), and the export routes."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from contracts.events import parse_event_json
from domain.fold import fold
from domain.standings import standings
from services.usecases.readmodels.exports import bgstats_link, bgstats_play, score_sheet_csv
from tests.web.conftest import Stack

EXAMPLES = Path(__file__).parents[2] / "contracts" / "examples"
LOG = (EXAMPLES / "penumbra-3p.jsonl").read_text(encoding="utf-8")
EXPECTED = json.loads((EXAMPLES / "penumbra-3p.expected.json").read_text(encoding="utf-8"))
EVENTS = [parse_event_json(line) for line in LOG.splitlines()]


def test_score_sheet_has_a_row_per_player_a_column_per_category_total_and_rank() -> None:
    rows = list(csv.DictReader(io.StringIO(score_sheet_csv(standings(fold(EVENTS))))))
    assert [r["player_id"] for r in rows] == ["mira", "tess", "oren"]  # rank order
    for row in rows:
        want = EXPECTED["players"][row["player_id"]]
        assert int(row["rank"]) == want["rank"]
        assert int(row["total"]) == want["total"]
        for key, points in want["categories"].items():
            assert int(row[key]) == points
    header = next(csv.reader(io.StringIO(score_sheet_csv(standings(fold(EVENTS))))))
    assert header[:3] == ["rank", "player_id", "name"]
    assert header[-1] == "total"


def test_score_sheet_repeats_a_shared_rank() -> None:
    tied = standings(fold(EVENTS[:1]))  # nobody has scored: everyone shares first place
    ranks = [row["rank"] for row in csv.DictReader(io.StringIO(score_sheet_csv(tied)))]
    assert ranks == ["1", "1", "1"]


def test_bgstats_play_names_scores_winner_date_and_game() -> None:
    play = bgstats_play(standings(fold(EVENTS)), EVENTS)
    assert play["sourceName"] == "scoreledger"
    assert play["sourcePlayId"] == "pen-demo-3p"
    assert play["game"] == {
        "name": "Penumbra: Trials of Arcana",
        "sourceGameId": "penumbra",
        "highestWins": True,
        "noPoints": False,
    }
    assert play["playDate"] == "2026-11-28 19:01:10"
    assert play["durationMin"] == 105  # 19:01:10 -> 20:46:10
    by_id = {p["sourcePlayerId"]: p for p in play["players"]}
    assert {pid: p["score"] for pid, p in by_id.items()} == {
        pid: v["total"] for pid, v in EXPECTED["players"].items()
    }
    assert [pid for pid, p in by_id.items() if p["winner"]] == [EXPECTED["winner"]]
    link = bgstats_link(play)
    assert link.startswith("https://app.bgstatsapp.com/createPlay.html?data=")
    assert json.loads(parse_qs(urlsplit(link).query)["data"][0]) == play


@pytest.mark.redis
async def test_export_routes(stack: Stack) -> None:
    await stack.append(EVENTS)
    text = (await stack.client.get("/games/pen-demo-3p/export/events.jsonl")).text
    stored = [parse_event_json(line) for line in text.splitlines()]
    assert [e.event_id for e in stored] == [e.event_id for e in EVENTS]
    assert all(e.recorded_at is not None for e in stored)  # as stored, not as sent
    sheet = await stack.client.get("/games/pen-demo-3p/export/scoresheet.csv")
    assert sheet.headers["content-type"].startswith("text/csv")
    assert sheet.text == score_sheet_csv(standings(fold(EVENTS)))
    body = (await stack.client.get("/games/pen-demo-3p/export/bgstats.json")).json()
    assert body["play"]["players"][0]["winner"] is True
    assert (await stack.client.get("/games/nope/export/scoresheet.csv")).status_code == 404


@pytest.mark.parametrize(
    "name", ['=HYPERLINK("http://evil.example","win")', "+1", "-2", "@SUM(A1)"]
)
def test_score_sheet_neutralises_a_name_a_spreadsheet_would_run(name: str) -> None:
    raw = json.loads(LOG.splitlines()[0])
    raw["payload"]["players"][0]["name"] = name
    sheet = score_sheet_csv(standings(fold([parse_event_json(json.dumps(raw))])))
    names = [row["name"] for row in csv.DictReader(io.StringIO(sheet))]
    assert f"'{name}" in names
    assert not any(n.startswith(("=", "+", "-", "@")) for n in names)
