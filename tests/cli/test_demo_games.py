"""The demo's example games on a shared Redis keep the file's event ids: only the game id gets
the run's suffix, so the void of `penumbra-3p` names an event a reader finds in the file and in
the demo's game. The demo gave every event a new id, and the void's `voided_event_id` was in
neither the file nor anything the newcomer had."""

from __future__ import annotations

import json

from contracts.common import EventVoided
from services.cli.demo_games import load_games
from services.rules.ids import ROOT

LOG = ROOT / "contracts" / "examples" / "penumbra-3p.jsonl"


def test_a_renamed_game_keeps_the_file_s_event_ids_so_its_void_is_found() -> None:
    file_ids = [json.loads(line)["event_id"] for line in LOG.read_text("utf-8").splitlines()]
    (game,) = load_games([LOG], "a1b2c3")
    assert game.game_id == "pen-demo-3p-a1b2c3"
    assert {e.game_id for e in game.events} == {"pen-demo-3p-a1b2c3"}
    assert [str(e.event_id) for e in game.events] == file_ids
    voids = [e.payload for e in game.events if isinstance(e.payload, EventVoided)]
    assert voids
    for void in voids:
        assert str(void.voided_event_id) in file_ids
    assert game.expected.game_id == "pen-demo-3p-a1b2c3"


def test_a_throwaway_run_keeps_the_file_s_game_id() -> None:
    (game,) = load_games([LOG], None)
    assert game.game_id == "pen-demo-3p"
