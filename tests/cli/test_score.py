"""`scoreledger score`: the rich table, the exact `--json` shape, and bad lines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from contracts.events import dump_event_json
from services.cli.main import app
from tests.domain.trickerion.builders import TrickerionGame

runner = CliRunner()
PLAYER_KEYS = (
    "player_id",
    "name",
    "rank",
    "total",
    "provisional_total",
    "categories",
    "resources",
    "card_lines",
)


def _score_json(path: Path) -> dict:
    result = runner.invoke(app, ["score", str(path), "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def test_score_json_has_exact_shape(trickerion_log: Path) -> None:
    body = _score_json(trickerion_log)
    assert set(body) == {"game_id", "game", "status", "players", "winner"}
    assert (body["game_id"], body["game"], body["status"]) == ("tr-demo-1", "trickerion", "final")
    for player in body["players"]:
        assert set(player) == set(PLAYER_KEYS)
        assert sum(player["categories"].values()) == player["total"]
    assert [p["rank"] for p in body["players"]] == sorted(p["rank"] for p in body["players"])


def test_score_applies_the_referee_tail(trickerion_log: Path, tmp_path: Path) -> None:
    """The log is a simulated game (103 events) then, after `game.ended`: +2 Alma (seq 104),
    -1 Farid (seq 105), and seq 104 voided (seq 106). By hand: Alma unchanged, Farid one less,
    which breaks their 55-55 tie (settled by initiative for Farid) in Alma's favour."""
    prefix = tmp_path / "prefix.jsonl"
    prefix.write_text(
        "".join(trickerion_log.read_text(encoding="utf-8").splitlines(True)[:103]), encoding="utf-8"
    )
    before = {p["player_id"]: p for p in _score_json(prefix)["players"]}
    after = _score_json(trickerion_log)
    now = {p["player_id"]: p for p in after["players"]}
    assert before["alma"]["total"] == before["farid"]["total"]
    assert now["alma"]["total"] == before["alma"]["total"]
    assert now["farid"]["total"] == before["farid"]["total"] - 1
    assert (now["alma"]["categories"]["correction"], now["farid"]["categories"]["correction"]) == (
        0,
        -1,
    )
    assert after["winner"] == "alma"
    assert (now["alma"]["rank"], now["farid"]["rank"]) == (1, 2)


def test_score_json_in_progress_with_shared_rank_and_upcast_event(penumbra_log: Path) -> None:
    result = runner.invoke(app, ["score", str(penumbra_log), "--json"])
    assert result.exit_code == 0, result.output
    body = json.loads(result.stdout)
    assert body["status"] == "in_progress"
    assert body["winner"] is None
    # egor: 1 arcana + 2 correction + 1 from the v1 event (`points` upcast to `amount`).
    assert {p["player_id"]: (p["rank"], p["total"]) for p in body["players"]} == {
        "dana": (1, 4),
        "egor": (1, 4),
    }


def test_score_table_shows_breakdown_labels_and_winner(trickerion_log: Path) -> None:
    result = runner.invoke(app, ["score", str(trickerion_log)], env={"COLUMNS": "160"})
    assert result.exit_code == 0, result.output
    for text in (
        "Fame by category",
        "Advertise",
        "Реклама",
        "Correction",
        "Поправка",
        "1. Alma",
        "Winner: Alma",
    ):
        assert text in result.stdout


def test_bad_line_reports_line_number_rule_and_field(tmp_path: Path, trickerion_log: Path) -> None:
    lines = trickerion_log.read_text(encoding="utf-8").splitlines()
    broken = tmp_path / "gap.jsonl"
    broken.write_text(
        "\n".join([*lines[:3], lines[4]]) + "\n", encoding="utf-8"
    )  # seq 5 after seq 3
    result = runner.invoke(app, ["score", str(broken)])
    assert result.exit_code == 1
    assert "line 4: log.seq_gap [seq]" in result.stderr
    assert result.stdout == ""


def test_malformed_event_reports_field(tmp_path: Path, trickerion_log: Path) -> None:
    lines = trickerion_log.read_text(encoding="utf-8").splitlines()
    bad = json.loads(lines[104])  # seq 105, a game.score_corrected
    bad["payload"]["amount"] = "many"
    broken = tmp_path / "bad.jsonl"
    broken.write_text("\n".join([lines[0], lines[1], "", json.dumps(bad)]) + "\n", encoding="utf-8")
    result = runner.invoke(app, ["score", str(broken)])
    assert result.exit_code == 1
    assert "line 4: schema.field [payload.amount]" in result.stderr


@pytest.mark.parametrize(
    ("line", "rule", "field"),
    [
        ("{not json", "body.json", "line"),
        ("[1, 2]", "body.shape", "body"),
        ('{"type": "trickerion.advertise"}', "schema.field", "type"),
    ],
)
def test_a_refused_line_names_the_rule_http_names(
    tmp_path: Path, trickerion_log: Path, line: str, rule: str, field: str
) -> None:
    """`score` refuses a line with the rule id `POST /games/{id}/events` gives the same text
    (it said `contract.invalid` where HTTP says `body.json`, `schema.field`)."""
    from services.usecases.parse import parse_body
    from services.usecases.refusal import Refusal

    first = trickerion_log.read_text(encoding="utf-8").splitlines()[0]
    broken = tmp_path / "bad.jsonl"
    broken.write_text(f"{first}\n{line}\n", encoding="utf-8")
    result = runner.invoke(app, ["score", str(broken), "--json"])
    assert result.exit_code == 1
    error = json.loads(result.stdout)
    assert (error["line"], error["rule"], error["field"]) == (2, rule, field)
    with pytest.raises(Refusal) as http:
        parse_body(line.encode(), "line")
    assert (http.value.rule, http.value.field) == (rule, field)


def test_empty_log_fails(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n", encoding="utf-8")
    result = runner.invoke(app, ["score", str(empty)])
    assert result.exit_code == 1
    assert "log.empty" in result.stderr


def test_score_reads_a_log_saved_with_a_byte_order_mark(penumbra_log: Path, tmp_path: Path) -> None:
    with_bom = tmp_path / "bom.jsonl"
    with_bom.write_bytes(b"\xef\xbb\xbf" + penumbra_log.read_bytes())
    assert _score_json(with_bom) == _score_json(penumbra_log)


def _write(path: Path, events: list) -> Path:  # type: ignore[type-arg]
    path.write_text("".join(dump_event_json(e) + "\n" for e in events), encoding="utf-8")
    return path


def test_score_json_gives_resources_the_provisional_total_and_each_level3_trick(
    tmp_path: Path,
) -> None:
    # Given Ann (position 1: 10 Coins, 1 Shard, 5 Fame; docs/rules/trickerion.md#during-play) learns T36
    # and T47 and takes 4 Coins; Ben (12 Coins) does nothing. If the game ended now (rules
    # L17-L20): Ann 5 + Shards 1 + Coins 14 // 3 = 4 + T36 "4 per Level 3 Trick owned" 2 x 4 = 8
    # + T47 "4 per Level 2 Trick owned" 0 = 18; Ben 5 + 1 + 12 // 3 = 4 -> 10.
    g = TrickerionGame(["ann", "ben"])
    g.turn()
    g.learn("ann", "T36")
    g.learn("ann", "T47")
    g.change("ann", "bank", coins=4)
    body = _score_json(_write(tmp_path / "l3.jsonl", g.events))
    ann, ben = body["players"]
    assert set(ann) == {*PLAYER_KEYS}
    assert (ann["resources"], ben["resources"]) == (
        {"coins": 14, "shards": 1},
        {"coins": 12, "shards": 1},
    )
    assert (ann["total"], ann["provisional_total"], ben["provisional_total"]) == (5, 18, 10)
    assert [(c["card_id"], c["points"]) for c in ann["card_lines"]] == [("T36", 8), ("T47", 0)]
    assert ben["card_lines"] == []


def test_score_json_gives_penumbra_arcana_experience_light_and_dark(penumbra_log: Path) -> None:
    body = _score_json(penumbra_log)
    for player in body["players"]:
        assert set(player["resources"]) == {"arcana", "experience", "light", "dark"}
        assert player["provisional_total"] == player["total"]  # scored live (research §8)


def test_score_json_errors_are_a_json_object(tmp_path: Path, trickerion_log: Path) -> None:
    lines = trickerion_log.read_text(encoding="utf-8").splitlines()
    broken = tmp_path / "gap.jsonl"
    broken.write_text("\n".join([*lines[:3], lines[4]]) + "\n", encoding="utf-8")
    result = runner.invoke(app, ["score", str(broken), "--json"])
    assert result.exit_code == 1
    error = json.loads(result.stdout)
    assert set(error) == {"line", "rule", "field", "message"}
    assert (error["line"], error["rule"], error["field"]) == (4, "log.seq_gap", "seq")


def test_score_at_seq_replays_the_referee_tail_step_by_step(trickerion_log: Path) -> None:
    """The fixture's tail, by hand (see `test_score_applies_the_referee_tail`): at seq 103
    (`game.ended`) Alma and Farid tie 55-55; at 105 Alma has +2 (57) and Farid -1 (54); at 106
    the +2 is voided. Each point is what `--at-seq` shows, later events not counted yet."""

    def totals(seq: int) -> dict[str, int]:
        result = runner.invoke(app, ["score", str(trickerion_log), "--json", "--at-seq", str(seq)])
        assert result.exit_code == 0, result.output
        body = json.loads(result.stdout)
        assert body["status"] == "final"
        return {p["player_id"]: p["total"] for p in body["players"] if p["player_id"] in PAIR}

    PAIR = ("alma", "farid")
    assert totals(103) == {"alma": 55, "farid": 55}
    assert totals(104) == {"alma": 57, "farid": 55}
    assert totals(105) == {"alma": 57, "farid": 54}
    assert totals(106) == {"alma": 55, "farid": 54}
    assert totals(106) == {
        p["player_id"]: p["total"]
        for p in _score_json(trickerion_log)["players"]
        if p["player_id"] in PAIR
    }


def test_score_at_a_seq_the_log_lacks_names_it(trickerion_log: Path) -> None:
    result = runner.invoke(app, ["score", str(trickerion_log), "--json", "--at-seq", "107"])
    assert result.exit_code == 1
    assert json.loads(result.stdout) == {
        "line": None,
        "rule": "read.seq_not_found",
        "field": "at_seq",
        "option": "--at-seq",
        "message": "no event of seq 107: the log runs from seq 1 to 106",
    }
    worded = runner.invoke(app, ["score", str(trickerion_log), "--at-seq", "107"])
    assert "option --at-seq: read.seq_not_found: no event of seq 107" in worded.stderr
    assert "line 0" not in worded.stderr
    refused = runner.invoke(app, ["score", str(trickerion_log), "--at-seq", "0"])
    assert refused.exit_code == 2  # typer: below the option's minimum


def test_score_file_pauses_the_collector_and_leaves_it_as_it_found_it(
    trickerion_log: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cyclic collector is off while a log is parsed and folded (everything parsed stays
    alive to the end), on again after, a refused line too; left off when it was off."""
    import gc

    import services.cli.offline as offline
    from services.cli.offline import LogLineError, score_file

    seen: list[bool] = []
    fold_lines = offline.fold_lines
    monkeypatch.setattr(
        offline, "fold_lines", lambda events: seen.append(gc.isenabled()) or fold_lines(events)
    )
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n", encoding="utf-8")
    assert gc.isenabled()
    score_file(trickerion_log)
    assert seen == [False]
    assert gc.isenabled()
    with pytest.raises(LogLineError):
        score_file(bad)
    assert gc.isenabled()
    gc.disable()
    try:
        score_file(trickerion_log)
        assert not gc.isenabled()
    finally:
        gc.enable()
