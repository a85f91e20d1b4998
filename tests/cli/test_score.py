"""`scoreledger score`: the rich table, the exact `--json` shape, and bad lines."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from services.cli.main import app

runner = CliRunner()


def test_score_json_has_exact_shape_and_hand_checked_totals(trickerion_log: Path) -> None:
    result = runner.invoke(app, ["score", str(trickerion_log), "--json"])
    assert result.exit_code == 0, result.output
    body = json.loads(result.stdout)
    assert set(body) == {"game_id", "game", "status", "players", "winner"}
    assert (body["game_id"], body["game"], body["status"], body["winner"]) == ("tr-demo-1", "trickerion", "final", "alice")
    for player in body["players"]:
        assert set(player) == {"player_id", "name", "rank", "total", "categories"}
    # By hand: alice 2 advertise + 3 correction; chen's 5 was voided at seq 6, leaving 4; boris 2.
    lines = {p["player_id"]: (p["rank"], p["total"], p["categories"]) for p in body["players"]}
    assert lines == {
        "alice": (1, 5, {"advertise": 2, "correction": 3}),
        "chen": (2, 4, {"advertise": 4}),
        "boris": (3, 2, {"advertise": 2}),
    }


def test_score_json_in_progress_with_shared_rank_and_upcast_event(penumbra_log: Path) -> None:
    result = runner.invoke(app, ["score", str(penumbra_log), "--json"])
    assert result.exit_code == 0, result.output
    body = json.loads(result.stdout)
    assert body["status"] == "in_progress"
    assert body["winner"] is None
    # egor: 1 arcana + 2 correction + 1 from the v1 event (`points` upcast to `amount`).
    assert {p["player_id"]: (p["rank"], p["total"]) for p in body["players"]} == {"dana": (1, 4), "egor": (1, 4)}


def test_score_table_shows_breakdown_labels_and_winner(trickerion_log: Path) -> None:
    result = runner.invoke(app, ["score", str(trickerion_log)], env={"COLUMNS": "160"})
    assert result.exit_code == 0, result.output
    for text in ("Total Fame", "Advertise", "Реклама", "Correction", "Поправка", "Борис", "Winner: Alice"):
        assert text in result.stdout


def test_bad_line_reports_line_number_rule_and_field(tmp_path: Path, trickerion_log: Path) -> None:
    lines = trickerion_log.read_text(encoding="utf-8").splitlines()
    broken = tmp_path / "gap.jsonl"
    broken.write_text("\n".join([*lines[:3], lines[4]]) + "\n", encoding="utf-8")  # seq 5 after seq 3
    result = runner.invoke(app, ["score", str(broken), "--json"])
    assert result.exit_code == 1
    assert "line 4: log.seq_gap [seq]" in result.stderr
    assert result.stdout == ""


def test_malformed_event_reports_field(tmp_path: Path, trickerion_log: Path) -> None:
    lines = trickerion_log.read_text(encoding="utf-8").splitlines()
    bad = json.loads(lines[2])
    bad["payload"]["amount"] = "many"
    broken = tmp_path / "bad.jsonl"
    broken.write_text("\n".join([lines[0], lines[1], "", json.dumps(bad)]) + "\n", encoding="utf-8")
    result = runner.invoke(app, ["score", str(broken)])
    assert result.exit_code == 1
    assert "line 4: contract.invalid [payload.amount]" in result.stderr


def test_empty_log_fails(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n", encoding="utf-8")
    result = runner.invoke(app, ["score", str(empty)])
    assert result.exit_code == 1
    assert "log.empty" in result.stderr
