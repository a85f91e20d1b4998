"""Exports: the score sheet CSV and the BG Stats play record (pure), and the export routes.
Expected values are read off the example games by hand (contracts/examples/*.jsonl)."""

from __future__ import annotations

import csv
import io
import json
import re
from datetime import timedelta
from pathlib import Path
from urllib.parse import parse_qs, urlsplit
from zoneinfo import ZoneInfo

import pytest

from contracts.events import parse_event_json
from domain.fold import fold
from domain.standings import standings
from services.usecases.readmodels.exports import (
    NotAFinishedPlay,
    bgstats_link,
    bgstats_play,
    play_minutes,
    score_sheet_csv,
)
from tests.web.builders import example, referee
from tests.web.conftest import Stack

EXAMPLES = Path(__file__).parents[2] / "contracts" / "examples"
LOG = (EXAMPLES / "penumbra-3p.jsonl").read_text(encoding="utf-8")
EXPECTED = json.loads((EXAMPLES / "penumbra-3p.expected.json").read_text(encoding="utf-8"))
EVENTS = [parse_event_json(line) for line in LOG.splitlines()]
TRICKERION = list(example("trickerion-4p-dark-alley-academy"))


def _sheet(**kwargs: object) -> list[dict[str, str]]:
    text = score_sheet_csv(standings(fold(EVENTS)), EVENTS, **kwargs)  # type: ignore[arg-type]
    return list(csv.DictReader(io.StringIO(text.removeprefix("\ufeff"))))


def test_score_sheet_has_labels_date_status_winner_rank_categories_and_total() -> None:
    rows = _sheet()
    assert [r["Player id"] for r in rows] == ["mira", "tess", "oren"]  # rank order
    assert list(rows[0])[:6] == ["Date", "Status", "Winner", "Place", "Player id", "Player"]
    assert list(rows[0])[-1] == "Total"
    for row in rows:
        want = EXPECTED["players"][row["Player id"]]
        assert int(row["Place"]) == want["rank"]
        assert int(row["Total"]) == want["total"]
        assert int(row["Trials"]) == want["categories"]["trials"]
        assert row["Date"] == "2026-11-28 19:01"
        assert row["Status"] == "final"
    assert [r["Winner"] for r in rows] == ["yes", "no", "no"]


def test_score_sheet_in_russian_in_the_table_time_zone_with_a_bom() -> None:
    text = score_sheet_csv(standings(fold(EVENTS)), EVENTS, "ru", ZoneInfo("Europe/Moscow"), True)
    assert text.startswith("\ufeff")
    rows = list(csv.DictReader(io.StringIO(text[1:])))
    assert rows[0]["Дата"] == "2026-11-28 22:01"  # 19:01 UTC is 22:01 in Moscow (UTC+3)
    assert rows[0]["Статус"] == "завершена"
    assert rows[0]["Победитель"] == "да"
    assert int(rows[0]["Испытания"]) == EXPECTED["players"]["mira"]["categories"]["trials"]


def test_score_sheet_repeats_a_shared_rank() -> None:
    tied = standings(fold(EVENTS[:1]))  # nobody has scored: everyone shares first place
    rows = list(csv.DictReader(io.StringIO(score_sheet_csv(tied, EVENTS[:1]))))
    assert [row["Place"] for row in rows] == ["1", "1", "1"]
    assert [row["Winner"] for row in rows] == ["no", "no", "no"]  # in progress: no winner


def test_bgstats_play_names_scores_ranks_winner_date_and_game() -> None:
    play = bgstats_play(standings(fold(EVENTS)), EVENTS, ZoneInfo("Europe/Moscow"), "Club")
    assert play["sourceName"] == "scoreledger"
    assert play["sourcePlayId"] == "pen-demo-3p"
    assert play["game"] == {
        "name": "Penumbra: Trials of Arcana",  # no bggId: not confirmed, left out, not guessed
        "sourceGameId": "penumbra",
        "highestWins": True,
        "noPoints": False,
    }
    assert play["playDate"] == "2026-11-28 22:01:10"  # local time of the table
    assert play["durationMin"] == 105  # 19:01:10 -> game.ended 20:46:10
    assert play["location"] == "Club"  # a string, as the format documents
    by_id = {p["sourcePlayerId"]: p for p in play["players"]}
    assert {pid: (p["score"], p["rank"]) for pid, p in by_id.items()} == {
        pid: (v["total"], v["rank"]) for pid, v in EXPECTED["players"].items()
    }
    assert [pid for pid, p in by_id.items() if p["winner"]] == [EXPECTED["winner"]]
    assert [pid for pid, p in by_id.items() if p["startPlayer"]] == ["mira"]  # turn 1's first
    link = bgstats_link(play)
    assert link.startswith("https://app.bgstatsapp.com/createPlay.html?data=")
    assert json.loads(parse_qs(urlsplit(link).query)["data"][0]) == play


# BG Stats' push-play import format, field by field. Source:
# bgstatsapp.com/support/push-plays-to-bg-stats-from-other-apps-or-websites/, as summarised in
# docs/integrating/http.md ("Fields: game{bggId, highestWins, noPoints,
# sourceGameId}, players[{name, score, rank, winner, startPlayer, role, sourcePlayerId}],
# playDate, durationMin, location, board"), with the fields open-source pushers also send
# (sourceName, sourcePlayId, game.name, comments). `location` is a string.
BGSTATS_PLAY_FIELDS = {
    "sourceName": str,
    "sourcePlayId": str,
    "playDate": str,
    "durationMin": int,
    "location": str,
    "board": str,
    "comments": str,
    "game": dict,
    "players": list,
}
BGSTATS_GAME_FIELDS = {
    "name": str,
    "bggId": int,
    "sourceGameId": str,
    "highestWins": bool,
    "noPoints": bool,
}
BGSTATS_PLAYER_FIELDS = {
    "name": str,
    "sourcePlayerId": str,
    "score": int,
    "rank": int,
    "winner": bool,
    "startPlayer": bool,
    "role": str,
}


def _fields_conform(record: dict[str, object], fields: dict[str, type]) -> None:
    """Every key is one of the format's fields, with its JSON type (absent, never null)."""
    assert set(record) <= set(fields), set(record) - set(fields)
    for key, value in record.items():
        assert isinstance(value, fields[key]), (key, value)


@pytest.mark.parametrize(
    ("events", "location"),
    [(EVENTS, "Club"), (EVENTS, None), (TRICKERION, "Café «Магия»")],
)
def test_a_bgstats_play_has_only_the_formats_fields_with_their_types(
    events: list[object], location: str | None
) -> None:
    """`location` was an object `{"name": ...}` (or null) and Penumbra's `bggId` null, where
    the format has a string and an integer (or the field left out)."""
    play = bgstats_play(standings(fold(events)), events, ZoneInfo("Europe/Moscow"), location)  # type: ignore[arg-type]
    _fields_conform(play, BGSTATS_PLAY_FIELDS)
    _fields_conform(play["game"], BGSTATS_GAME_FIELDS)
    for player in play["players"]:
        _fields_conform(player, BGSTATS_PLAYER_FIELDS)
    assert ("location" in play) == (location is not None)
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", play["playDate"])  # no offset


def test_bgstats_trickerion_has_its_bgg_id_modules_and_start_player() -> None:
    play = bgstats_play(standings(fold(TRICKERION)), TRICKERION)
    assert play["game"]["bggId"] == 163068
    assert "modules: Dark Alley, Dahlgaard's Academy" in play["comments"]
    assert [p["sourcePlayerId"] for p in play["players"] if p["startPlayer"]] == ["bruno"]


def test_a_correction_the_next_day_does_not_lengthen_the_play() -> None:
    late = referee(EVENTS, {"player_id": "oren", "amount": 1})
    late = late.model_copy(update={"occurred_at": EVENTS[-1].occurred_at + timedelta(days=1)})
    assert play_minutes([*EVENTS, late]) == 105
    in_play = EVENTS[:40]  # no game.ended yet: to the last event of play
    assert play_minutes(in_play) == round(
        (in_play[-1].occurred_at - in_play[0].occurred_at).seconds / 60
    )


def test_an_in_progress_game_is_refused_or_flagged() -> None:
    result = standings(fold(EVENTS[:40]))
    with pytest.raises(NotAFinishedPlay):
        bgstats_play(result, EVENTS[:40])
    flagged = bgstats_play(result, EVENTS[:40], allow_in_progress=True)
    assert flagged["comments"].startswith("NOT FINISHED")
    assert not any(p["winner"] for p in flagged["players"])


@pytest.mark.redis
async def test_export_routes(stack: Stack) -> None:
    await stack.append(EVENTS)
    text = (await stack.client.get("/games/pen-demo-3p/export/events.jsonl")).text
    stored = [parse_event_json(line) for line in text.splitlines()]
    assert [e.event_id for e in stored] == [e.event_id for e in EVENTS]
    assert all(e.recorded_at is not None for e in stored)  # as stored, not as sent
    sheet = await stack.client.get(
        "/games/pen-demo-3p/export/scoresheet.csv", params={"lang": "ru", "bom": "true"}
    )
    assert sheet.headers["content-type"].startswith("text/csv")
    assert sheet.content.startswith("\ufeff".encode())
    assert sheet.content.decode("utf-8") == score_sheet_csv(
        standings(fold(EVENTS)), EVENTS, "ru", ZoneInfo("UTC"), True
    )
    body = (
        await stack.client.get(
            "/games/pen-demo-3p/export/bgstats.json", params={"tz": "Europe/Moscow"}
        )
    ).json()
    assert body["final"] is True
    assert body["play"]["players"][0]["winner"] is True
    assert body["play"]["playDate"] == "2026-11-28 22:01:10"
    bad = await stack.client.get(
        "/games/pen-demo-3p/export/bgstats.json", params={"tz": "Mars/Base"}
    )
    assert bad.status_code == 422
    assert bad.json()["rule"] == "export.unknown_time_zone"
    assert (await stack.client.get("/games/nope/export/scoresheet.csv")).status_code == 404


@pytest.mark.redis
async def test_bgstats_route_refuses_a_game_in_progress(stack: Stack) -> None:
    await stack.append(EVENTS[:40])
    refused = await stack.client.get("/games/pen-demo-3p/export/bgstats.json")
    assert refused.status_code == 409
    assert refused.json()["rule"] == "export.game_not_final"
    flagged = await stack.client.get(
        "/games/pen-demo-3p/export/bgstats.json", params={"in_progress": "true"}
    )
    assert flagged.json()["final"] is False


@pytest.mark.parametrize(
    "name", ['=HYPERLINK("http://evil.example","win")', "+1", "-2", "@SUM(A1)"]
)
def test_score_sheet_neutralises_a_name_a_spreadsheet_would_run(name: str) -> None:
    raw = json.loads(LOG.splitlines()[0])
    raw["payload"]["players"][0]["name"] = name
    start = [parse_event_json(json.dumps(raw))]
    sheet = score_sheet_csv(standings(fold(start)), start)
    names = [row["Player"] for row in csv.DictReader(io.StringIO(sheet))]
    assert f"'{name}" in names
    assert not any(n.startswith(("=", "+", "-", "@")) for n in names)
