"""A third game registered by the test alone is parsed, folded, scored offline through the
`score` command, exported, given JSON Schemas and projected through Redis, with its own title,
unit and labels, and no production file edited. Hand-computed game (rules in `ruleset.py`):

    seq 2 ann rolls 6, seq 3 bob 5, seq 4 cyd 2, seq 5 bob 5, seq 6 ann 3, seq 7 ends.
    rolls:     ann 6 + 3 = 9, bob 5 + 5 = 10, cyd 2
    best_roll: ann has the game's best roll (6): +5
    totals:    ann 14 (1st), bob 10 (2nd), cyd 2 (3rd)
"""

from __future__ import annotations

import csv
import io
import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis.asyncio as aioredis
from pydantic import ValidationError
from typer.testing import CliRunner

from contracts import events as wire
from contracts.envelope import Envelope
from contracts.games import GAMES, registered
from contracts.schema import generate_json_schemas
from domain.fold import fold
from domain.standings import standings
from services.cli.main import app
from services.usecases.readmodels.exports import bgstats_play, score_sheet_csv
from tests.thirdgame.game import GAME

ROLLS = [("ann", 6), ("bob", 5), ("cyd", 2), ("bob", 5), ("ann", 3)]
WANT = {"ann": (1, 14, {"rolls": 9, "best_roll": 5}), "bob": (2, 10, {"rolls": 10}), "cyd": (3, 2, {"rolls": 2})}  # fmt: skip


@pytest.fixture(autouse=True)
def dice() -> Iterator[None]:
    with registered(GAME):
        yield
    assert "dice" not in GAMES


def _lines(game_id: str = "dice-1") -> list[str]:
    def raw(seq: int, wire_type: str, payload: dict[str, object]) -> str:
        return json.dumps(
            {
                "event_id": str(uuid.UUID(int=seq)),
                "game_id": game_id,
                "seq": seq,
                "type": wire_type,
                "schema_version": 1,
                "occurred_at": f"2026-12-01T10:{seq:02d}:00Z",
                "actor": "test",
                "payload": payload,
            }
        )

    players = [{"player_id": p, "name": p.title(), "seat": i} for i, p in enumerate(["ann", "bob", "cyd"], 1)]  # fmt: skip
    lines = [raw(1, "dice.game_started", {"players": players})]
    for pid, pips in ROLLS:
        lines.append(raw(len(lines) + 1, "dice.rolled", {"player_id": pid, "pips": pips}))
    lines.append(raw(len(lines) + 1, "game.ended", {}))
    return lines


def _events(game_id: str = "dice-1") -> list[Envelope]:
    return [wire.parse_event_json(line) for line in _lines(game_id)]


def test_the_registered_game_folds_to_the_hand_computed_standings() -> None:
    result = standings(fold(_events()))
    assert result.status == "final"
    assert result.winner == "ann"
    assert {p.player_id: (p.rank, p.total, p.categories) for p in result.players} == WANT
    assert result.score_unit == "pips"
    assert result.title is not None
    assert result.title.en == "Tiny Dice"
    assert result.score_unit_label is not None
    assert result.score_unit_label.ru == "Очки"
    assert [c.key for c in result.categories] == ["rolls", "best_roll"]


def test_its_own_resources_are_in_the_ledger() -> None:
    ledger = fold(_events()).ledger
    assert sum(e.amount for e in ledger if e.resource == "dice" and e.player_id == "bob") == 2


def test_during_play_the_bonus_is_provisional() -> None:
    result = standings(fold(_events(), upto_seq=3))  # ann 6, bob 5
    lines = {p.player_id: p for p in result.players}
    assert lines["ann"].provisional is not None
    assert (lines["ann"].total, lines["ann"].provisional.total) == (6, 11)
    assert lines["bob"].provisional is not None
    assert lines["bob"].provisional.total == 5


def test_score_command_scores_it_offline(tmp_path: Path) -> None:
    log = tmp_path / "dice.jsonl"
    log.write_text("\n".join(_lines()) + "\n", encoding="utf-8")
    table = CliRunner().invoke(app, ["score", str(log)])
    assert table.exit_code == 0, table.output
    assert "Pips by category" in table.output
    assert "Best roll" in table.output
    as_json = CliRunner().invoke(app, ["score", str(log), "--json"])
    assert as_json.exit_code == 0, as_json.output
    summary = json.loads(as_json.output)
    assert summary["winner"] == "ann"


def test_exports_name_it_from_the_registry() -> None:
    events = _events()
    result = standings(fold(events))
    assert bgstats_play(result, events)["game"]["name"] == "Tiny Dice"
    rows = list(csv.DictReader(io.StringIO(score_sheet_csv(result, events))))
    labels = {c.key: c.en for c in result.categories}  # the sheet's columns are the labels
    assert [
        (r["Place"], r["Player id"], r[labels["rolls"]], r[labels["best_roll"]], r["Total"])
        for r in rows
    ] == [("1", "ann", "9", "5", "14"), ("2", "bob", "10", "0", "10"), ("3", "cyd", "2", "0", "2")]


def test_schemas_are_generated_for_its_event_types() -> None:
    files = generate_json_schemas()
    assert {"dice.game_started.json", "dice.rolled.json"} <= set(files)
    assert "dice.rolled" in files["event.json"]


def test_unregistered_its_events_no_longer_parse() -> None:
    line = _lines()[1]
    assert wire.parse_event_json(line).type == "dice.rolled"
    with registered_elsewhere(), pytest.raises(ValidationError):
        wire.parse_event_json(line)


class registered_elsewhere:
    """Unregister the game inside the block (the autouse fixture registered it)."""

    def __enter__(self) -> None:
        from contracts.games import unregister

        unregister("dice")

    def __exit__(self, *_: object) -> None:
        from contracts.games import register

        register(GAME)


async def test_it_is_projected_through_redis(
    clean_redis_url: str, redis_client: aioredis.Redis
) -> None:
    from services.adapters.redis.eventlog import RedisEventLog
    from services.adapters.redis.keys import Keys
    from services.bootstrap import running_projector
    from services.platform.settings import ServiceSettings
    from tests.pipeline.helpers import offline_standings, projected_standings, wait_projected

    keys = Keys(2)
    events = _events("dice-redis")
    await RedisEventLog(redis_client, keys).append("dice-redis", events)
    async with running_projector(ServiceSettings(redis_url=clean_redis_url, shards=2, batch=3)):
        await wait_projected(redis_client, keys, {"dice-redis": len(events)})
    stored = await projected_standings(redis_client, keys, "dice-redis")
    assert stored == offline_standings(events)
    assert stored["title"] == {"en": "Tiny Dice", "ru": "Кости"}
    assert {p["player_id"]: p["total"] for p in stored["players"]} == {
        "ann": 14,
        "bob": 10,
        "cyd": 2,
    }


def test_its_simulator_makes_rule_valid_games_through_the_simulate_command(tmp_path: Path) -> None:
    from services.simulator.tables import simulate_game

    for seed in range(20):
        state = fold(list(simulate_game("dice", seed)))
        assert state.status == "final"
        assert sum(state.totals.values()) == sum(
            e.amount for e in state.ledger if e.resource == "pips"
        )
    run = CliRunner().invoke(
        app, ["simulate", "--game", "dice", "--tables", "2", "--out", str(tmp_path)]
    )
    assert run.exit_code == 0, run.output
    written = sorted(tmp_path.glob("*.jsonl"))
    assert [p.name for p in written] == ["dice-1-0.jsonl", "dice-1-1.jsonl"]
    scored = CliRunner().invoke(app, ["score", str(written[0]), "--json"])
    assert scored.exit_code == 0, scored.output
    assert json.loads(scored.output)["status"] == "final"
